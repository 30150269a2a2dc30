package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// An object's address, followed from a colleague's link, opens the object
// whichever of the merchant's shops is selected: the browser is sent to
// the object's shop and mode, which is selected from then on, and the
// page says so. Another merchant's object stays not found, and the
// selection stays as it was.
func TestObjectAddressOpensInItsShop(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM5})
		ru := env.NewShop(payd.RegionRU, "")
		kz := env.NewShop(payd.RegionKZ, ru.MerchantID)
		c := env.As(ru, false)
		pay := paidPayment(t, c, "1000.00", "order-shared", false)
		rf := c.Post("/v1/refunds", idemKey(), map[string]any{"payment_id": pay,
			"amount": map[string]any{"value": "100.00", "currency": "RUB"}}).Expect(t, 201).JSON(t)["id"].(string)
		dsp := c.Post("/v1/test/payments/"+pay+"/disputes", idemKey(), map[string]any{
			"amount": map[string]any{"value": "300.00", "currency": "RUB"}, "reason_code": "13.1"}).Expect(t, 201).JSON(t)["id"].(string)
		pl := c.Post("/v1/payment-links", idemKey(), map[string]any{"description": "Gift card",
			"amount": map[string]any{"value": "150.00", "currency": "RUB"}}).Expect(t, 201).JSON(t)["id"].(string)
		stranger := env.NewShop(payd.RegionRU, "")
		theirs := paidPayment(t, env.As(stranger, false), "77.00", "order-theirs", false)

		viewer := signedIn(t, env, ru, payd.RoleViewer)
		selected := func() string {
			t.Helper()
			body := viewer.get("/dashboard/test/payments").body
			for _, s := range []*paydtest.Shop{ru, kz} {
				if strings.Contains(body, `<option value="`+s.ID+`" selected>`) {
					return s.ID
				}
			}
			t.Fatal("no shop selected")
			return ""
		}
		for _, tc := range []struct{ name, path, lands string }{
			{"Payment", "/dashboard/test/payments/" + pay, "/dashboard/test/payments/" + pay},
			{"PaymentOfTheOtherMode", "/dashboard/payments/" + pay, "/dashboard/test/payments/" + pay},
			{"Refund", "/dashboard/test/refunds/" + rf, "/dashboard/test/payments/" + pay},
			{"Dispute", "/dashboard/test/disputes/" + dsp, "/dashboard/test/disputes/" + dsp},
			{"Link", "/dashboard/test/links/" + pl, "/dashboard/test/links/" + pl},
		} {
			t.Run(tc.name, func(t *testing.T) {
				viewer.get("/dashboard/test/?shop=" + kz.ID)
				p := viewer.get(tc.path)
				u, _ := url.Parse(p.location)
				if p.status != http.StatusSeeOther || u.Query().Get("shop") != ru.ID {
					t.Fatalf("GET %s = %d to %q, want the shop %s selected", tc.path, p.status, p.location, ru.ID)
				}
				for i := 0; p.status == http.StatusSeeOther && i < 3; i++ {
					u, _ = url.Parse(p.location)
					p = viewer.get(p.location)
				}
				if p.status != http.StatusOK || u.Path != tc.lands || !strings.Contains(p.body, "Opened in the shop Shop ru, where this belongs") {
					t.Fatalf("GET %s ends at %s = %d, want %s with the notice:\n%s", tc.path, u, p.status, tc.lands, p.body)
				}
				// The viewer's role is the same in every shop: still no
				// refund form.
				if strings.Contains(p.body, `id="refund-form"`) {
					t.Fatalf("a viewer is shown the refund form on %s", u)
				}
				if got := selected(); got != ru.ID {
					t.Fatalf("selected shop after opening %s = %s, want %s", tc.path, got, ru.ID)
				}
			})
		}

		// Another merchant's payment is not found, as one that does not
		// exist, and changes nothing.
		viewer.get("/dashboard/test/?shop=" + kz.ID)
		for _, id := range []string{theirs, "pay_" + strings.Repeat("0", 26)} {
			p := viewer.get("/dashboard/test/payments/" + id)
			if p.status != http.StatusNotFound || p.location != "" || !strings.Contains(p.body, "payment not found") ||
				strings.Contains(p.body, stranger.ID) || strings.Contains(p.body, "order-theirs") {
				t.Fatalf("GET another merchant's or no payment %s = %d to %q\n%s", id, p.status, p.location, p.body)
			}
		}
		if got := selected(); got != kz.ID {
			t.Fatalf("selected shop after another merchant's payment = %s, want %s", got, kz.ID)
		}

		// Picking another shop on an object's page shows that shop's
		// list, not the object again.
		viewer.get("/dashboard/test/?shop=" + ru.ID)
		if p := viewer.get("/dashboard/test/payments/" + pay + "?shop=" + kz.ID); p.status != http.StatusSeeOther || p.location != "/dashboard/test/payments" {
			t.Fatalf("picking shop kz on the payment's page = %d to %q", p.status, p.location)
		}
		if got := selected(); got != kz.ID {
			t.Fatalf("selected shop after picking kz = %s", got)
		}
	})
}

// Signing in lands where the merchant's payments are: the shop and mode
// of the most recent payment; a merchant without payments lands on the
// home, and a sign-in on the way to a page goes there.
func TestSignInLandsWhereThePaymentsAre(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		first := env.NewShop(payd.RegionRU, "")
		second := env.NewShop(payd.RegionKZ, first.MerchantID)
		email, password := newUser(t, env, first.MerchantID, payd.RoleViewer)
		lands := func(next string) string {
			t.Helper()
			v := newVisitor(t, env)
			p := v.signedOutPost("/dashboard/signin", url.Values{"email": {email}, "password": {password}, "next": {next}})
			if p.status != http.StatusSeeOther {
				t.Fatalf("sign-in = %d\n%s", p.status, p.body)
			}
			return p.location
		}
		if got := lands("/dashboard/"); got != "/dashboard/" {
			t.Fatalf("without payments the sign-in lands on %q, want the home", got)
		}
		paidPayment(t, env.As(first, false), "10.00", "order-older", false)
		env.As(second, false).Post("/v1/payments", idemKey(), map[string]any{"amount": map[string]any{"value": "2000.00", "currency": "KZT"},
			"order_id": "order-newer", "confirmation": map[string]any{"type": "qr"}}).Expect(t, 201)
		for _, tc := range []struct{ next, want string }{
			{"/dashboard/", "/dashboard/test/?shop=" + second.ID},
			{"/dashboard/?lang=ru", "/dashboard/test/?lang=ru&shop=" + second.ID},
			{"/dashboard/refunds", "/dashboard/refunds"},
		} {
			if got := lands(tc.next); got != tc.want {
				t.Errorf("sign-in on the way to %q lands on %q, want %q", tc.next, got, tc.want)
			}
		}
	})
}

// The merchant's list of shops is kept between pages, but a shop made
// through this instance shows on the next page at once.
func TestNewShopShowsAtOnce(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		ru := env.NewShop(payd.RegionRU, "")
		viewer := signedIn(t, env, ru, payd.RoleViewer)
		if p := viewer.get("/dashboard/test/"); p.status != 200 || !strings.Contains(p.body, ru.ID) {
			t.Fatalf("home = %d without the shop", p.status)
		}
		// Made alone, without keys (whose issue drops the lists too).
		var kz struct{ ID string }
		env.AdminDo("POST", "/admin/v1/shops", map[string]any{"merchant_id": ru.MerchantID, "region": payd.RegionKZ, "name": "Shop kz"}).
			Expect(t, 201).Decode(t, &kz)
		if p := viewer.get("/dashboard/test/"); !strings.Contains(p.body, `<option value="`+kz.ID+`"`) {
			t.Fatalf("the new shop %s is not offered on the next page:\n%s", kz.ID, p.body)
		}
	})
}
