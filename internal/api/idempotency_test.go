package api_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

func endpointBody(url string) map[string]any {
	return map[string]any{"url": url, "events": []string{"payment.succeeded"}, "description": "orders"}
}

func TestIdempotencyReplayAndConflict(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)

		first := c.Post("/v1/webhook-endpoints", "key-00000001", endpointBody("https://example.com/hook")).Expect(t, 201)
		// The same request again: the original answer, with status 200.
		replay := c.Post("/v1/webhook-endpoints", "key-00000001", endpointBody("https://example.com/hook")).Expect(t, 200)
		if !bytes.Equal(first.Body, replay.Body) {
			t.Fatalf("replay body differs:\n%s\n%s", first.Body, replay.Body)
		}
		// Same meaning, other key order and whitespace: still a replay.
		c.Post("/v1/webhook-endpoints", "key-00000001",
			`{ "description":"orders", "events":["payment.succeeded"],  "url":"https://example.com/hook" }`).Expect(t, 200)
		// The alias header names the same key.
		c.Do("POST", "/v1/webhook-endpoints", endpointBody("https://example.com/hook"), "Idempotence-Key", "key-00000001").Expect(t, 200)
		// Another body under the key: conflict, and nothing is created.
		c.Post("/v1/webhook-endpoints", "key-00000001", endpointBody("https://example.com/other")).
			ExpectError(t, 409, payd.CodeIdempotencyConflict, "")
		// The same key on another route is another request too.
		id := first.JSON(t)["id"].(string)
		c.Do("PATCH", "/v1/webhook-endpoints/"+id, map[string]any{"description": "x"}, "Idempotency-Key", "key-00000001").
			ExpectError(t, 409, payd.CodeIdempotencyConflict, "")
		if n := len(c.Get("/v1/webhook-endpoints").Expect(t, 200).JSON(t)["items"].([]any)); n != 1 {
			t.Fatalf("%d endpoints, want 1", n)
		}
		// Keys are scoped to the shop and mode: the live key of another
		// shop may use the same key freely.
		other := env.NewShop(payd.RegionRU, "")
		env.As(other, false).Post("/v1/webhook-endpoints", "key-00000001", endpointBody("https://example.com/other")).Expect(t, 201)

		// After 24 hours the key is forgotten and may be used again.
		env.Clock.Advance(24*time.Hour + time.Second)
		c.Post("/v1/webhook-endpoints", "key-00000001", endpointBody("https://example.com/other")).Expect(t, 201)
		if n := len(c.Get("/v1/webhook-endpoints").Expect(t, 200).JSON(t)["items"].([]any)); n != 2 {
			t.Fatalf("%d endpoints, want 2", n)
		}
	})
}

func TestIdempotencyKeyRules(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		body := endpointBody("https://example.com/hook")
		c.Do("POST", "/v1/webhook-endpoints", body).ExpectError(t, 400, payd.CodeInvalidRequest, "Idempotency-Key")
		c.Post("/v1/webhook-endpoints", "1234567", body).ExpectError(t, 400, payd.CodeInvalidRequest, "Idempotency-Key")
		c.Post("/v1/webhook-endpoints", strings.Repeat("k", 129), body).ExpectError(t, 400, payd.CodeInvalidRequest, "Idempotency-Key")
		c.Post("/v1/webhook-endpoints", "12345678", body).Expect(t, 201)
		c.Post("/v1/webhook-endpoints", strings.Repeat("k", 128), body).Expect(t, 201)
		// A failed request is not remembered: fixing it under the same key
		// works.
		c.Post("/v1/webhook-endpoints", "retry-key-1", map[string]any{"url": "http://example.com", "events": []string{"payment.succeeded"}}).
			ExpectError(t, 400, payd.CodeInvalidRequest, "url")
		c.Post("/v1/webhook-endpoints", "retry-key-1", body).Expect(t, 201)
	})
}

func TestIdempotencyInProgress(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		held, release := make(chan struct{}), make(chan struct{})
		env := paydtest.Start(t, b, &paydtest.Options{HoldIdempotentFunc: func(key string) {
			if key == "slow-request-1" {
				close(held)
				<-release
			}
		}})
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		body := endpointBody("https://example.com/hook")
		done := make(chan *paydtest.Response)
		go func() { done <- c.Post("/v1/webhook-endpoints", "slow-request-1", body) }()
		<-held
		c.Post("/v1/webhook-endpoints", "slow-request-1", body).ExpectError(t, 409, payd.CodeIdempotencyInProgress, "")
		close(release)
		(<-done).Expect(t, 201)
		c.Post("/v1/webhook-endpoints", "slow-request-1", body).Expect(t, 200)
	})
}

func TestIdempotencyConcurrentCreatesOne(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		const n = 50
		var wg sync.WaitGroup
		statuses := make([]*paydtest.Response, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = c.Post("/v1/webhook-endpoints", "concurrent-1", endpointBody("https://example.com/hook"))
			}()
		}
		wg.Wait()
		created := 0
		for _, r := range statuses {
			switch {
			case r.Status == 201:
				created++
			case r.Status == 200:
			case r.Status == 409 && r.ErrorCode() == string(payd.CodeIdempotencyInProgress):
			default:
				t.Fatalf("unexpected answer %d %s", r.Status, r.Body)
			}
		}
		if created != 1 {
			t.Fatalf("%d answers 201, want exactly 1", created)
		}
		items := c.Get("/v1/webhook-endpoints").Expect(t, 200).JSON(t)["items"].([]any)
		if len(items) != 1 {
			t.Fatalf("%d endpoints stored, want 1", len(items))
		}
		// Every 200 replays the one object.
		id := items[0].(map[string]any)["id"]
		for _, r := range statuses {
			if r.Status < 300 && r.JSON(t)["id"] != id {
				t.Fatalf("answer names %v, stored %v", r.JSON(t)["id"], id)
			}
		}
	})
}

// TestClaimedOperationsReplay: the operations that claim their key in the
// effect's own round trip (a payment's creation, capture and cancel, a
// refund) answer a repeated request with the first answer (200,
// Idempotent-Replayed) and another request under the key — another body,
// or another route — with idempotency_conflict, doing nothing again.
func TestClaimedOperationsReplay(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		paid := paidPayment(t, c, "100.00")
		held := c.Post("/v1/payments", key(), newPayment("100.00", map[string]any{"capture": false,
			"confirmation": map[string]any{"type": "qr"}})).Expect(t, 201).JSON(t)["id"].(string)
		c.Post("/v1/test/payments/"+held+"/simulate", key(), map[string]any{"outcome": "authorize"}).Expect(t, 202)
		c.WaitStatus(held, "waiting_for_capture")
		pending := c.Post("/v1/payments", key(), newPayment("50.00", nil)).Expect(t, 201).JSON(t)["id"].(string)
		rub := func(v string) map[string]any { return map[string]any{"value": v, "currency": "RUB"} }
		cases := []struct {
			name, path string
			body       any
			otherPath  string
			otherBody  any
			first      int
			done       func() bool // the effect, made once
		}{
			{"create", "/v1/payments", newPayment("10.00", map[string]any{"order_id": "claimed-create"}),
				"/v1/payments", newPayment("11.00", map[string]any{"order_id": "claimed-create-other"}), 201,
				func() bool {
					return len(c.Get("/v1/payments?limit=100").Expect(t, 200).JSON(t)["items"].([]any)) == 4
				}},
			{"refund", "/v1/refunds", map[string]any{"payment_id": paid, "amount": rub("10.00")},
				"/v1/refunds", map[string]any{"payment_id": paid, "amount": rub("11.00")}, 201,
				func() bool {
					return len(c.Get("/v1/refunds?payment_id="+paid).Expect(t, 200).JSON(t)["items"].([]any)) == 1
				}},
			{"capture", "/v1/payments/" + held + "/capture", map[string]any{"amount": rub("60.00")},
				"/v1/payments/" + held + "/capture", map[string]any{"amount": rub("50.00")}, 200,
				func() bool {
					return c.Get("/v1/payments/"+held).Expect(t, 200).JSON(t)["captured_amount"].(map[string]any)["value"] == "60.00"
				}},
			{"cancel", "/v1/payments/" + pending + "/cancel", nil,
				"/v1/payments/" + pending + "/capture", nil, 200,
				func() bool { return c.Get("/v1/payments/"+pending).Expect(t, 200).JSON(t)["status"] == "canceled" }},
		}
		for _, tc := range cases {
			k := key()
			first := c.Post(tc.path, k, tc.body).Expect(t, tc.first)
			again := c.Post(tc.path, k, tc.body).Expect(t, 200)
			if again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.Body, again.Body) {
				t.Fatalf("%s: the replay is not the first answer (Idempotent-Replayed %q):\n%s\n%s",
					tc.name, again.Header.Get("Idempotent-Replayed"), first.Body, again.Body)
			}
			c.Post(tc.otherPath, k, tc.otherBody).ExpectError(t, 409, payd.CodeIdempotencyConflict, "")
			if !tc.done() {
				t.Fatalf("%s: the effect is not there once", tc.name)
			}
		}
	})
}
