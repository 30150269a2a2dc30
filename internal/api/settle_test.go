package api_test

import (
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestSettle: Env.Settle, which the checks that nothing happened rely on,
// returns only once what is due has been done — the jobs a simulated
// payment runs one after another, the webhook its event queues, sent to a
// slow receiver and recorded — and does not wait for what the service
// clock has not reached.
func TestSettle(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		rc := newReceiver(t)
		// A slow receiver: the sender has its delivery in hand a while
		// after the jobs are done.
		rc.answer = func(int) int {
			time.Sleep(300 * time.Millisecond)
			return 200
		}
		env := startWithReceiver(t, b, rc)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": rc.srv.URL + "/hook", "events": []string{"payment.succeeded"}}).Expect(t, 201)
		qr := func() string {
			return c.Post("/v1/payments", key(), newPayment("100.00", map[string]any{"confirmation": map[string]any{"type": "qr"}})).
				Expect(t, 201).JSON(t)["id"].(string)
		}
		status := func(id string) any { return c.Get("/v1/payments/"+id).Expect(t, 200).JSON(t)["status"] }
		attempts := func() int {
			n := 0
			for _, d := range rc.deliveries() {
				var log struct{ Items []payd.DeliveryAttempt }
				env.AdminDo("GET", "/admin/v1/events/"+d.header.Get("X-Service-Event-Id")+"/attempts", nil).Expect(t, 200).Decode(t, &log)
				n += len(log.Items)
			}
			return n
		}

		now, later := qr(), qr()
		c.Post("/v1/test/payments/"+later+"/simulate", key(), map[string]any{"outcome": "succeed", "delay_seconds": 120}).Expect(t, 202)
		c.Post("/v1/test/payments/"+now+"/simulate", key(), map[string]any{"outcome": "succeed"}).Expect(t, 202)
		env.Settle(t)
		if got := status(now); got != "succeeded" {
			t.Fatalf("settled with the payment simulated at once %v", got)
		}
		if got, n := len(rc.deliveries()), attempts(); got != 1 || n != 1 {
			t.Fatalf("settled with %d deliveries sent and %d attempts recorded, want its webhook's 1 and 1", got, n)
		}
		if got := status(later); got != "pending" {
			t.Fatalf("the payment simulated for 120 s later is %v at once", got)
		}

		env.Clock.Advance(2 * time.Minute)
		env.Settle(t)
		if got := status(later); got != "succeeded" {
			t.Fatalf("settled past the delay with the payment %v", got)
		}
		if got, n := len(rc.deliveries()), attempts(); got != 2 || n != 2 {
			t.Fatalf("settled past the delay with %d deliveries sent and %d attempts recorded, want 2 and 2", got, n)
		}
	})
}
