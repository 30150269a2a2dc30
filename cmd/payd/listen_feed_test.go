package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	stripewebhook "github.com/stripe/stripe-go/v85/webhook"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/webhook"
)

// hookReceiver is a developer's webhook handler that records every
// request and checks its signature both with payd's webhook.Verify and
// with stripe-go's ValidatePayload: the contract's signature header is
// Stripe's scheme (t=<unix>,v1=<hex HMAC-SHA256 of "t.body">) under
// another header name.
type hookReceiver struct {
	mu     sync.Mutex
	ids    []string
	errs   []error
	secret func() string
	srv    *httptest.Server
}

func newHookReceiver(t *testing.T, secret func() string) *hookReceiver {
	h := &hookReceiver{secret: secret}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		sig := r.Header.Get(webhook.SignatureHeader)
		h.mu.Lock()
		defer h.mu.Unlock()
		h.ids = append(h.ids, r.Header.Get(webhook.EventIDHeader))
		if err := webhook.Verify(sig, body, []string{h.secret()}, time.Now()); err != nil {
			h.errs = append(h.errs, fmt.Errorf("webhook.Verify: %w", err))
		}
		if err := stripewebhook.ValidatePayload(body, sig, h.secret()); err != nil {
			h.errs = append(h.errs, fmt.Errorf("stripe-go ValidatePayload: %w", err))
		}
		if r.Header.Get("User-Agent") != webhook.UserAgent || r.Header.Get("Content-Type") != "application/json" {
			h.errs = append(h.errs, fmt.Errorf("headers %v are not a delivery's", r.Header))
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hookReceiver) got() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.ids)
}

func (h *hookReceiver) check(t *testing.T) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, err := range h.errs {
		t.Error(err)
	}
}

// listenRun is one running `payd listen`.
type listenRun struct {
	out    *syncBuffer
	cancel context.CancelFunc
	done   chan struct{} // closed when run returned; err is its result
	err    error
}

var signingSecretRE = regexp.MustCompile(`Signing secret: (\S+)`)

func (l *listenRun) secret() string { return lastSecret(l.out) }

// lastSecret is the secret the latest start of listen printed to out.
func lastSecret(out *syncBuffer) string {
	if m := signingSecretRE.FindAllStringSubmatch(out.String(), -1); m != nil {
		return m[len(m)-1][1]
	}
	return ""
}

func (l *listenRun) stop(t *testing.T) {
	t.Helper()
	l.cancel()
	<-l.done
	if l.err != nil {
		t.Fatalf("listen: %v", l.err)
	}
}

// startListen runs listen, printing to out, until the test ends.
func startListen(t *testing.T, env *paydtest.Env, shop *paydtest.Shop, out *syncBuffer, forward string, args ...string) *listenRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l := &listenRun{out: out, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.err = run(ctx, append([]string{"listen", "--api-url", env.API.URL + "/v1", "--shop-id", shop.ID, "--secret-key", shop.TestKey,
			"--forward-to", forward, "--poll-interval", "100ms"}, args...), func(string) string { return "" }, l.out, l.out)
	}()
	t.Cleanup(func() {
		cancel()
		<-l.done
	})
	paydtest.Eventually(t, "listen to start", func() bool { return l.secret() != "" })
	return l
}

// sandboxPayment makes a QR test payment and has the sandbox bank decide
// it, returning the id of the event the outcome made.
func sandboxPayment(t *testing.T, c *paydtest.Client, n int, outcome, status string) string {
	t.Helper()
	p := c.Post("/v1/payments", fmt.Sprintf("feed-pay-%04d", n), map[string]any{
		"amount": map[string]any{"value": "100.00", "currency": "RUB"}, "order_id": fmt.Sprintf("feed-%d", n),
		"confirmation": map[string]any{"type": "qr"}}).Expect(t, 201).JSON(t)
	id := p["id"].(string)
	c.Post("/v1/test/payments/"+id+"/simulate", fmt.Sprintf("feed-sim-%04d", n), map[string]any{"outcome": outcome}).Expect(t, 202)
	c.WaitStatus(id, status)
	var list struct{ Items []struct{ ID string } }
	c.Get("/v1/events?object_id="+id).Expect(t, 200).Decode(t, &list)
	if len(list.Items) != 1 {
		t.Fatalf("payment %s has %d events, want 1", id, len(list.Items))
	}
	return list.Items[0].ID
}

// TestListenForwardsResentEvent: an event resent through the API reaches
// a running listener again, though its created_at did not change; the
// forwarded request verifies with payd's and stripe-go's verifiers.
func TestListenForwardsResentEvent(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		out := &syncBuffer{}
		hook := newHookReceiver(t, func() string { return lastSecret(out) })
		startListen(t, env, shop, out, hook.srv.URL, "--data-dir", t.TempDir())

		first := sandboxPayment(t, c, 1, "succeed", "succeeded")
		paydtest.Eventually(t, "the event forwarded", func() bool { return len(hook.got()) == 1 })
		c.Post("/v1/events/"+first+"/resend", "feed-resend-0001", nil).Expect(t, 202)
		paydtest.Eventually(t, "the resent event forwarded again", func() bool { return len(hook.got()) == 2 })
		second := sandboxPayment(t, c, 2, "succeed", "succeeded")
		paydtest.Eventually(t, "the next event forwarded", func() bool { return len(hook.got()) == 3 })
		if got, want := hook.got(), []string{first, first, second}; !slices.Equal(got, want) {
			t.Fatalf("forwarded %v, want %v", got, want)
		}
		hook.check(t)
	})
}

// TestListenContinuesWhereItLeftOff: a listener stopped and started again
// forwards what happened while it was stopped and nothing it forwarded
// before; --events leaves other types out, and the saved position passes
// them too.
func TestListenContinuesWhereItLeftOff(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		state := filepath.Join(t.TempDir(), "listen.json")
		// Each start prints a new secret; the receiver checks with the
		// latest, as a developer would paste it.
		out := &syncBuffer{}
		hook := newHookReceiver(t, func() string { return lastSecret(out) })
		args := []string{"--state", state, "--grace", "0s", "--events", "payment.succeeded"}

		before := sandboxPayment(t, c, 1, "succeed", "succeeded") // before the first start: never forwarded
		l := startListen(t, env, shop, out, hook.srv.URL, args...)
		started := savedPosition(t, state)
		first := sandboxPayment(t, c, 2, "succeed", "succeeded")
		paydtest.Eventually(t, "the first event forwarded", func() bool { return len(hook.got()) == 1 })
		// A stop during a delivery may forward that event again at the
		// next start (receivers deduplicate); this test stops once the
		// position has passed the first event, to see nothing forwarded twice.
		paydtest.Eventually(t, "the position saved past the first event", func() bool { return savedPosition(t, state) > started })
		l.stop(t)

		// While nobody listens: one event of the filtered type, one not.
		declined := sandboxPayment(t, c, 3, "decline", "canceled")
		meanwhile := sandboxPayment(t, c, 4, "succeed", "succeeded")
		startListen(t, env, shop, out, hook.srv.URL, args...)
		paydtest.Eventually(t, "the event from the downtime", func() bool { return len(hook.got()) >= 2 })
		after := sandboxPayment(t, c, 5, "succeed", "succeeded")
		paydtest.Eventually(t, "the event after the restart", func() bool { return len(hook.got()) >= 3 })
		if got, want := hook.got(), []string{first, meanwhile, after}; !slices.Equal(got, want) {
			t.Fatalf("forwarded %v, want %v (not %s from before the first start, nor %s left out by --events)", got, want, before, declined)
		}
		hook.check(t)
		raw, err := os.ReadFile(state)
		if err != nil || !regexp.MustCompile(`"shop_id":"`+shop.ID+`","after_sequence":[1-9]`).Match(raw) {
			t.Fatalf("state file %s: %s %v", state, raw, err)
		}
	})
}

// savedPosition is the after_sequence of listen's state file.
func savedPosition(t *testing.T, path string) int64 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("state file: %v", err)
	}
	var st listenState
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatalf("state file %s: %v", raw, err)
	}
	return st.AfterSequence
}
