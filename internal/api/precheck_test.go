package api_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/webhook"
)

// TestPrecheck checks the synchronous `payment.authorize_request`: allow
// goes on to the bank, deny cancels with authorize_request_denied, and no
// usable answer follows the shop's setting (deny by default).
func TestPrecheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		answer       string
		status       int
		delay        time.Duration
		defaultAllow bool
		allowed      bool
	}{
		{"allow", `{"decision":"allow"}`, 200, 0, false, true},
		{"deny", `{"decision":"deny","reason":"blocked customer"}`, 200, 0, true, false},
		{"garbage, default deny", `not json`, 200, 0, false, false},
		{"500, default allow", `{"decision":"allow"}`, 500, 0, true, true},
		{"timeout, default deny", `{"decision":"allow"}`, 200, 6 * time.Second, false, false},
		{"timeout, default allow", `{"decision":"deny"}`, 200, 6 * time.Second, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := paydtest.Backends(t)[len(paydtest.Backends(t))-1]
			rc := newReceiver(t)
			var secret string
			var mu sync.Mutex
			var sigErr error
			rc.answer = func(int) int { return tt.status }
			env := startWithReceiver(t, b, rc)
			rc.srv.Config.Handler = precheckHandler(rc, tt.answer, tt.status, tt.delay, func(h, body string) {
				mu.Lock()
				defer mu.Unlock()
				sigErr = webhook.Verify(h, []byte(body), []string{secret}, time.Now())
			})
			shop := env.NewShop(payd.RegionRU, "")
			env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"authorize_request_webhook": true, "authorize_request_default_allow": tt.defaultAllow}).Expect(t, 200)
			c := env.As(shop, false)
			ep := c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": rc.srv.URL + "/pre", "events": []string{"payment.authorize_request"}}).Expect(t, 201).JSON(t)
			mu.Lock()
			secret = ep["secret"].(string)
			mu.Unlock()
			if caps := c.Get("/v1/shop").Expect(t, 200).JSON(t)["capabilities"].(map[string]any); caps["authorize_request_webhook"] != true {
				t.Fatalf("capabilities = %v", caps)
			}
			pay := c.Post("/v1/payments", key(), newPayment("100.00", nil)).Expect(t, 201).JSON(t)
			payer := env.Payer()
			url := pay["confirmation"].(map[string]any)["confirmation_url"].(string)
			page := payer.Get(url)
			start := time.Now()
			res := payer.Post(url, "csrf", page.CSRF(), "method", "bank_card")
			if tt.delay > 0 && time.Since(start) > 5*time.Second+2*time.Second {
				t.Fatalf("the pre-check waited %v, more than 5 seconds", time.Since(start))
			}
			got := c.Get("/v1/payments/"+pay["id"].(string)).Expect(t, 200).JSON(t)
			if tt.allowed {
				if res.Status != 303 || !strings.Contains(res.Location, "/sandbox/bank/") || got["status"] != "pending" {
					t.Fatalf("allowed: %d %s, payment %v", res.Status, res.Location, got["status"])
				}
			} else {
				cd, _ := got["cancellation_details"].(map[string]any)
				if res.Status == 303 || got["status"] != "canceled" || cd["reason"] != "authorize_request_denied" {
					t.Fatalf("denied: %d, payment %v", res.Status, got)
				}
			}
			if tt.delay == 0 {
				mu.Lock()
				defer mu.Unlock()
				if sigErr != nil {
					t.Fatalf("the pre-check was not signed like other events: %v", sigErr)
				}
			}
		})
	}
}

func precheckHandler(rc *receiver, answer string, status int, delay time.Duration, check func(sig, body string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		check(r.Header.Get("X-Service-Signature"), string(body))
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, answer)
	})
}

// TestPrecheckBusyPage: a second choice while the shop's pre-check of the
// first is still running gets the "still checking" page, in the
// payment's language, and does not start a second pre-check.
func TestPrecheckBusyPage(t *testing.T) {
	t.Parallel()
	b := paydtest.Backends(t)[0]
	rc := newReceiver(t)
	env := startWithReceiver(t, b, rc)
	var calls sync.WaitGroup
	calls.Add(1)
	var mu sync.Mutex
	n := 0
	release := make(chan struct{})
	rc.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			calls.Done()
		}
		<-release
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"decision":"allow"}`)
	})
	shop := env.NewShop(payd.RegionRU, "")
	env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"authorize_request_webhook": true}).Expect(t, 200)
	c := env.As(shop, false)
	c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": rc.srv.URL + "/pre", "events": []string{"payment.authorize_request"}}).Expect(t, 201)
	pay := c.Post("/v1/payments", key(), newPayment("100.00", map[string]any{
		"confirmation": map[string]any{"type": "redirect", "return_url": "https://shop.example.com/return", "locale": "ru_RU"}})).Expect(t, 201).JSON(t)
	url := pay["confirmation"].(map[string]any)["confirmation_url"].(string)
	payer := env.Payer()
	csrf := payer.Get(url).CSRF()
	done := make(chan *paydtest.Page, 1)
	go func() { done <- payer.Post(url, "csrf", csrf, "method", "bank_card") }()
	calls.Wait() // the first choice's pre-check has reached the shop
	busy := env.Payer().Post(url, "csrf", csrf, "method", "bank_card")
	close(release)
	if first := <-done; first.Status != http.StatusSeeOther {
		t.Fatalf("the first choice = %d", first.Status)
	}
	if busy.Status != http.StatusConflict || !strings.Contains(busy.Body, "Магазин ещё проверяет этот платёж") {
		t.Fatalf("the second choice = %d\n%s", busy.Status, busy.Body)
	}
	mu.Lock()
	defer mu.Unlock()
	if n != 1 {
		t.Fatalf("%d pre-checks for one payment, want 1", n)
	}
}
