package dashboard_test

import (
	"html"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// The events log lists the shop's events with their bodies, filters by
// type, and resends one.
func TestEventsLog(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	shop := env.NewShop(payd.RegionRU, "")
	c := env.As(shop, false)
	paidPayment(t, c, "20.00", "order-ev", false)
	body := map[string]any{"amount": map[string]any{"value": "30.00", "currency": "RUB"}, "order_id": "order-ev2",
		"confirmation": map[string]any{"type": "qr"}}
	id := c.Post("/v1/payments", idemKey(), body).Expect(t, 201).JSON(t)["id"].(string)
	c.Post("/v1/test/payments/"+id+"/simulate", idemKey(), map[string]any{"outcome": "decline"}).Expect(t, 202)
	c.WaitStatus(id, "canceled")
	dev := newVisitor(t, env)
	dev.signIn(newUser(t, env, shop.MerchantID, payd.RoleDeveloper))

	var all page
	paydtest.Eventually(t, "both events", func() bool {
		all = dev.get("/dashboard/test/developers/events")
		return strings.Contains(all.body, "payment.canceled") && strings.Contains(all.body, "payment.succeeded")
	})
	if !strings.Contains(all.body, `&#34;id&#34;: &#34;`+id) && !strings.Contains(all.body, `"id": "`+id) {
		t.Errorf("the events log lacks the bodies:\n%s", all.body)
	}
	p := dev.get("/dashboard/test/developers/events?type=payment.canceled")
	if p.status != 200 || strings.Count(p.body, `<tr id="event-`) != 1 || !strings.Contains(p.body, `payment.canceled<br><a href="/dashboard/test/payments/`+id+`">`) {
		t.Fatalf("filtered log = %d\n%s", p.status, p.body)
	}
	if p := dev.get("/dashboard/test/developers/events?type=nope"); p.status != http.StatusBadRequest {
		t.Fatalf("unknown type = %d", p.status)
	}
	if p := dev.get("/dashboard/developers/events"); strings.Contains(p.body, id) {
		t.Fatal("the live log shows a test event")
	}
	evID := textBetween(dev.get("/dashboard/test/developers/events?type=payment.canceled").body, `<tr id="event-`, `"`)
	form := formOf(t, dev.get("/dashboard/test/developers/events?type=payment.canceled").body, "resend-"+evID)
	if r := dev.post("/dashboard/test/events/"+evID+"/resend", form); r.status != http.StatusSeeOther ||
		!strings.HasPrefix(r.location, "/dashboard/test/developers/events") {
		t.Fatalf("resend = %d to %q", r.status, r.location)
	}
	if es := audited(t, env, shop.MerchantID, "resend event"); len(es) != 1 || es[0].ObjectID != evID || es[0].Addr == "" {
		t.Errorf("audit entries of the resend = %s, want one naming %s", entries(es), evID)
	}
}

func textBetween(s, start, end string) string {
	i := strings.Index(s, start)
	if i < 0 {
		return ""
	}
	s = s[i+len(start):]
	return s[:strings.Index(s, end)]
}

// The events log pages by keyset as the API does: the next page's link
// carries a cursor bound to the filter, and the two pages hold every
// event once.
func TestEventsLogPages(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	shop := env.NewShop(payd.RegionRU, "")
	c := env.As(shop, false)
	const n = 26 // two events each: more than one page of 50
	for i := range n {
		body := map[string]any{"amount": map[string]any{"value": "10.00", "currency": "RUB"}, "order_id": "page-" + strconv.Itoa(i),
			"capture": false, "confirmation": map[string]any{"type": "qr"}}
		id := c.Post("/v1/payments", idemKey(), body).Expect(t, 201).JSON(t)["id"].(string)
		c.Post("/v1/test/payments/"+id+"/simulate", idemKey(), map[string]any{"outcome": "authorize"}).Expect(t, 202)
		c.WaitStatus(id, "waiting_for_capture")
		c.Post("/v1/payments/"+id+"/cancel", idemKey(), map[string]any{}).Expect(t, 200)
	}
	paydtest.Eventually(t, "every event", func() bool {
		return len(c.Get("/v1/events?limit=100").Expect(t, 200).JSON(t)["items"].([]any)) == 2*n
	})
	v := newVisitor(t, env)
	v.signIn(newUser(t, env, shop.MerchantID, payd.RoleViewer))
	rows := regexp.MustCompile(`<tr id="event-(evt_[^"]+)"`)
	first := v.get("/dashboard/test/developers/events")
	next := regexp.MustCompile(`<a href="(\?[^"]+)" rel="next"`).FindStringSubmatch(first.body)
	if next == nil {
		t.Fatalf("no next page with %d events", 2*n)
	}
	second := v.get("/dashboard/test/developers/events" + html.UnescapeString(next[1]))
	seen := map[string]bool{}
	for _, p := range []page{first, second} {
		for _, m := range rows.FindAllStringSubmatch(p.body, -1) {
			if seen[m[1]] {
				t.Fatalf("event %s on both pages", m[1])
			}
			seen[m[1]] = true
		}
	}
	if len(seen) != 2*n || strings.Contains(second.body, `rel="next"`) {
		t.Fatalf("two pages hold %d events, want %d", len(seen), 2*n)
	}
	// And back: the second page's newer page is the first.
	prev := regexp.MustCompile(`<a href="(\?[^"]*)" rel="prev"`).FindStringSubmatch(second.body)
	if prev == nil || strings.Contains(first.body, `rel="prev"`) {
		t.Fatalf("newer links: on the second page %v, on the first %v", prev != nil, strings.Contains(first.body, `rel="prev"`))
	}
	if back := v.get("/dashboard/test/developers/events" + html.UnescapeString(prev[1])); rows.FindString(back.body) != rows.FindString(first.body) {
		t.Fatal("the second page's newer page is not the first")
	}
	// A cursor is bound to its filter: with another, it is refused.
	if p := v.get("/dashboard/test/developers/events" + html.UnescapeString(next[1]) + "&type=payment.canceled"); p.status != http.StatusBadRequest {
		t.Fatalf("cursor with another filter = %d", p.status)
	}
}
