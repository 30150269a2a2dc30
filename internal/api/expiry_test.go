package api_test

import (
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// Pending payments expire by a periodic sweep, not by a job each. The
// sweep walks a backlog larger than one of its batches, leaves payments
// not yet due alone, and runs by itself every ExpirySweepInterval, not
// only when the test clock is advanced.
func TestPaymentExpirySweep(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		t.Run("backlog", func(t *testing.T) {
			t.Parallel()
			env := paydtest.Start(t, b, nil)
			shop := env.NewShop(payd.RegionRU, "")
			env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"payments_per_minute": 1000}).Expect(t, 200)
			c := env.As(shop, false)
			soon := env.Clock.Now().Add(6 * time.Minute).UTC().Format(time.RFC3339)
			later := env.Clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)
			const n = 130 // more than one batch of the sweep
			var wg sync.WaitGroup
			sem := make(chan struct{}, 8)
			resps := make([]*paydtest.Response, n)
			for i := range n {
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					resps[i] = c.Post("/v1/payments", key(), newPayment("100.00", map[string]any{"expires_at": soon}))
				}()
			}
			wg.Wait()
			for _, r := range resps {
				r.Expect(t, 201)
			}
			stays := c.Post("/v1/payments", key(), newPayment("100.00", map[string]any{"expires_at": later})).Expect(t, 201).JSON(t)
			// Creation wrote no job of its own.
			var perPayment int
			if err := env.InspectDB().QueryRow(`SELECT COUNT(*) FROM river_job WHERE kind = $1`,
				(payd.PaymentExpireArgs{}).Kind()).Scan(&perPayment); err != nil || perPayment != 0 {
				t.Fatalf("%d per-payment expiry jobs (%v), want none", perPayment, err)
			}
			env.Clock.Advance(7 * time.Minute)
			paydtest.Eventually(t, "every due payment to expire", func() bool {
				return countStatus(t, c, "pending") == 1 && countStatus(t, c, "canceled") == n
			})
			if got := c.Get("/v1/payments/"+stays["id"].(string)).Expect(t, 200).JSON(t)["status"]; got != "pending" {
				t.Fatalf("a payment due in an hour is %v", got)
			}
		})
		t.Run("periodic", func(t *testing.T) {
			t.Parallel()
			env := paydtest.Start(t, b, nil)
			c := env.As(env.NewShop(payd.RegionRU, ""), false)
			at := env.Clock.Now().Add(6 * time.Minute).UTC().Format(time.RFC3339)
			id := c.Post("/v1/payments", key(), newPayment("100.00", map[string]any{"expires_at": at})).Expect(t, 201).JSON(t)["id"].(string)
			// Without OnAdvance nothing is enqueued at the jump: only the
			// sweep's own schedule can expire the payment.
			env.Clock.OnAdvance = nil
			env.Clock.Advance(7 * time.Minute)
			start := time.Now()
			pay := c.WaitStatus(id, "canceled")
			if cd, _ := pay["cancellation_details"].(map[string]any); cd["reason"] != "expired_on_confirmation" {
				t.Fatalf("canceled payment = %v", pay)
			}
			// Eventually polls every 50 ms; the sweep's period plus the job
			// queue's polling bound the wait.
			if waited := time.Since(start); waited > payd.ExpirySweepInterval+2*time.Second {
				t.Fatalf("expired %v after it was due, want within the sweep interval %v", waited, payd.ExpirySweepInterval)
			}
		})
	})
}

// countStatus counts the shop's payments in status, through the list.
func countStatus(t *testing.T, c *paydtest.Client, status string) int {
	t.Helper()
	n := 0
	cursor := ""
	for {
		path := "/v1/payments?limit=100&status=" + status
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		page := c.Get(path).Expect(t, 200).JSON(t)
		n += len(page["items"].([]any))
		next, _ := page["next_cursor"].(string)
		if next == "" {
			return n
		}
		cursor = next
	}
}
