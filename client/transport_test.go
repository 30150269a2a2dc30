package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd/client"
)

// script is a stand-in service: the n-th request (0-based) gets answer(n),
// and every request is kept.
type script struct {
	mu   sync.Mutex
	reqs []*http.Request
	body []string
}

func (s *script) server(t *testing.T, answer func(n int, w http.ResponseWriter)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, r)
		s.body = append(s.body, string(b))
		s.mu.Unlock()
		answer(n, w)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func apiError(w http.ResponseWriter, status int, code, retryAfter string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Request-Id", "req_1")
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"error","code":%q,"description":"d","request_id":"req_1"}`, code)
}

const refundJSON = `{"id":"rf_1","payment_id":"pay_1","status":"pending","amount":{"value":"1.00","currency":"RUB"},"created_at":"2026-11-25T00:00:00Z","order_id":"o","test":true}`

func answerRefund(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(201)
	io.WriteString(w, refundJSON)
}

// fastClient retries without waiting on the wall clock, keeping the waits.
func fastClient(t *testing.T, url string, opts ...client.Option) (*client.Client, *[]time.Duration) {
	c, err := client.New(url, "shop_1", "sk_test_1", opts...)
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	client.SetSleep(c, func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	})
	return c, &waits
}

var refundBody = client.RefundCreate{PaymentID: "pay_1", Amount: client.Amt("1.00", client.RUB)}

// TestRetriesReuseTheKey: each retryable answer is sent again with the
// same Idempotency-Key and body, after the service's Retry-After when it
// gives one, and the call ends with the success.
func TestRetriesReuseTheKey(t *testing.T) {
	cases := []struct {
		name      string
		answer    func(w http.ResponseWriter)
		wantAfter time.Duration // 0: a backoff
	}{
		{"429 with Retry-After", func(w http.ResponseWriter) { apiError(w, 429, "too_many_requests", "7") }, 7 * time.Second},
		{"503 with Retry-After", func(w http.ResponseWriter) { apiError(w, 503, "provider_unavailable", "2") }, 2 * time.Second},
		{"409 idempotency_in_progress", func(w http.ResponseWriter) { apiError(w, 409, "idempotency_in_progress", "") }, 0},
		{"network error", func(w http.ResponseWriter) {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s script
			srv := s.server(t, func(n int, w http.ResponseWriter) {
				if n < 2 {
					tc.answer(w)
					return
				}
				answerRefund(w)
			})
			c, waits := fastClient(t, srv.URL+"/v1", client.Backoff(100*time.Millisecond, time.Second))
			r, err := c.CreateRefund(context.Background(), refundBody)
			if err != nil || r.ID != "rf_1" {
				t.Fatalf("refund = %+v, %v", r, err)
			}
			if len(s.reqs) != 3 || len(*waits) != 2 {
				t.Fatalf("%d requests, %d waits; want 3 and 2", len(s.reqs), len(*waits))
			}
			key := s.reqs[0].Header.Get("Idempotency-Key")
			if len(key) < 8 {
				t.Fatalf("Idempotency-Key %q", key)
			}
			for i, r := range s.reqs {
				if r.Header.Get("Idempotency-Key") != key || s.body[i] != s.body[0] || s.body[0] == "" {
					t.Fatalf("attempt %d: key %q body %q; want %q %q", i, r.Header.Get("Idempotency-Key"), s.body[i], key, s.body[0])
				}
			}
			for i, d := range *waits {
				switch {
				case tc.wantAfter != 0 && d != tc.wantAfter:
					t.Fatalf("wait %d = %v, want the Retry-After %v", i, d, tc.wantAfter)
				case tc.wantAfter == 0 && (d < 50*time.Millisecond<<i || d > 100*time.Millisecond<<i):
					t.Fatalf("backoff %d = %v, want within the upper half of %v", i, d, 100*time.Millisecond<<i)
				}
			}
		})
	}
}

// TestNotRetried: answers that a second attempt cannot change come back at
// once, typed.
func TestNotRetried(t *testing.T) {
	for _, tc := range []struct {
		status int
		code   client.ErrorCode
	}{
		{400, client.ErrorCodeInvalidRequest},
		{409, client.ErrorCodeIdempotencyConflict},
		{422, client.ErrorCodeInvalidState},
		{500, client.ErrorCodeInternalError},
		{501, client.ErrorCodeNotImplemented},
	} {
		t.Run(string(tc.code), func(t *testing.T) {
			var s script
			srv := s.server(t, func(_ int, w http.ResponseWriter) { apiError(w, tc.status, string(tc.code), "") })
			c, _ := fastClient(t, srv.URL+"/v1")
			_, err := c.CreateRefund(context.Background(), refundBody)
			var apiErr *client.Error
			if !errors.As(err, &apiErr) || apiErr.HTTPStatus != tc.status || apiErr.Code != tc.code || apiErr.RequestID != "req_1" {
				t.Fatalf("err = %v", err)
			}
			if len(s.reqs) != 1 {
				t.Fatalf("sent %d times", len(s.reqs))
			}
		})
	}
}

// TestRetriesBounded: a service that keeps answering 503 gets 1+MaxRetries
// attempts, then the caller gets the last answer.
func TestRetriesBounded(t *testing.T) {
	var s script
	srv := s.server(t, func(_ int, w http.ResponseWriter) { apiError(w, 503, "provider_unavailable", "1") })
	c, _ := fastClient(t, srv.URL+"/v1", client.MaxRetries(2))
	_, err := c.GetShop(context.Background())
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.HTTPStatus != 503 || apiErr.RetryAfter != time.Second {
		t.Fatalf("err = %v", err)
	}
	if len(s.reqs) != 3 {
		t.Fatalf("sent %d times, want 3", len(s.reqs))
	}
}

// TestRetryWithinDeadline: a Retry-After beyond the context's deadline is
// not waited for; the caller gets the 429 at once. The real sleep is used.
func TestRetryWithinDeadline(t *testing.T) {
	var s script
	srv := s.server(t, func(_ int, w http.ResponseWriter) { apiError(w, 429, "too_many_requests", "30") })
	c, err := client.New(srv.URL+"/v1", "shop_1", "sk_test_1")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err = c.GetShop(ctx)
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.HTTPStatus != 429 || time.Since(start) > time.Second || len(s.reqs) != 1 {
		t.Fatalf("err = %v after %v and %d requests", err, time.Since(start), len(s.reqs))
	}
	// A canceled context ends the wait of a backoff too.
	var s2 script
	srv2 := s2.server(t, func(_ int, w http.ResponseWriter) { apiError(w, 503, "provider_unavailable", "") })
	c2, _ := client.New(srv2.URL+"/v1", "shop_1", "sk_test_1", client.Backoff(time.Minute, time.Minute))
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel2)
	if _, err := c2.GetShop(ctx2); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled during a backoff: %v", err)
	}
}

// TestRequestHeaders: credentials, the client's User-Agent, a caller's own
// key kept, and no key on reads.
func TestRequestHeaders(t *testing.T) {
	var s script
	srv := s.server(t, func(n int, w http.ResponseWriter) {
		if n == 0 {
			answerRefund(w)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, refundJSON)
	})
	c, _ := fastClient(t, srv.URL+"/v1", client.AppInfo("shop-backend/2.3"))
	if _, err := c.CreateRefund(context.Background(), refundBody, client.WithIdempotencyKey("order-42-refund")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetRefund(context.Background(), "rf_1"); err != nil {
		t.Fatal(err)
	}
	post, get := s.reqs[0], s.reqs[1]
	if u, p, ok := post.BasicAuth(); !ok || u != "shop_1" || p != "sk_test_1" {
		t.Fatalf("credentials %q %q", u, p)
	}
	if ua := post.Header.Get("User-Agent"); ua != "shop-backend/2.3 payd-go/"+client.Version {
		t.Fatalf("User-Agent %q", ua)
	}
	if post.Header.Get("Idempotency-Key") != "order-42-refund" || post.URL.Path != "/v1/refunds" {
		t.Fatalf("POST %s with key %q", post.URL.Path, post.Header.Get("Idempotency-Key"))
	}
	if get.Header.Get("Idempotency-Key") != "" || get.URL.Path != "/v1/refunds/rf_1" {
		t.Fatalf("GET %s with key %q", get.URL.Path, get.Header.Get("Idempotency-Key"))
	}
	// Two calls without a key of the caller get two keys.
	s.reqs = nil
	var s2 script
	srv2 := s2.server(t, func(_ int, w http.ResponseWriter) { answerRefund(w) })
	c2, _ := fastClient(t, srv2.URL+"/v1")
	c2.CreateRefund(context.Background(), refundBody)
	c2.CreateRefund(context.Background(), refundBody)
	if a, b := s2.reqs[0].Header.Get("Idempotency-Key"), s2.reqs[1].Header.Get("Idempotency-Key"); a == b || a == "" {
		t.Fatalf("keys of two calls: %q, %q", a, b)
	}
	// The contract's alias header, set through the raw layer, is the key.
	alias := "order-43-refund"
	c2.Raw().CreateRefundWithResponse(context.Background(), &client.CreateRefundParams{IdempotenceKey: &alias}, refundBody)
	if h := s2.reqs[2].Header; h.Get("Idempotence-Key") != alias || len(h.Values("Idempotency-Key")) != 0 {
		t.Fatalf("with the alias: %v", h)
	}
}

// TestStageOfNotImplemented: the stage a 501 needs is read from its
// description, whatever stage the service runs at.
func TestStageOfNotImplemented(t *testing.T) {
	for _, tc := range []struct{ desc, want string }{
		{"not implemented in this build: disputes arrive in stage M2", "M2"},
		{"not implemented yet at stage M2: payouts arrive in stage M5", "M5"},
		{"not enabled at this service's stage v1: payouts arrive in stage M5; the service serves it when started with --stage M5 (make run STAGE=M5)", "M5"},
		{"not implemented", ""},
	} {
		var s script
		srv := s.server(t, func(_ int, w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(501)
			fmt.Fprintf(w, `{"type":"error","code":"not_implemented","description":%q,"request_id":"req_1"}`, tc.desc)
		})
		c, _ := fastClient(t, srv.URL+"/v1")
		_, err := c.GetPayout(context.Background(), "po_1")
		var apiErr *client.Error
		if !errors.Is(err, client.ErrNotImplemented) || !errors.As(err, &apiErr) || apiErr.Stage != tc.want {
			t.Fatalf("%q: %v, stage %q; want %q", tc.desc, err, apiErr.Stage, tc.want)
		}
	}
}

// TestErrorWithoutErrorObject: an answer that is not the contract's (a
// proxy's page) is still an *Error, with the status.
func TestErrorWithoutErrorObject(t *testing.T) {
	var s script
	srv := s.server(t, func(_ int, w http.ResponseWriter) {
		w.WriteHeader(502)
		io.WriteString(w, "<html>bad gateway</html>")
	})
	c, _ := fastClient(t, srv.URL+"/v1")
	_, err := c.GetShop(context.Background())
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.HTTPStatus != 502 || apiErr.Code != "" || !strings.Contains(err.Error(), "502") {
		t.Fatalf("err = %v", err)
	}
}

// TestUnreplayableBodySentOnce: a caller's own reader through the raw layer
// cannot be sent twice, so it is not retried; the answer comes back typed.
func TestUnreplayableBodySentOnce(t *testing.T) {
	var s script
	srv := s.server(t, func(_ int, w http.ResponseWriter) { apiError(w, 503, "provider_unavailable", "1") })
	c, _ := fastClient(t, srv.URL+"/v1")
	body := io.MultiReader(strings.NewReader(`{"payment_id":"pay_1",`), strings.NewReader(`"amount":{"value":"1.00","currency":"RUB"}}`))
	_, err := c.Raw().CreateRefundWithBodyWithResponse(context.Background(), &client.CreateRefundParams{}, "application/json", body)
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.HTTPStatus != 503 || len(s.reqs) != 1 || s.reqs[0].Header.Get("Idempotency-Key") == "" {
		t.Fatalf("err = %v after %d requests", err, len(s.reqs))
	}
}

// TestResetSandboxOutlastsTheClientTimeout: a reset answered after the
// HTTP client's timeout still reaches the caller (a reset of many test
// payments takes minutes), while every other call keeps the timeout.
func TestResetSandboxOutlastsTheClientTimeout(t *testing.T) {
	var s script
	srv := s.server(t, func(_ int, w http.ResponseWriter) {
		// Three times the client's timeout.
		time.Sleep(600 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"deleted":{"payments":2,"refunds":0,"disputes":0,"evidence_files":0,"payment_links":0,"payouts":0,"settlements":0,"events":4,"webhook_deliveries":0,"idempotency_records":2,"ledger_entries":4}}`)
	})
	c, err := client.New(srv.URL+"/v1", "shop_1", "sk_test_1", client.MaxRetries(0),
		client.HTTPClient(&http.Client{Timeout: 200 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.ResetSandbox(context.Background())
	if err != nil {
		t.Fatalf("a reset answered after the client's timeout: %v", err)
	}
	if res.Deleted.Payments != 2 || res.Deleted.Events != 4 {
		t.Fatalf("deleted %+v, want 2 payments and 4 events", res.Deleted)
	}
	if _, err := c.GetShop(context.Background()); err == nil {
		t.Fatal("a shop read answered after the client's timeout succeeded: the timeout was lifted for more than the reset")
	}
}
