package office_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// storedShop reads a shop as it is stored.
func storedShop(t *testing.T, env *paydtest.Env, id string) *payd.Shop {
	t.Helper()
	s, err := env.Service.GetShop(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRiskBlocksAShop: a support member sees no state form on a shop's
// page and is refused a block posted by hand; a risk member blocks the
// shop from its page.
func TestRiskBlocksAShop(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		env := paydtest.Start(t, be, nil)
		risk := newMember(t, env, "risk@operator.test", payd.StaffRisk)
		support := newMember(t, env, "support@operator.test", payd.StaffSupport)
		shop := env.NewShop(payd.RegionRU, "")

		page := support.get("/office/shops/" + shop.ID)
		if page.status != http.StatusOK || !strings.Contains(page.body, `id="shop-facts"`) {
			t.Fatalf("support's shop page answered %d:\n%s", page.status, page.body)
		}
		if strings.Contains(page.body, `id="shop-block"`) || strings.Contains(page.body, `id="general-form"`) ||
			strings.Contains(page.body, `id="key-form"`) {
			t.Error("support's shop page offers a form its role may not post")
		}
		refused := support.post("/office/shops/"+shop.ID+"/block", url.Values{})
		if refused.status != http.StatusForbidden || !strings.Contains(refused.body, "Your role does not allow this.") {
			t.Fatalf("support's block answered %d:\n%s", refused.status, refused.body)
		}
		if storedShop(t, env, shop.ID).Blocked {
			t.Fatal("a refused block blocked the shop")
		}

		page = risk.get("/office/shops/" + shop.ID)
		form := formOf(t, page.body, "shop-block")
		done := risk.post("/office/shops/"+shop.ID+"/block", form)
		if done.status != http.StatusSeeOther || done.location != "/office/shops/"+shop.ID+"?notice=done" {
			t.Fatalf("risk's block answered %d %q:\n%s", done.status, done.location, done.body)
		}
		if !storedShop(t, env, shop.ID).Blocked {
			t.Fatal("the shop is not blocked after risk's block")
		}
		page = risk.get(done.location)
		if !strings.Contains(page.body, `id="shop-blocked"`) || !strings.Contains(page.body, `id="shop-unblock"`) {
			t.Errorf("the blocked shop's page shows no block or no unblock:\n%s", page.body)
		}
	})
}

var proposalOnPage = regexp.MustCompile(`id="proposal-(prp_[0-9A-Za-z]+)"`)

// TestTariffChangeTakesTwoAdmins: an administrator's change of a shop's
// tariffs is proposed and changes nothing; another administrator
// confirms it on the approvals page, and only then is it done.
func TestTariffChangeTakesTwoAdmins(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		env := paydtest.Start(t, be, nil)
		first := newMember(t, env, "first@operator.test", payd.StaffAdmin)
		second := newMember(t, env, "second@operator.test", payd.StaffAdmin)
		shop := env.NewShop(payd.RegionRU, "")

		form := formOf(t, first.get("/office/shops/"+shop.ID).body, "tariffs-form")
		form.Set("tariffs.0.method", "bank_card")
		form.Set("tariffs.0.currency", "RUB")
		form.Set("tariffs.0.percent_bps", "250")
		form.Set("tariffs.0.fixed", "1000")
		proposed := first.post("/office/shops/"+shop.ID+"/settings", form)
		if proposed.status != http.StatusSeeOther || !strings.Contains(proposed.location, "notice=proposed") {
			t.Fatalf("the tariff change answered %d %q:\n%s", proposed.status, proposed.location, proposed.body)
		}
		if got := storedShop(t, env, shop.ID).Settings.Tariffs; len(got) != 0 {
			t.Fatalf("the tariffs changed before a second person confirmed: %+v", got)
		}
		if page := first.get(proposed.location); !strings.Contains(page.body, "Proposed: a second staff member") {
			t.Errorf("no notice of the proposal on the shop's page:\n%s", page.body)
		}

		m := proposalOnPage.FindStringSubmatch(second.get("/office/").body)
		if m == nil {
			t.Fatal("no proposal on the second administrator's approvals page")
		}
		if ok := second.post("/office/proposals/"+m[1]+"/confirm", url.Values{}); ok.status != http.StatusSeeOther {
			t.Fatalf("the confirmation answered %d:\n%s", ok.status, ok.body)
		}
		got := storedShop(t, env, shop.ID).Settings.Tariffs
		if len(got) != 1 || got[0].Method != "bank_card" || got[0].Currency != "RUB" || got[0].PercentBps != 250 || got[0].Fixed != 1000 {
			t.Fatalf("the tariffs after the confirmation: %+v", got)
		}
		page := first.get("/office/shops/" + shop.ID)
		if !strings.Contains(page.body, `name="tariffs.0.percent_bps" type="text" inputmode="numeric" value="250"`) ||
			!strings.Contains(page.body, `name="tariffs.1.method"`) {
			t.Errorf("the tariffs form does not show the tariff and an empty row:\n%s", page.body)
		}
	})
}

var secretOnShopPage = regexp.MustCompile(`id="key-secret" value="([^"]+)"`)

// TestKeyIssuedOnceAndRevoked: a key issued on the shop's page shows its
// secret once; the key works against the merchant API until it is
// revoked there.
func TestKeyIssuedOnceAndRevoked(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		env := paydtest.Start(t, be, nil)
		admin := newMember(t, env, "admin@operator.test", payd.StaffAdmin)
		shop := env.NewShop(payd.RegionRU, "")

		form := formOf(t, admin.get("/office/shops/"+shop.ID).body, "key-form")
		form.Set("mode", "test")
		issued := admin.post("/office/shops/"+shop.ID+"/keys", form)
		found := secretOnShopPage.FindStringSubmatch(issued.body)
		if issued.status != http.StatusOK || found == nil {
			t.Fatalf("the key's issue answered %d without a secret:\n%s", issued.status, issued.body)
		}
		secret := html.UnescapeString(found[1])
		if again := admin.get("/office/shops/" + shop.ID); strings.Contains(again.body, secret) {
			t.Fatal("the key's secret is shown a second time")
		}
		client := env.As(shop, false).WithKey(secret)
		client.Get("/v1/shop").Expect(t, http.StatusOK)

		keys, err := env.Service.ListKeys(context.Background(), shop.ID)
		if err != nil {
			t.Fatal(err)
		}
		var id string
		for _, k := range keys {
			if k.Hint == payd.SecretHint(secret) {
				id = k.ID
			}
		}
		page := admin.get("/office/shops/" + shop.ID)
		if id == "" || !strings.Contains(page.body, `id="key-`+id+`"`) {
			t.Fatalf("the issued key %q is not listed on the page:\n%s", id, page.body)
		}
		revoke := formOf(t, page.body, "revoke-"+id)
		if a := admin.post("/office/shops/"+shop.ID+"/keys/"+id+"/revoke", revoke); a.status != http.StatusSeeOther {
			t.Fatalf("the revocation answered %d:\n%s", a.status, a.body)
		}
		client.Get("/v1/shop").Expect(t, http.StatusUnauthorized)
	})
}

// TestSettingsFormShowsTheRefusal: a value the API refuses is shown next
// to its input, with what was typed, and changes nothing.
func TestSettingsFormShowsTheRefusal(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		env := paydtest.Start(t, be, nil)
		admin := newMember(t, env, "admin@operator.test", payd.StaffAdmin)
		finance := newMember(t, env, "finance@operator.test", payd.StaffFinance)
		shop := env.NewShop(payd.RegionRU, "")

		form := formOf(t, admin.get("/office/shops/"+shop.ID).body, "general-form")
		form.Set("display_name", "Renamed")
		form.Set("requests_per_minute", "-5")
		a := admin.post("/office/shops/"+shop.ID+"/settings", form)
		if a.status != http.StatusBadRequest || !strings.Contains(a.body, `id="general-requests_per_minute-error"`) ||
			!strings.Contains(a.body, "must be 0 (default) .. 1000000") || !strings.Contains(a.body, `value="-5"`) ||
			!strings.Contains(a.body, `value="Renamed"`) {
			t.Fatalf("the refused settings answered %d:\n%s", a.status, a.body)
		}
		if s := storedShop(t, env, shop.ID).Settings; s.DisplayName != "" || s.RequestsPerMinute != 0 {
			t.Fatalf("a refused form changed the settings: %+v", s)
		}
		form.Set("requests_per_minute", "")
		if a := admin.post("/office/shops/"+shop.ID+"/settings", form); a.status != http.StatusSeeOther {
			t.Fatalf("the corrected settings answered %d:\n%s", a.status, a.body)
		}
		if s := storedShop(t, env, shop.ID).Settings; s.DisplayName != "Renamed" {
			t.Fatalf("the corrected form did not change the settings: %+v", s)
		}

		page := finance.get("/office/merchants/" + shop.MerchantID)
		if strings.Contains(page.body, `id="chargeback-form"`) || strings.Contains(page.body, `id="second-factor-form"`) {
			t.Error("finance's merchant page offers the risk team's or the admins' settings")
		}
		terms := formOf(t, page.body, "terms-form")
		terms.Set("settlement_delay_days", "many")
		a = finance.post("/office/merchants/"+shop.MerchantID+"/settings", terms)
		if a.status != http.StatusBadRequest || !strings.Contains(a.body, `id="terms-settlement_delay_days-error"`) ||
			!strings.Contains(a.body, `value="many"`) {
			t.Fatalf("the refused terms answered %d:\n%s", a.status, a.body)
		}
		terms.Set("settlement_delay_days", "31")
		a = finance.post("/office/merchants/"+shop.MerchantID+"/settings", terms)
		if a.status != http.StatusBadRequest || !strings.Contains(a.body, "must be 0..30") {
			t.Fatalf("the out-of-range terms answered %d:\n%s", a.status, a.body)
		}
		m, err := env.Service.GetMerchant(context.Background(), shop.MerchantID)
		if err != nil || m.SettlementDelayDays == 31 {
			t.Fatalf("a refused form changed the merchant: %+v, %v", m, err)
		}
	})
}

// TestMerchantPages: the list links each merchant; the merchant's page
// shows its shops, trial balances and users; a risk member freezes its
// payouts at once and proposes unfreezing them; an administrator adds a
// dashboard user and sees its setup link once; the merchant's audit log
// shows to the audit's role only.
func TestMerchantPages(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	admin := newMember(t, env, "admin@operator.test", payd.StaffAdmin)
	risk := newMember(t, env, "risk@operator.test", payd.StaffRisk)
	shop := env.NewShop(payd.RegionRU, "")

	list := risk.get("/office/merchants")
	if !strings.Contains(list.body, `href="/office/merchants/`+shop.MerchantID+`"`) {
		t.Fatalf("the list does not link the merchant:\n%s", list.body)
	}
	page := risk.get("/office/merchants/" + shop.MerchantID)
	for _, want := range []string{`href="/office/shops/` + shop.ID + `"`, `id="chargeback-form"`, `id="freeze-form"`, "Trial balance"} {
		if !strings.Contains(page.body, want) {
			t.Errorf("risk's merchant page lacks %s", want)
		}
	}
	if strings.Contains(page.body, `id="audit-h"`) || strings.Contains(page.body, `id="user-form"`) {
		t.Error("risk's merchant page shows the audit log or the users' form")
	}
	freeze := formOf(t, page.body, "freeze-form")
	freeze.Set("test", "false")
	freeze.Set("reason", "manual_review")
	if a := risk.post("/office/merchants/"+shop.MerchantID+"/freeze", freeze); a.status != http.StatusSeeOther || !strings.Contains(a.location, "notice=done") {
		t.Fatalf("the freeze answered %d %q:\n%s", a.status, a.location, a.body)
	}
	unfreeze := formOf(t, page.body, "unfreeze-form")
	unfreeze.Set("test", "false")
	if a := risk.post("/office/merchants/"+shop.MerchantID+"/unfreeze", unfreeze); a.status != http.StatusSeeOther || !strings.Contains(a.location, "notice=proposed") {
		t.Fatalf("the unfreeze answered %d %q:\n%s", a.status, a.location, a.body)
	}

	page = admin.get("/office/merchants/" + shop.MerchantID)
	if !strings.Contains(page.body, `id="audit-h"`) || !strings.Contains(page.body, `id="second-factor-form"`) {
		t.Errorf("the admin's merchant page lacks the audit log or the second-factor form:\n%s", page.body)
	}
	user := formOf(t, page.body, "user-form")
	user.Set("email", "owner@merchant.test")
	user.Set("role", "admin")
	added := admin.post("/office/merchants/"+shop.MerchantID+"/users", user)
	link := regexp.MustCompile(`id="user-setup-url" value="([^"]+)"`).FindStringSubmatch(added.body)
	if added.status != http.StatusOK || link == nil || !strings.Contains(added.body, "owner@merchant.test") {
		t.Fatalf("adding a user answered %d:\n%s", added.status, added.body)
	}
	if again := admin.get("/office/merchants/" + shop.MerchantID); strings.Contains(again.body, link[1]) || !strings.Contains(again.body, "owner@merchant.test") {
		t.Error("the setup link shows a second time, or the user is not listed")
	}
}
