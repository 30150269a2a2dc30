package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// loopbackClient is an HTTP client that keeps up to conns connections alive
// and can reach nothing but 127.0.0.1: the dialer refuses any other
// address, proxies are off and redirects are not followed.
func loopbackClient(conns int, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			if host != "127.0.0.1" {
				return nil, fmt.Errorf("paydbench contacts 127.0.0.1 only, not %s", host)
			}
			return dialer.DialContext(ctx, network, addr)
		},
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// api drives the merchant API as one shop.
type api struct {
	client         *http.Client
	base           string // http://127.0.0.1:port
	shopID, secret string
	// merchantID is the shop's merchant, when the benchmark made it
	// (--citus).
	merchantID string
	// run makes order ids and idempotency keys unique across runs and
	// databases; seq across phases.
	run string
	seq atomic.Int64

	mu  sync.Mutex
	ids []string // created payments, for the read phases

	// paid are the payments the refund phase refunds; refunds counts its
	// operations.
	paid    []string
	refunds atomic.Int64
}

// maxKeptIDs bounds the memory the read phases' id list may take.
const maxKeptIDs = 1_000_000

// maxBody bounds what is read of one response.
const maxBody = 4 << 20

func (a *api) do(ctx context.Context, method, path string, body []byte, hdr map[string]string, want int) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(a.shopID, a.secret)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		if len(b) > 200 {
			b = b[:200]
		}
		return nil, fmt.Errorf("%s %s: status %d: %s", method, routeOf(path), resp.StatusCode, bytes.TrimSpace(b))
	}
	return b, nil
}

// routeOf strips ids and queries from a path, so error samples group.
func routeOf(path string) string {
	if u, err := url.Parse(path); err == nil {
		path = u.Path
	}
	if len(path) > len("/v1/payments/") && path[:len("/v1/payments/")] == "/v1/payments/" {
		return "/v1/payments/{id}"
	}
	return path
}

// createBody is the smallest ordinary payment: 100.00 RUB, redirect
// confirmation, with the order id the caller makes unique.
func createBody(orderID string) []byte {
	return fmt.Appendf(nil, `{"amount":{"value":"100.00","currency":"RUB"},"order_id":%q,`+
		`"description":"paydbench order","confirmation":{"type":"redirect","return_url":"https://shop.example.com/return"}}`, orderID)
}

// createWorker creates payments, each with its own Idempotency-Key and
// order_id, and remembers their ids.
func (a *api) createWorker(int) op {
	return func(ctx context.Context, _ int64) error {
		key := fmt.Sprintf("bench-%s-%d", a.run, a.seq.Add(1))
		b, err := a.do(ctx, http.MethodPost, "/v1/payments", createBody(key),
			map[string]string{"Idempotency-Key": key}, http.StatusCreated)
		if err != nil {
			return err
		}
		var created struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(b, &created); err != nil || created.ID == "" {
			return fmt.Errorf("create: no id in the answer: %v", err)
		}
		a.mu.Lock()
		if len(a.ids) < maxKeptIDs {
			a.ids = append(a.ids, created.ID)
		}
		a.mu.Unlock()
		return nil
	}
}

var errNoPayments = errors.New("no payments were created, nothing to read")

// getWorker reads the created payments by id, each worker starting at its
// own place in the list.
func (a *api) getWorker(int) op {
	a.mu.Lock()
	ids := a.ids
	a.mu.Unlock()
	return func(ctx context.Context, n int64) error {
		if len(ids) == 0 {
			return errNoPayments
		}
		// A stride through the list rather than n % len, so that
		// concurrent workers do not read the same rows in lockstep.
		id := ids[int((n*7919)%int64(len(ids)))]
		_, err := a.do(ctx, http.MethodGet, "/v1/payments/"+id, nil, nil, http.StatusOK)
		return err
	}
}

// listWorker pages through the shop's payments 100 at a time, following
// next_cursor, and starts over at the end; each page is one operation.
func (a *api) listWorker(int) op { return a.pages("/v1/payments?limit=100") }

// eventsWorker pages through the shop's events as listWorker does its
// payments.
func (a *api) eventsWorker(int) op { return a.pages("/v1/events?limit=100") }

// pages walks the list at first, a page an operation.
func (a *api) pages(first string) op {
	var cursor string
	return func(ctx context.Context, _ int64) error {
		path := first
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		b, err := a.do(ctx, http.MethodGet, path, nil, nil, http.StatusOK)
		if err != nil {
			cursor = ""
			return err
		}
		// Only the cursor is read, from the page's last member: the load
		// generator shares the machine with the server, and even a decoder
		// that skips the items scans 100 payments a page, taking CPU from
		// what is measured.
		i := bytes.LastIndex(b, []byte(`"next_cursor":`))
		if i < 0 {
			cursor = ""
			return fmt.Errorf("list: no next_cursor in the page")
		}
		var page struct{ NextCursor *string }
		tail := bytes.TrimSuffix(bytes.TrimSpace(b[i+len(`"next_cursor":`):]), []byte("}"))
		if err := json.Unmarshal(tail, &page.NextCursor); err != nil {
			cursor = ""
			return fmt.Errorf("list: next_cursor: %v", err)
		}
		cursor = ""
		if page.NextCursor != nil {
			cursor = *page.NextCursor
		}
		return nil
	}
}

// balanceWorker reads the merchant's balance: the Balance object of
// every currency the test contour ever moved, from the ledger's running
// totals (docs/money.md).
func (a *api) balanceWorker(int) op {
	return func(ctx context.Context, _ int64) error {
		b, err := a.do(ctx, http.MethodGet, "/v1/balance", nil, nil, http.StatusOK)
		if err == nil && !bytes.Contains(b, []byte(`"available"`)) {
			return fmt.Errorf("balance: no available in the answer")
		}
		return err
	}
}

// preparePaid makes n paid payments for the refund phase: QR payments,
// which have their bank attempt at once, paid through the sandbox's
// simulate. It runs before the phase and is not measured.
func (a *api) preparePaid(ctx context.Context, n, clients int) error {
	ids := make(chan string, n)
	errs := make(chan error, clients)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) && ctx.Err() == nil {
				key := fmt.Sprintf("benchpaid-%s-%d", a.run, a.seq.Add(1))
				body := fmt.Appendf(nil, `{"amount":{"value":"100.00","currency":"RUB"},"order_id":%q,"confirmation":{"type":"qr"}}`, key)
				b, err := a.do(ctx, http.MethodPost, "/v1/payments", body, map[string]string{"Idempotency-Key": key}, http.StatusCreated)
				if err != nil {
					errs <- err
					return
				}
				var p struct{ ID string }
				json.Unmarshal(b, &p)
				if _, err := a.do(ctx, http.MethodPost, "/v1/test/payments/"+p.ID+"/simulate", []byte(`{"outcome":"succeed"}`),
					map[string]string{"Idempotency-Key": key + "-pay"}, http.StatusAccepted); err != nil {
					errs <- err
					return
				}
				ids <- p.ID
			}
		}()
	}
	wg.Wait()
	close(ids)
	select {
	case err := <-errs:
		return err
	default:
	}
	for id := range ids {
		a.paid = append(a.paid, id)
	}
	// The sandbox's notifications arrive through jobs: wait until the last
	// payment is paid.
	if len(a.paid) == 0 {
		return errNoPayments
	}
	last := a.paid[len(a.paid)-1]
	for i := 0; i < 600 && ctx.Err() == nil; i++ {
		b, err := a.do(ctx, http.MethodGet, "/v1/payments/"+last, nil, nil, http.StatusOK)
		if err == nil && bytes.Contains(b, []byte(`"status":"succeeded"`)) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("the prepared payments were not paid in time")
}

// refundWorker refunds 1.00 of a paid payment per operation, spreading the
// refunds over the paid payments. A prepared payment's unreleased 99.30
// covers 99 of them; a seeded payment's money is available, so each of its
// refunds reads the merchant's available balance under the merchant's lock.
func (a *api) refundWorker(int) op {
	return func(ctx context.Context, n int64) error {
		if len(a.paid) == 0 {
			return errNoPayments
		}
		id := a.paid[int(a.refunds.Add(1))%len(a.paid)]
		key := fmt.Sprintf("benchrefund-%s-%d", a.run, a.seq.Add(1))
		_, err := a.do(ctx, http.MethodPost, "/v1/refunds",
			fmt.Appendf(nil, `{"payment_id":%q,"amount":{"value":"1.00","currency":"RUB"}}`, id),
			map[string]string{"Idempotency-Key": key}, http.StatusCreated)
		return err
	}
}
