package dashboard_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// The sandbox is for test data only; an outcome simulated on the page is
// applied to the payment, once for a double submit; a refused outcome is
// shown next to the form; the test clock moves once for a double submit;
// a viewer may not use the sandbox.
func TestSandboxPage(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		dev := newVisitor(t, env)
		dev.signIn(newUser(t, env, shop.MerchantID, payd.RoleDeveloper))

		if p := dev.get("/dashboard/sandbox"); p.status != http.StatusNotFound {
			t.Fatalf("live sandbox = %d, want 404", p.status)
		}
		body := map[string]any{"amount": map[string]any{"value": "50.00", "currency": "RUB"}, "order_id": "sandbox-1",
			"confirmation": map[string]any{"type": "qr"}}
		id := c.Post("/v1/payments", idemKey(), body).Expect(t, 201).JSON(t)["id"].(string)

		page := dev.get("/dashboard/test/sandbox")
		if page.status != 200 || !strings.Contains(page.body, id) {
			t.Fatalf("sandbox page = %d, without the pending payment\n%s", page.status, page.body)
		}
		if p := dev.get("/dashboard/test/sandbox?payment=" + id); !strings.Contains(p.body, `name="payment_id" type="text" class="mono" required value="`+id+`"`) {
			t.Errorf("the pending payment's link does not fill the form")
		}
		form := formOf(t, page.body, "simulate-form")
		form.Set("payment_id", "pay_nosuchpayment")
		form.Set("outcome", "succeed")
		if p := dev.post("/dashboard/test/sandbox/simulate", form); p.status != http.StatusNotFound || !strings.Contains(p.body, `id="simulate-error"`) {
			t.Fatalf("unknown payment = %d\n%s", p.status, p.body)
		}
		form = formOf(t, dev.get("/dashboard/test/sandbox").body, "simulate-form")
		form.Set("payment_id", id)
		form.Set("outcome", "authorize")
		form.Set("delay_seconds", "301")
		if p := dev.post("/dashboard/test/sandbox/simulate", form); p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="simulate-error"`) {
			t.Fatalf("a delay beyond 300 s = %d", p.status)
		}
		form.Set("delay_seconds", "0")
		for range 2 {
			if p := dev.post("/dashboard/test/sandbox/simulate", form); p.status != http.StatusSeeOther {
				t.Fatalf("simulate = %d\n%s", p.status, p.body)
			}
		}
		c.WaitStatus(id, "waiting_for_capture")
		// decline needs a pending payment: the rule's refusal, in words.
		form = formOf(t, dev.get("/dashboard/test/sandbox").body, "simulate-form")
		form.Set("payment_id", id)
		form.Set("outcome", "decline")
		if p := dev.post("/dashboard/test/sandbox/simulate", form); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="simulate-error"`) {
			t.Fatalf("decline of an authorized payment = %d\n%s", p.status, p.body)
		}

		// The clock: ten minutes forward, once for the same form twice.
		// (More than the session's idle timeout would end the session.)
		before := env.Clock.Now()
		cf := formOf(t, dev.get("/dashboard/test/sandbox").body, "clock-form")
		cf.Set("amount", "10")
		cf.Set("unit", "minutes")
		for range 2 {
			if p := dev.post("/dashboard/test/sandbox/clock", cf); p.status != http.StatusSeeOther {
				t.Fatalf("clock = %d\n%s", p.status, p.body)
			}
		}
		if moved := env.Clock.Now().Sub(before); moved < 10*time.Minute || moved > 15*time.Minute {
			t.Fatalf("the clock moved %s, want 10 min", moved)
		}
		cf = formOf(t, dev.get("/dashboard/test/sandbox").body, "clock-form")
		cf.Set("amount", "400")
		cf.Set("unit", "days")
		if p := dev.post("/dashboard/test/sandbox/clock", cf); p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="clock-error"`) {
			t.Fatalf("clock beyond a year = %d", p.status)
		}

		viewer := newVisitor(t, env)
		viewer.signIn(newUser(t, env, shop.MerchantID, payd.RoleViewer))
		if p := viewer.get("/dashboard/test/sandbox"); p.status != http.StatusForbidden {
			t.Fatalf("viewer's sandbox = %d", p.status)
		}
		// The way there is shown only to whom may use it.
		if p := viewer.get("/dashboard/test/developers"); p.status != 200 || strings.Contains(p.body, `id="dev-sandbox"`) {
			t.Fatalf("viewer's developers page = %d, links the sandbox: %v", p.status, strings.Contains(p.body, `id="dev-sandbox"`))
		}
		if p := dev.get("/dashboard/test/developers"); !strings.Contains(p.body, `id="dev-sandbox"`) {
			t.Fatal("the developer's page does not link the sandbox")
		}
		byHand := formOf(t, viewer.get("/dashboard/test/").body, "signout-form")
		byHand.Set("amount", "5")
		byHand.Set("unit", "days")
		byHand.Set("offset", "0")
		at := env.Clock.Now()
		if p := viewer.post("/dashboard/test/sandbox/clock", byHand); p.status != http.StatusForbidden {
			t.Fatalf("viewer's clock by hand = %d", p.status)
		}
		if env.Clock.Now().Sub(at) > time.Hour {
			t.Fatal("the viewer's post moved the clock")
		}
	})
}
