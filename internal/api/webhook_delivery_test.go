package api_test

import (
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/webhook"
)

// receiver is a merchant's HTTPS webhook endpoint on 127.0.0.1.
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []delivered
	answer func(n int) int // status for the n-th delivery (1-based)
}

type delivered struct {
	header http.Header
	body   []byte
	at     time.Time
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{answer: func(int) int { return 200 }}
	rc.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, delivered{header: r.Header.Clone(), body: body, at: time.Now()})
		n := len(rc.got)
		answer := rc.answer
		rc.mu.Unlock()
		w.WriteHeader(answer(n))
		io.WriteString(w, strings.Repeat("r", 5000))
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) deliveries() []delivered {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivered(nil), rc.got...)
}

// startWithReceiver runs the service trusting the receiver's certificate
// and allowing its loopback host, as --webhook-ca-file and
// --webhook-allow-host do for local development.
func startWithReceiver(t *testing.T, b paydtest.Backend, rc *receiver) *paydtest.Env {
	pool := x509.NewCertPool()
	pool.AddCert(rc.srv.Certificate())
	return paydtest.Start(t, b, &paydtest.Options{WebhookAllowHosts: []string{"127.0.0.1"}, WebhookRootCAs: pool})
}

func TestWebhookDeliverySigned(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		rc := newReceiver(t)
		env := startWithReceiver(t, b, rc)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		ep := c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": rc.srv.URL + "/hook", "events": []string{"payment.succeeded"}}).Expect(t, 201).JSON(t)
		secret := ep["secret"].(string)
		pay := c.Post("/v1/payments", key(), newPayment("100.00", map[string]any{"confirmation": map[string]any{"type": "qr"}})).Expect(t, 201).JSON(t)
		c.Post("/v1/test/payments/"+pay["id"].(string)+"/simulate", key(), map[string]any{"outcome": "succeed"}).Expect(t, 202)
		paydtest.Eventually(t, "the delivery", func() bool { return len(rc.deliveries()) == 1 })
		d := rc.deliveries()[0]
		if d.header.Get("Content-Type") != "application/json" || d.header.Get("User-Agent") != "Service-Webhooks/1.0" {
			t.Fatalf("headers = %v", d.header)
		}
		evID := d.header.Get("X-Service-Event-Id")
		if err := webhook.Verify(d.header.Get("X-Service-Signature"), d.body, []string{secret}, time.Now()); err != nil {
			t.Fatalf("signature: %v (%s)", err, d.header.Get("X-Service-Signature"))
		}
		// The API's answer is the same bytes and the newline that ends
		// every JSON answer.
		stored := c.Get("/v1/events/"+evID).Expect(t, 200)
		if string(stored.Body) != string(d.body)+"\n" {
			t.Fatalf("delivered body differs from the stored event:\n%s\n%s", d.body, stored.Body)
		}
		var list struct {
			Items []struct {
				ID       string
				Delivery struct {
					Status           string
					Attempts         int
					LastResponseCode int `json:"last_response_code"`
				}
			}
		}
		paydtest.Eventually(t, "the summary", func() bool {
			c.Get("/v1/events?object_id="+pay["id"].(string)).Expect(t, 200).Decode(t, &list)
			return len(list.Items) == 1 && list.Items[0].Delivery.Status == "succeeded"
		})
		if list.Items[0].Delivery.Attempts != 1 || list.Items[0].Delivery.LastResponseCode != 200 {
			t.Fatalf("summary = %+v", list.Items[0].Delivery)
		}
		// The operator sees the attempt, with the answer cut to 4 KB.
		var log struct {
			Items []payd.DeliveryAttempt
		}
		env.AdminDo("GET", "/admin/v1/events/"+evID+"/attempts", nil).Expect(t, 200).Decode(t, &log)
		if len(log.Items) != 1 || log.Items[0].StatusCode != 200 || len(log.Items[0].ResponseBody) != 4096 {
			t.Fatalf("attempt log = %+v", log.Items)
		}
		// Operators count outcomes (right after the commit that the
		// summary showed).
		paydtest.Eventually(t, "the outcome in the metrics", func() bool {
			m := env.Do("GET", env.Admin.URL, "/metrics", nil, nil).Expect(t, 200)
			return strings.Contains(string(m.Body), `payd_webhook_attempts_total{outcome="succeeded"} 1`)
		})
	})
}

// waitLong polls up to a minute: a retry scheduled on the service clock is
// picked up by the job scheduler's pass, every few seconds of real time,
// and a job due now shares the workers with the periodic jobs each move
// of the clock starts. A loaded CI machine has taken more than 30 s; if a
// minute is not enough either, the service's log printed with the failure
// says what held it.
func waitLong(t *testing.T, what string, fn func() bool) {
	t.Helper()
	paydtest.EventuallyWithin(t, time.Minute, what, fn)
}

func paidQR(t *testing.T, c *paydtest.Client) string {
	t.Helper()
	pay := c.Post("/v1/payments", key(), newPayment("100.00", map[string]any{"confirmation": map[string]any{"type": "qr"}})).Expect(t, 201).JSON(t)
	c.Post("/v1/test/payments/"+pay["id"].(string)+"/simulate", key(), map[string]any{"outcome": "succeed"}).Expect(t, 202)
	return pay["id"].(string)
}

func TestWebhookRetryScheduleAndFailing(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		rc := newReceiver(t)
		failing := true
		var mu sync.Mutex
		rc.answer = func(int) int {
			mu.Lock()
			defer mu.Unlock()
			if failing {
				return 500
			}
			return 204
		}
		env := startWithReceiver(t, b, rc)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		ep := c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": rc.srv.URL + "/hook", "events": []string{"payment.succeeded"}}).Expect(t, 201).JSON(t)
		epID := ep["id"].(string)
		first := paidQR(t, c)
		paydtest.Eventually(t, "the first attempt", func() bool { return len(rc.deliveries()) == 1 })
		evID := rc.deliveries()[0].header.Get("X-Service-Event-Id")
		// An attempt is recorded, with its retry scheduled, in the same
		// transaction; the clock moves only after that, or the retry would
		// be scheduled from the moved clock.
		recorded := func(n int) {
			t.Helper()
			paydtest.Eventually(t, fmt.Sprintf("attempt %d recorded", n), func() bool {
				var log struct{ Items []payd.DeliveryAttempt }
				env.AdminDo("GET", "/admin/v1/events/"+evID+"/attempts", nil).Expect(t, 200).Decode(t, &log)
				return len(log.Items) == n
			})
		}
		for i, wait := range payd.RetrySchedule() {
			recorded(i + 1)
			// Just before the retry is due nothing happens. The margin
			// covers the real time between the attempt's record (which
			// times the retry) and this advance on a busy machine.
			env.Clock.Advance(wait - 10*time.Second)
			env.SettleDeliveries(t)
			if n := len(rc.deliveries()); n != i+1 {
				t.Fatalf("retry %d came early: %d attempts", i+1, n)
			}
			env.Clock.Advance(10 * time.Second)
			waitLong(t, fmt.Sprintf("retry %d after %v", i+1, wait), func() bool { return len(rc.deliveries()) == i+2 })
		}
		// The tenth attempt was the last: once it is recorded, the
		// endpoint is failing.
		recorded(len(payd.RetrySchedule()) + 1)
		got := c.Get("/v1/webhook-endpoints/"+epID).Expect(t, 200).JSON(t)
		if got["status"] != "failing" {
			t.Fatalf("endpoint after the last retry = %v", got)
		}
		var log struct{ Items []payd.DeliveryAttempt }
		env.AdminDo("GET", "/admin/v1/events/"+evID+"/attempts", nil).Expect(t, 200).Decode(t, &log)
		if len(log.Items) != 10 {
			t.Fatalf("%d attempts logged, want 10", len(log.Items))
		}
		for i := 1; i < len(log.Items); i++ {
			gap := log.Items[i].At.Sub(log.Items[i-1].At)
			if want := payd.RetrySchedule()[i-1]; gap < want || gap > want+time.Minute {
				t.Fatalf("gap before attempt %d = %v, want %v", i+1, gap, want)
			}
			if log.Items[i].StatusCode != 500 || log.Items[i].Error == "" {
				t.Fatalf("attempt %d = %+v", i+1, log.Items[i])
			}
		}
		ev := c.Get("/v1/events?type=payment.succeeded").Expect(t, 200).JSON(t)["items"].([]any)[0].(map[string]any)
		if d := ev["delivery"].(map[string]any); d["status"] != "failed" || d["attempts"] != float64(10) || d["last_response_code"] != float64(500) {
			t.Fatalf("summary = %v", d)
		}
		// Events go on being stored while the endpoint is failing, without
		// a delivery.
		second := paidQR(t, c)
		// The event is recorded by the job that applies the bank's
		// notification, which a loaded machine may run late: the long
		// wait, as for the retries. If it never comes, the payment and
		// the events seen say how far it got.
		var items []any
		defer func() {
			if t.Failed() && items != nil {
				pay := c.Get("/v1/payments/"+second).Expect(t, 200).JSON(t)
				t.Logf("the second payment: status %v; its events: %v", pay["status"], items)
			}
		}()
		waitLong(t, "the second event", func() bool {
			items = c.Get("/v1/events?object_id="+second).Expect(t, 200).JSON(t)["items"].([]any)
			return len(items) == 1 && items[0].(map[string]any)["delivery"].(map[string]any)["status"] == "no_endpoints"
		})
		// Revived, the endpoint gets the first event again by resend.
		mu.Lock()
		failing = false
		mu.Unlock()
		c.Do("PATCH", "/v1/webhook-endpoints/"+epID, map[string]any{"status": "active"}, "Idempotency-Key", key()).Expect(t, 200)
		res := c.Post("/v1/events/"+evID+"/resend", key(), nil).Expect(t, 202).JSON(t)
		if res["id"] != evID || res["delivery"].(map[string]any)["status"] != "pending" {
			t.Fatalf("resend answer = %v", res)
		}
		paydtest.Eventually(t, "the resent delivery", func() bool { return len(rc.deliveries()) == 11 })
		last := rc.deliveries()[10]
		if last.header.Get("X-Service-Event-Id") != evID || string(last.body) != string(rc.deliveries()[0].body) {
			t.Fatal("the resend is not the same event, byte for byte")
		}
		// The resent delivery took the failed one's place: the event reads
		// succeeded, and a second resend replaces nothing more.
		summary := func() map[string]any {
			return c.Get("/v1/events?type=payment.succeeded&object_id="+first).Expect(t, 200).JSON(t)["items"].([]any)[0].(map[string]any)["delivery"].(map[string]any)
		}
		paydtest.Eventually(t, "the summary after a successful resend", func() bool { return summary()["status"] == "succeeded" })
		c.Post("/v1/events/"+evID+"/resend", key(), nil).Expect(t, 202)
		paydtest.Eventually(t, "the second resend", func() bool { return len(rc.deliveries()) == 12 && summary()["status"] == "succeeded" })
		if d := summary(); d["attempts"] != float64(12) || d["last_response_code"] != float64(204) {
			t.Fatalf("summary after two resends = %v", d)
		}
	})
}

func TestWebhookRotationOverlap(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		rc := newReceiver(t)
		env := startWithReceiver(t, b, rc)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		ep := c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": rc.srv.URL + "/hook", "events": []string{"payment.succeeded"}}).Expect(t, 201).JSON(t)
		oldSecret := ep["secret"].(string)
		rot := c.Do("PATCH", "/v1/webhook-endpoints/"+ep["id"].(string), map[string]any{"rotate_secret": true}, "Idempotency-Key", key()).Expect(t, 200).JSON(t)
		newSecret := rot["secret"].(string)
		paidQR(t, c)
		paydtest.Eventually(t, "a delivery", func() bool { return len(rc.deliveries()) == 1 })
		d := rc.deliveries()[0]
		sig := d.header.Get("X-Service-Signature")
		if strings.Count(sig, "v1=") != 2 || strings.Count(sig, "t=") != 1 {
			t.Fatalf("signature during the overlap = %s", sig)
		}
		for _, s := range []string{oldSecret, newSecret} {
			if err := webhook.Verify(sig, d.body, []string{s}, time.Now()); err != nil {
				t.Fatalf("a secret of the overlap does not verify: %v", err)
			}
		}
		env.Clock.Advance(24*time.Hour + time.Minute)
		paidQR(t, c)
		paydtest.Eventually(t, "a delivery after the overlap", func() bool { return len(rc.deliveries()) == 2 })
		d = rc.deliveries()[1]
		sig = d.header.Get("X-Service-Signature")
		if strings.Count(sig, "v1=") != 1 {
			t.Fatalf("signature after the overlap = %s", sig)
		}
		// The service clock is a day ahead of the receiver's: verify at the
		// signature's own time.
		ts, _ := strconv.ParseInt(strings.TrimPrefix(strings.Split(sig, ",")[0], "t="), 10, 64)
		if err := webhook.Verify(sig, d.body, []string{oldSecret}, time.Unix(ts, 0)); err == nil {
			t.Fatal("the old secret still verifies after 24 hours")
		}
		if err := webhook.Verify(sig, d.body, []string{newSecret}, time.Unix(ts, 0)); err != nil {
			t.Fatalf("the new secret: %v", err)
		}
	})
}

func TestWebhookSeparationAndRedirects(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		rc := newReceiver(t)
		rc.answer = func(int) int { return 302 }
		env := startWithReceiver(t, b, rc)
		shop := env.NewShop(payd.RegionRU, "")
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
		c, live := env.As(shop, false), env.As(shop, true)
		// A live endpoint of the same shop never receives test events.
		live.Post("/v1/webhook-endpoints", key(), map[string]any{"url": rc.srv.URL + "/live", "events": []string{"payment.succeeded"}}).Expect(t, 201)
		c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": rc.srv.URL + "/test", "events": []string{"payment.succeeded"}}).Expect(t, 201)
		// An endpoint not subscribed to the type gets nothing either.
		c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": rc.srv.URL + "/other", "events": []string{"refund.succeeded"}}).Expect(t, 201)
		paidQR(t, c)
		paydtest.Eventually(t, "the delivery", func() bool { return len(rc.deliveries()) == 1 })
		env.Settle(t)
		if n := len(rc.deliveries()); n != 1 {
			t.Fatalf("%d deliveries, want only the test endpoint's", n)
		}
		// A 3xx is a failed attempt, never followed.
		evID := rc.deliveries()[0].header.Get("X-Service-Event-Id")
		var log struct{ Items []payd.DeliveryAttempt }
		paydtest.Eventually(t, "the attempt log", func() bool {
			env.AdminDo("GET", "/admin/v1/events/"+evID+"/attempts", nil).Expect(t, 200).Decode(t, &log)
			return len(log.Items) == 1
		})
		if log.Items[0].StatusCode != 302 || !strings.HasSuffix(log.Items[0].URL, "/test") {
			t.Fatalf("attempt = %+v", log.Items[0])
		}
		c.Get("/v1/events/"+evID).Expect(t, 200)
		// The live key cannot see or resend the test event.
		live.Post("/v1/events/"+evID+"/resend", key(), nil).ExpectError(t, 404, payd.CodeNotFound, "")
	})
}

// TestWebhookMerchantLevelFanOut checks that a merchant-level event is one
// event per shop, each with its own id and the identical object, each
// delivered only to its own shop's endpoints.
func TestWebhookMerchantLevelFanOut(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		rc := newReceiver(t)
		env := startWithReceiver(t, b, rc)
		ru := env.NewShop(payd.RegionRU, "")
		kz := env.NewShop(payd.RegionKZ, ru.MerchantID)
		other := env.NewShop(payd.RegionRU, "")
		for _, s := range []*paydtest.Shop{ru, kz, other} {
			env.As(s, false).Post("/v1/webhook-endpoints", key(), map[string]any{"url": rc.srv.URL + "/" + s.ID, "events": []string{"settlement.frozen"}}).Expect(t, 201)
		}
		ctx := t.Context()
		status := payd.SettlementStatus{PayoutsFrozen: true, FrozenReason: "manual_review", SettlementDelayDays: 1}
		err := env.Instance.Store.Tx(ctx, func(tx payd.Tx) error {
			_, err := env.Service.RecordMerchantEvent(ctx, tx, ru.MerchantID, true, payd.EventSettlementFrozen, "settlement_status", ru.MerchantID, status)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		paydtest.Eventually(t, "two deliveries", func() bool { return len(rc.deliveries()) == 2 })
		env.Settle(t)
		got := rc.deliveries()
		if len(got) != 2 || got[0].header.Get("X-Service-Event-Id") == got[1].header.Get("X-Service-Event-Id") {
			t.Fatalf("deliveries = %d", len(got))
		}
		objects := map[string]bool{}
		for _, d := range got {
			var ev struct {
				Data struct {
					ObjectType string          `json:"object_type"`
					Object     json.RawMessage `json:"object"`
				}
			}
			json.Unmarshal(d.body, &ev)
			if ev.Data.ObjectType != "settlement_status" {
				t.Fatalf("object_type = %s", ev.Data.ObjectType)
			}
			objects[string(ev.Data.Object)] = true
		}
		if len(objects) != 1 {
			t.Fatalf("the shops got different objects: %v", objects)
		}
		for _, s := range []*paydtest.Shop{ru, kz} {
			if n := len(env.As(s, false).Get("/v1/events?type=settlement.frozen").Expect(t, 200).JSON(t)["items"].([]any)); n != 1 {
				t.Fatalf("shop %s has %d settlement.frozen events", s.ID, n)
			}
		}
		if n := len(env.As(other, false).Get("/v1/events?type=settlement.frozen").Expect(t, 200).JSON(t)["items"].([]any)); n != 0 {
			t.Fatal("another merchant's shop got the event")
		}
	})
}

// TestWebhookURLRules checks at least forty URLs at registration. Deliveries
// leave the service in both modes, so test keys get no loosening here.
func TestWebhookURLRules(t *testing.T) {
	t.Parallel()
	b := paydtest.Backends(t)[0]
	env := paydtest.Start(t, b, nil)
	c := env.As(env.NewShop(payd.RegionRU, ""), false)
	accept := []string{
		"https://hooks.example.com/payd", "https://hooks.example.com:8443/payd?shop=1", "HTTPS://HOOKS.EXAMPLE.COM/P",
		"https://пример.рф/hook", "https://8.8.8.8/hook", "https://[2001:4860:4860::8888]/hook", "https://172.32.0.1/h",
		"https://100.128.0.1/h", "https://a.b.c.example.org/" + strings.Repeat("p", 1990),
	}
	refuse := []string{
		"http://hooks.example.com/payd", "ftp://hooks.example.com/", "javascript:alert(1)", "//hooks.example.com/x", "https:///x",
		"https://user:pass@hooks.example.com/", "https://user@hooks.example.com/", "https://hooks.example.com/a b",
		"https://hooks.example.com/\t", "https://hooks.example.com/" + strings.Repeat("p", 2030), "https://localhost/h",
		"https://app.localhost/h", "https://printer.local/h", "https://api.internal/h", "https://intranet/h",
		"https://127.0.0.1/h", "https://127.1/h", "https://2130706433/h", "https://0x7f.1/h", "https://0177.0.0.1/h",
		"https://10.0.0.1/h", "https://172.16.0.1/h", "https://192.168.0.1/h", "https://169.254.169.254/h",
		"https://100.64.0.1/h", "https://198.18.0.1/h", "https://0.0.0.0/h", "https://[::1]/h", "https://[::ffff:127.0.0.1]/h",
		"https://[fd00::1]/h", "https://[fe80::1]/h", "https://[64:ff9b::a00:1]/h", "https://[2002:c0a8:101::1]/h",
		"https://ｌｏｃａｌｈｏｓｔ/h",
	}
	if len(accept)+len(refuse) < 40 {
		t.Fatal("fewer than forty cases")
	}
	for _, u := range accept {
		c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": u, "events": []string{"payment.succeeded"}}).Expect(t, 201)
	}
	for _, u := range refuse {
		r := c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": u, "events": []string{"payment.succeeded"}})
		if r.Status != 400 || r.JSON(t)["parameter"] != "url" {
			t.Errorf("%q: %d %s; want 400 url", u, r.Status, r.Body)
		}
	}
}

// TestWebhookQueuedForDisabledEndpointIsSkipped: a delivery already queued
// when its endpoint stops being active is not sent at its turn; it is
// skipped, the event's summary says failed, and nothing is retried
// (docs/webhooks.md, Failing and disabled endpoints).
func TestWebhookQueuedForDisabledEndpointIsSkipped(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		rc := newReceiver(t)
		var healthy atomic.Bool
		rc.answer = func(int) int {
			if healthy.Load() {
				return 204
			}
			return 503
		}
		env := startWithReceiver(t, b, rc)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		ep := c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": rc.srv.URL + "/hook", "events": []string{"payment.succeeded"}}).Expect(t, 201).JSON(t)
		pay := paidQR(t, c)
		// The summary of the payment's event (empty until the simulated
		// success has been applied).
		summary := func() map[string]any {
			items := c.Get("/v1/events?object_id="+pay).Expect(t, 200).JSON(t)["items"].([]any)
			if len(items) != 1 {
				return map[string]any{}
			}
			return items[0].(map[string]any)["delivery"].(map[string]any)
		}
		// The first attempt fails: a retry is queued a minute later.
		paydtest.Eventually(t, "the failed first attempt", func() bool { return summary()["attempts"] == float64(1) })
		if s := summary(); s["status"] != "pending" || s["last_response_code"] != float64(503) {
			t.Fatalf("summary after the first attempt = %v", s)
		}
		c.Do("PATCH", "/v1/webhook-endpoints/"+ep["id"].(string), map[string]any{"status": "disabled"}, "Idempotency-Key", key()).Expect(t, 200)
		env.Clock.Advance(payd.RetrySchedule()[0] + time.Second)
		waitLong(t, "the retry's turn", func() bool { return summary()["status"] == "failed" })
		if s := summary(); s["attempts"] != float64(1) {
			t.Fatalf("summary after the skip = %v", s)
		}
		if n := len(rc.deliveries()); n != 1 {
			t.Fatalf("the disabled endpoint received %d deliveries, want 1", n)
		}
		paydtest.Eventually(t, "the skip in the metrics", func() bool {
			m := env.Do("GET", env.Admin.URL, "/metrics", nil, nil).Expect(t, 200)
			return strings.Contains(string(m.Body), `payd_webhook_attempts_total{outcome="skipped"} 1`)
		})
		// Revived and resent, the event's new delivery takes the skipped
		// one's place: the summary reads succeeded.
		healthy.Store(true)
		c.Do("PATCH", "/v1/webhook-endpoints/"+ep["id"].(string), map[string]any{"status": "active"}, "Idempotency-Key", key()).Expect(t, 200)
		evID := rc.deliveries()[0].header.Get("X-Service-Event-Id")
		c.Post("/v1/events/"+evID+"/resend", key(), nil).Expect(t, 202)
		paydtest.Eventually(t, "the resent delivery", func() bool { return len(rc.deliveries()) == 2 && summary()["status"] == "succeeded" })
	})
}

// TestWebhookDeliveryMetrics: each delivery's outcome is counted by
// payd_webhook_attempts_total and its lateness observed once by
// payd_webhook_delivery_lag_seconds, the two series the webhook alerts
// read.
func TestWebhookDeliveryMetrics(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		rc := newReceiver(t)
		rc.answer = func(n int) int {
			if n == 1 {
				return 500
			}
			return 200
		}
		env := startWithReceiver(t, b, rc)
		if got := env.Metric("payd_webhook_attempts_total", "outcome", "failed"); got != 0 {
			t.Fatalf("failed attempts before any delivery = %v", got)
		}
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": rc.srv.URL + "/hook", "events": []string{"payment.succeeded"}}).Expect(t, 201)
		pay := c.Post("/v1/payments", key(), newPayment("100.00", map[string]any{"confirmation": map[string]any{"type": "qr"}})).Expect(t, 201).JSON(t)
		c.Post("/v1/test/payments/"+pay["id"].(string)+"/simulate", key(), map[string]any{"outcome": "succeed"}).Expect(t, 202)
		paydtest.Eventually(t, "the failed attempt counted", func() bool {
			return env.Metric("payd_webhook_attempts_total", "outcome", "failed") == 1
		})
		if got := env.Metric("payd_webhook_delivery_lag_seconds"); got != 1 {
			t.Fatalf("lateness observed %v times after one attempt, want 1", got)
		}
		if got := env.Metric("payd_webhook_attempts_total", "outcome", "succeeded"); got != 0 {
			t.Fatalf("succeeded = %v after one failed attempt", got)
		}
	})
}
