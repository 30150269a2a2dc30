package dashboard_test

import (
	"context"
	"crypto/x509"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// An endpoint made on the page is the API's, once for a double submit,
// with its secret shown on the answer only; a refused URL is shown next to
// the form and makes nothing; the edit changes events and turns it off;
// the secret's rotation shows a new one; the test event reaches the
// receiver and shows among the endpoint's attempts with the answer's
// body; a viewer's post by hand is refused.
func TestWebhookEndpointPages(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		var calls atomic.Int32
		var lastSig atomic.Value
		rc := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			calls.Add(1)
			lastSig.Store(r.Header.Get("X-Service-Signature"))
			_, _ = io.WriteString(w, "received <ok>")
		}))
		t.Cleanup(rc.Close)
		pool := x509.NewCertPool()
		pool.AddCert(rc.Certificate())
		env := paydtest.Start(t, b, &paydtest.Options{WebhookAllowHosts: []string{"127.0.0.1"}, WebhookRootCAs: pool})
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		dev := newVisitor(t, env)
		dev.signIn(newUser(t, env, shop.MerchantID, payd.RoleDeveloper))

		list := func() []any { return c.Get("/v1/webhook-endpoints").Expect(t, 200).JSON(t)["items"].([]any) }
		form := formOf(t, dev.get("/dashboard/test/developers/webhooks").body, "create-form")
		form.Set("url", "http://example.com/hook")
		form["events"] = []string{"payment.succeeded"}
		refused := dev.post("/dashboard/test/developers/webhooks", form)
		if refused.status != http.StatusBadRequest || !strings.Contains(refused.body, `id="create-error"`) ||
			!strings.Contains(refused.body, `value="http://example.com/hook"`) {
			t.Fatalf("http URL = %d\n%s", refused.status, refused.body)
		}
		if n := len(list()); n != 0 {
			t.Fatalf("%d endpoints after a refusal", n)
		}

		form = formOf(t, dev.get("/dashboard/test/developers/webhooks").body, "create-form")
		form.Set("url", rc.URL+"/hook")
		form["events"] = []string{"payment.succeeded", "refund.succeeded"}
		var secret string
		for i := range 2 {
			p := dev.post("/dashboard/test/developers/webhooks", form)
			m := shownSecret.FindStringSubmatch(p.body)
			if p.status != 200 || m == nil || !strings.HasPrefix(m[1], "whsec_") {
				t.Fatalf("create #%d = %d\n%s", i+1, p.status, p.body)
			}
			secret = m[1]
		}
		items := list()
		if len(items) != 1 {
			t.Fatalf("%d endpoints after a double submit, want 1", len(items))
		}
		id := items[0].(map[string]any)["id"].(string)
		ep := dev.get("/dashboard/test/developers/webhooks/" + id)
		if ep.status != 200 || strings.Contains(ep.body, secret) {
			t.Fatalf("endpoint page = %d, shows the secret: %v", ep.status, strings.Contains(ep.body, secret))
		}

		// No event yet: the test event is refused in words, next to its
		// form.
		tf := formOf(t, ep.body, "test-form")
		if p := dev.post("/dashboard/test/developers/webhooks/"+id+"/test", tf); p.status != http.StatusUnprocessableEntity ||
			!strings.Contains(p.body, `id="test-error"`) {
			t.Fatalf("test event without events = %d\n%s", p.status, p.body)
		}
		paidPayment(t, c, "10.00", "order-hook", false)
		paydtest.Eventually(t, "the payment's delivery", func() bool { return calls.Load() == 1 })
		tf = formOf(t, dev.get("/dashboard/test/developers/webhooks/"+id).body, "test-form")
		for range 2 {
			if p := dev.post("/dashboard/test/developers/webhooks/"+id+"/test", tf); p.status != http.StatusSeeOther {
				t.Fatalf("test event = %d\n%s", p.status, p.body)
			}
		}
		paydtest.Eventually(t, "the test event", func() bool { return calls.Load() == 2 })
		var attempts page
		paydtest.Eventually(t, "both attempts on the page", func() bool {
			attempts = dev.get("/dashboard/test/developers/webhooks/" + id)
			return strings.Count(attempts.body, "HTTP 200") == 2
		})
		if !strings.Contains(attempts.body, html.EscapeString("received <ok>")) {
			t.Errorf("the attempts lack the answer's body:\n%s", attempts.body)
		}
		if calls.Load() != 2 {
			t.Fatalf("%d deliveries after a double submit of the test, want 2", calls.Load())
		}

		// Rotation: a new secret, shown once; the old one signs beside it.
		rf := formOf(t, attempts.body, "rotate-form")
		rot := dev.post("/dashboard/test/developers/webhooks/"+id+"/rotate", rf)
		m := shownSecret.FindStringSubmatch(rot.body)
		if rot.status != 200 || m == nil || m[1] == secret || !strings.HasPrefix(m[1], "whsec_") {
			t.Fatalf("rotation = %d\n%s", rot.status, rot.body)
		}
		tf = formOf(t, dev.get("/dashboard/test/developers/webhooks/"+id).body, "test-form")
		dev.post("/dashboard/test/developers/webhooks/"+id+"/test", tf)
		paydtest.Eventually(t, "the test after rotation", func() bool { return calls.Load() == 3 })
		if sig := lastSig.Load().(string); strings.Count(sig, "v1=") != 2 {
			t.Errorf("signature after rotation = %q, want two v1 values", sig)
		}

		// Edit: one event, turned off.
		sf := formOf(t, dev.get("/dashboard/test/developers/webhooks/"+id).body, "save-form")
		sf.Set("url", rc.URL+"/other")
		sf["events"] = []string{"refund.succeeded"}
		if p := dev.post("/dashboard/test/developers/webhooks/"+id, sf); p.status != http.StatusSeeOther {
			t.Fatalf("save = %d\n%s", p.status, p.body)
		}
		got := c.Get("/v1/webhook-endpoints/"+id).Expect(t, 200).JSON(t)
		if got["url"] != rc.URL+"/other" || got["status"] != "disabled" || len(got["events"].([]any)) != 1 {
			t.Fatalf("endpoint after the edit = %v", got)
		}
		// A disabled endpoint is sent nothing, a test neither.
		tf = formOf(t, dev.get("/dashboard/test/developers/webhooks/"+id).body, "test-form")
		if p := dev.post("/dashboard/test/developers/webhooks/"+id+"/test", tf); p.status != http.StatusUnprocessableEntity ||
			!strings.Contains(p.body, "the endpoint is disabled") {
			t.Fatalf("test event to a disabled endpoint = %d\n%s", p.status, p.body)
		}
		// No event ticked: the service's refusal, nothing changed.
		sf = formOf(t, dev.get("/dashboard/test/developers/webhooks/"+id).body, "save-form")
		sf.Set("url", rc.URL+"/other")
		sf.Set("enabled", "on")
		if p := dev.post("/dashboard/test/developers/webhooks/"+id, sf); p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="save-error"`) {
			t.Fatalf("save without events = %d\n%s", p.status, p.body)
		}
		if got := c.Get("/v1/webhook-endpoints/"+id).Expect(t, 200).JSON(t); got["status"] != "disabled" {
			t.Fatalf("a refused save changed the endpoint: %v", got)
		}

		// Each operation is in the audit log once, a double submit too; a
		// refused one not at all.
		audit, err := env.Service.ListAudit(context.Background(), shop.MerchantID, payd.AuditListParams{ListParams: payd.ListParams{Limit: 100}})
		if err != nil {
			t.Fatal(err)
		}
		ops := map[payd.AuditAction]int{}
		for _, e := range audit.Items {
			ops[e.Action]++
			// A test event's answer is the event; its entry names the
			// endpoint it went to.
			if e.Action == "send test event" && (e.ObjectID != id || !strings.HasPrefix(e.Detail, "event evt_")) {
				t.Errorf("test event's entry names %s (%q), want the endpoint %s", e.ObjectID, e.Detail, id)
			}
		}
		if ops["create webhook endpoint"] != 1 || ops["send test event"] != 2 || ops["update webhook endpoint"] != 1 ||
			ops[payd.AuditRotateWebhookSecret] != 1 {
			t.Errorf("audit log = %v", ops)
		}

		viewer := newVisitor(t, env)
		viewer.signIn(newUser(t, env, shop.MerchantID, payd.RoleViewer))
		vp := viewer.get("/dashboard/test/developers/webhooks/" + id)
		if vp.status != 200 || strings.Contains(vp.body, `id="rotate-form"`) {
			t.Fatalf("viewer's endpoint page = %d", vp.status)
		}
		byHand := formOf(t, vp.body, "signout-form")
		byHand.Set("idempotency_key", "dash_byhand")
		if p := viewer.post("/dashboard/test/developers/webhooks/"+id+"/rotate", byHand); p.status != http.StatusForbidden {
			t.Fatalf("viewer's rotation by hand = %d", p.status)
		}
		byHand.Set("url", rc.URL+"/viewer")
		byHand.Set("events", "payment.succeeded")
		if p := viewer.post("/dashboard/test/developers/webhooks", byHand); p.status != http.StatusForbidden {
			t.Fatalf("viewer's create by hand = %d", p.status)
		}
		if n := len(list()); n != 1 {
			t.Fatalf("%d endpoints after the viewer's posts", n)
		}
	})
}
