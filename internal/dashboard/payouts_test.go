package dashboard_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// An administrator pays out from the page, with the balance beside the
// form: the form sent twice makes one payout. A payout beyond the balance
// is refused in the rule's words and makes none; a support user's post by
// hand is refused.
func TestPayoutFromThePage(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, c := startM5(t, b)
		env.ToMorning(payd.RegionRU)
		paidPayment(t, c, "1000.00", "order-payout", false) // QR: fee 7.00
		env.Clock.Advance(25 * time.Hour)
		admin := signedIn(t, env, shop, payd.RoleAdmin)
		waitFor(t, "993.00 available", func() bool {
			for _, it := range items(t, c, "/v1/balance") {
				if m := it.(map[string]any); m["currency"] == "RUB" && m["payable"].(map[string]any)["value"] == "993.00" {
					return true
				}
			}
			return false
		})
		page := admin.get("/dashboard/test/payouts")
		if !strings.Contains(section(page.body, "payout-balance"), `<td class="num payable" data-label="Can be paid out">993.00`) {
			t.Fatalf("the payouts page does not show the balance\n%s", page.body)
		}
		form := formOf(t, page.body, "payout-form")
		form.Set("amount", "2000")
		form.Set("currency", "RUB")
		form.Set("destination_type", "card")
		form.Set("card_token", "tok_sandbox_4242")
		p := admin.post("/dashboard/test/payouts", form)
		if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="payout-error"`) ||
			!strings.Contains(p.body, "the available balance is") || !strings.Contains(p.body, `value="tok_sandbox_4242"`) {
			t.Fatalf("payout beyond the balance = %d\n%s", p.status, p.body)
		}
		// A field of another kind is refused next to that field.
		form = formOf(t, p.body, "payout-form")
		form.Set("amount", "100")
		form.Set("currency", "RUB")
		form.Set("destination_type", "card")
		form.Set("card_token", "tok_sandbox_4242")
		form.Set("bic", "044525225")
		p = admin.post("/dashboard/test/payouts", form)
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, "bic is not a field of card destinations") {
			t.Fatalf("payout with a stray field = %d\n%s", p.status, p.body)
		}
		if n := len(items(t, c, "/v1/payouts")); n != 0 {
			t.Fatalf("%d payouts after refusals, want 0", n)
		}

		form = formOf(t, p.body, "payout-form")
		form.Set("amount", "100")
		form.Set("currency", "RUB")
		form.Set("destination_type", "card")
		form.Set("card_token", "tok_sandbox_4242")
		form.Set("description", "weekly")
		for range 2 {
			if p := admin.post("/dashboard/test/payouts", form); p.status != http.StatusSeeOther || p.location != "/dashboard/test/payouts?done=payout_created" {
				t.Fatalf("payout post = %d to %q\n%s", p.status, p.location, p.body)
			}
		}
		payouts := items(t, c, "/v1/payouts")
		if len(payouts) != 1 {
			t.Fatalf("%d payouts after a double submit, want 1", len(payouts))
		}
		po := payouts[0].(map[string]any)
		if po["amount"].(map[string]any)["value"] != "100.00" || po["destination_masked"] != "card ****4242" || po["description"] != "weekly" {
			t.Fatalf("payout = %v", po)
		}
		if es := audited(t, env, shop.MerchantID, "create payout"); len(es) != 1 || es[0].ObjectID != po["id"] {
			t.Fatalf("audit of the payout = %+v", es)
		}
		list := admin.get("/dashboard/test/payouts")
		if !strings.Contains(list.body, po["id"].(string)) || !strings.Contains(list.body, "card ****4242") || strings.Contains(list.body, "tok_sandbox_4242") {
			t.Fatalf("payouts list lacks the payout or shows the token\n%s", list.body)
		}
		// The status filter keeps the payout under its status only (it
		// may move on meanwhile: its status is read again after).
		for _, st := range []string{"pending", "processing", "succeeded", "canceled"} {
			shown := strings.Contains(admin.get("/dashboard/test/payouts?status="+st).body, po["id"].(string))
			now := c.Get("/v1/payouts/"+po["id"].(string)).Expect(t, 200).JSON(t)["status"]
			if shown && now != st && po["status"] != st {
				t.Fatalf("the %s filter shows a payout that is %v", st, now)
			}
		}
		if p := admin.get("/dashboard/test/payouts?status=" + po["status"].(string)); !strings.Contains(p.body, po["id"].(string)) &&
			c.Get("/v1/payouts/"+po["id"].(string)).Expect(t, 200).JSON(t)["status"] == po["status"] {
			t.Fatalf("the %s filter lost the payout", po["status"])
		}

		support := signedIn(t, env, shop, payd.RoleSupport)
		if sp := support.get("/dashboard/test/payouts"); sp.status != 200 || strings.Contains(sp.body, `id="payout-form"`) {
			t.Fatalf("support's payouts page = %d, with the form: %v", sp.status, strings.Contains(sp.body, `id="payout-form"`))
		}
		f := byHand(t, support)
		f.Set("amount", "50")
		f.Set("currency", "RUB")
		f.Set("destination_type", "card")
		f.Set("card_token", "tok_sandbox_4242")
		if p := support.post("/dashboard/test/payouts", f); p.status != http.StatusForbidden || !strings.Contains(p.body, "Your role does not allow this") {
			t.Fatalf("support's payout by hand = %d\n%s", p.status, p.body)
		}
		if n := len(items(t, c, "/v1/payouts")); n != 1 {
			t.Fatalf("%d payouts after support's post, want 1", n)
		}
	})
}
