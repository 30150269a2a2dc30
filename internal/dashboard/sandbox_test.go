package dashboard_test

import (
	"fmt"
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
		// The simulate answers with no body; its one entry (the second
		// submit is a replay) names the payment, the outcome and where
		// it came from.
		sims := audited(t, env, shop.MerchantID, "simulate outcome")
		if len(sims) != 1 || sims[0].ObjectID != id || sims[0].Detail != "authorize" || sims[0].UserEmail == "" ||
			sims[0].Addr != "127.0.0.1" || sims[0].ShopID != shop.ID || sims[0].Mode != payd.ModeTest {
			t.Fatalf("audit entries of the simulate = %s, want one naming %s", entries(sims), id)
		}
		// decline needs a pending payment: the rule's refusal, in words.
		form = formOf(t, dev.get("/dashboard/test/sandbox").body, "simulate-form")
		form.Set("payment_id", id)
		form.Set("outcome", "decline")
		if p := dev.post("/dashboard/test/sandbox/simulate", form); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="simulate-error"`) {
			t.Fatalf("decline of an authorized payment = %d\n%s", p.status, p.body)
		}

		// The clock: ten minutes forward, once for the same form twice.
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
		// One move, one entry: the clock, how far and to when, by whom
		// and from where.
		moves := audited(t, env, shop.MerchantID, payd.AuditAdvanceTestClock)
		if len(moves) != 1 || moves[0].ObjectID != payd.AuditObjectTestClock || !strings.HasPrefix(moves[0].Detail, "+10m0s, to ") ||
			moves[0].UserEmail == "" || moves[0].Addr != "127.0.0.1" || moves[0].ShopID != shop.ID {
			t.Fatalf("audit entries of the clock = %s, want one of +10m0s", entries(moves))
		}
		admin := newVisitor(t, env)
		admin.signIn(newUser(t, env, shop.MerchantID, payd.RoleAdmin))
		if p := admin.get("/dashboard/audit"); !strings.Contains(p.body, ">test_clock<br>") || !strings.Contains(p.body, "10m0s, to ") ||
			!strings.Contains(p.body, ">"+id+"<br>") {
			t.Errorf("the audit page does not show the clock's move and the simulate with their objects and details\n%s", p.body)
		}
		if p := dev.get("/dashboard/test/sandbox"); strings.Contains(p.body, `id="clock-shared"`) {
			t.Fatal("the only merchant's sandbox shows the clock as the operator's")
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

		// Sessions count real time: two days on the test clock sign
		// neither the developer who moved it nor the viewer out.
		cf = formOf(t, dev.get("/dashboard/test/sandbox").body, "clock-form")
		cf.Set("amount", "2")
		cf.Set("unit", "days")
		if p := dev.post("/dashboard/test/sandbox/clock", cf); p.status != http.StatusSeeOther {
			t.Fatalf("clock = %d\n%s", p.status, p.body)
		}
		if moved := env.Clock.Now().Sub(at); moved < 48*time.Hour {
			t.Fatalf("the clock moved %s, want two days", moved)
		}
		for who, v := range map[string]*visitor{"developer": dev, "viewer": viewer} {
			if p := v.get("/dashboard/test/developers"); p.status != 200 {
				t.Errorf("the %s after the move: %d to %q, want still signed in", who, p.status, p.location)
			}
		}
	})
}

// On an instance with more than one merchant the test clock is every
// merchant's: a developer's sandbox shows it without its form, saying who
// moves it, a post made by hand is refused and leaves the clock and the
// audit log as they were, and the operator still moves it.
func TestSandboxClockShared(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		env.NewShop(payd.RegionRU, "") // another merchant's
		dev := newVisitor(t, env)
		dev.signIn(newUser(t, env, shop.MerchantID, payd.RoleDeveloper))

		page := dev.get("/dashboard/test/sandbox")
		if page.status != 200 || !strings.Contains(page.body, `id="clock-shared"`) || !strings.Contains(page.body, `id="clock-now"`) ||
			strings.Contains(page.body, `id="clock-form"`) {
			t.Fatalf("shared clock's sandbox = %d, want the time and the sentence without the form\n%s", page.status, page.body)
		}
		byHand := formOf(t, page.body, "signout-form")
		byHand.Set("amount", "31")
		byHand.Set("unit", "minutes")
		byHand.Set("offset", "0")
		at := env.Clock.Now()
		if p := dev.post("/dashboard/test/sandbox/clock", byHand); p.status != http.StatusForbidden || !strings.Contains(p.body, `id="problem"`) || !strings.Contains(p.body, "operator moves it") {
			t.Fatalf("a move of the shared clock = %d\n%s", p.status, p.body)
		}
		if env.Clock.Now().Sub(at) > 5*time.Minute {
			t.Fatal("the refused post moved the clock")
		}
		if got := audited(t, env, shop.MerchantID, payd.AuditAdvanceTestClock); len(got) != 0 {
			t.Fatalf("a refused move wrote %s", entries(got))
		}
		env.AdminDo("POST", "/admin/v1/clock/advance", map[string]any{"seconds": 3600}).Expect(t, 200)
		if moved := env.Clock.Now().Sub(at); moved < time.Hour {
			t.Fatalf("the operator's move: %s, want an hour", moved)
		}
		// A form that saw the clock before the operator moved it is
		// refused too, not answered as a move already made.
		if p := dev.post("/dashboard/test/sandbox/clock", byHand); p.status != http.StatusForbidden {
			t.Fatalf("a stale form for the shared clock = %d to %q, want 403", p.status, p.location)
		}
	})
}

// entries prints audit entries for a failure message.
func entries(list []*payd.AuditEntry) string {
	var b strings.Builder
	for _, e := range list {
		fmt.Fprintf(&b, "\n  %s %s %q by %s from %s", e.Action, e.ObjectID, e.Detail, e.UserEmail, e.Addr)
	}
	return b.String()
}
