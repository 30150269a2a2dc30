package dashboard_test

import (
	"net/http"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// Capture and cancel from the payment's page are the API's, once for a
// double submit, and each is in the audit log once, naming the payment,
// the user and the address.
func TestCaptureAndCancelFromThePage(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		support := newVisitor(t, env)
		email, password := newUser(t, env, shop.MerchantID, payd.RoleSupport)
		support.signIn(email, password)

		for _, tc := range []struct{ form, path, status, action string }{
			{"capture-form", "capture", "succeeded", "capture payment"},
			{"cancel-form", "cancel", "canceled", "cancel payment"},
		} {
			body := map[string]any{"amount": map[string]any{"value": "300.00", "currency": "RUB"}, "order_id": "order-" + tc.path,
				"capture": false, "confirmation": map[string]any{"type": "qr"}}
			id := c.Post("/v1/payments", idemKey(), body).Expect(t, 201).JSON(t)["id"].(string)
			c.Post("/v1/test/payments/"+id+"/simulate", idemKey(), map[string]any{"outcome": "authorize"}).Expect(t, 202)
			c.WaitStatus(id, "waiting_for_capture")
			form := formOf(t, support.get("/dashboard/test/payments/"+id).body, tc.form)
			for range 2 {
				if p := support.post("/dashboard/test/payments/"+id+"/"+tc.path, form); p.status != http.StatusSeeOther {
					t.Fatalf("%s = %d\n%s", tc.path, p.status, p.body)
				}
			}
			c.WaitStatus(id, tc.status)
			es := audited(t, env, shop.MerchantID, payd.AuditAction(tc.action))
			if len(es) != 1 || es[0].ObjectID != id || es[0].UserEmail != email || es[0].Addr != "127.0.0.1" ||
				es[0].ShopID != shop.ID || es[0].Mode != payd.ModeTest {
				t.Errorf("audit entries of %s = %s, want one naming %s", tc.path, entries(es), id)
			}
		}
	})
}
