package httpapi

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ratelimit"
)

func TestSourceAddr(t *testing.T) {
	t.Parallel()
	proxy := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	for _, c := range []struct {
		name string
		src  Source
		peer string
		xff  []string
		want string // "" is the invalid address
	}{
		{"no proxy: header ignored", Source{}, "203.0.113.1:5000", []string{"198.51.100.7"}, "203.0.113.1"},
		{"proxy: last hop", Source{TrustProxy: true}, "10.0.0.2:5000", []string{"1.2.3.4, 198.51.100.7"}, "198.51.100.7"},
		{"proxy: last line's last hop", Source{TrustProxy: true}, "10.0.0.2:5000", []string{"1.2.3.4", "5.6.7.8,198.51.100.7"}, "198.51.100.7"},
		{"proxy: no header", Source{TrustProxy: true}, "10.0.0.2:5000", nil, "10.0.0.2"},
		{"proxy: garbage", Source{TrustProxy: true}, "10.0.0.2:5000", []string{"198.51.100.7, unknown"}, ""},
		{"proxy: mapped hop", Source{TrustProxy: true}, "10.0.0.2:5000", []string{"::ffff:198.51.100.7"}, "198.51.100.7"},
		{"proxy: IPv6 hop", Source{TrustProxy: true}, "10.0.0.2:5000", []string{" 2001:db8::7 "}, "2001:db8::7"},
		{"trusted peer", Source{TrustProxy: true, TrustedProxies: proxy}, "10.9.9.9:5000", []string{"198.51.100.7"}, "198.51.100.7"},
		{"trusted list alone", Source{TrustedProxies: proxy}, "10.9.9.9:5000", []string{"198.51.100.7"}, "198.51.100.7"},
		{"mapped trusted peer", Source{TrustedProxies: proxy}, "[::ffff:10.9.9.9]:5000", []string{"198.51.100.7"}, "198.51.100.7"},
		{"untrusted peer", Source{TrustProxy: true, TrustedProxies: proxy}, "203.0.113.1:5000", []string{"198.51.100.7"}, "203.0.113.1"},
		{"IPv6 peer", Source{}, "[2001:db8::1]:5000", nil, "2001:db8::1"},
	} {
		r := httptest.NewRequest("GET", "/v1/shop", nil)
		r.RemoteAddr = c.peer
		for _, v := range c.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		got := c.src.Addr(r)
		if (c.want == "" && got.IsValid()) || (c.want != "" && got.String() != c.want) {
			t.Errorf("%s: Addr = %v; want %q", c.name, got, c.want)
		}
	}
}

// TestAuthThrottleLogsOncePerWindow: a throttled address is logged once a
// minute however often it knocks, and each address on its own.
func TestAuthThrottleLogsOncePerWindow(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	th := NewAuthThrottle(ThrottleConfig{Scope: "merchant", Limiter: ratelimit.NewLocal(), FailuresPerMinute: 2,
		Now: func() time.Time { return now }})
	req := func(peer string) *http.Request {
		r := httptest.NewRequest("GET", "/v1/shop", nil)
		r.RemoteAddr = peer + ":1"
		return r.WithContext(context.WithValue(r.Context(), loggerKey{}, log))
	}
	knock := func(peer string, n int) (refused int) {
		for i := 0; i < n; i++ {
			if a, err := th.Begin(req(peer)); err != nil {
				refused++
			} else {
				a.Failed()
			}
		}
		return refused
	}
	if got := knock("198.51.100.7", 12); got != 10 {
		t.Fatalf("refused %d of 12 with an allowance of 2", got)
	}
	if got := knock("198.51.100.8", 3); got != 1 {
		t.Fatalf("a second address: refused %d of 3", got)
	}
	if n := strings.Count(buf.String(), "authentication throttled"); n != 2 {
		t.Fatalf("%d log lines for two throttled addresses:\n%s", n, buf.String())
	}
	if !strings.Contains(buf.String(), "source=198.51.100.7") || !strings.Contains(buf.String(), "listener=merchant") {
		t.Fatalf("log line lacks the address or listener:\n%s", buf.String())
	}
	now = now.Add(time.Minute)
	knock("198.51.100.7", 5)
	if n := strings.Count(buf.String(), "authentication throttled"); n != 3 {
		t.Fatalf("%d log lines after a new minute; want 3", n)
	}
}

// TestAuthThrottleHoldsUnderConcurrency: of many authentications from one
// address at once, no more are let through to the credential check than
// the budget, and right credentials give their token back.
func TestAuthThrottleHoldsUnderConcurrency(t *testing.T) {
	t.Parallel()
	th := NewAuthThrottle(ThrottleConfig{Scope: "merchant", FailuresPerMinute: 10})
	req := fromAddr("198.51.100.7")
	var checked atomic.Int32
	var wg sync.WaitGroup
	release := make(chan struct{})
	for range 200 {
		wg.Go(func() {
			a, err := th.Begin(req)
			if err != nil {
				return
			}
			checked.Add(1)
			<-release // the credential check, in flight
			a.Failed()
		})
	}
	// The checks stay in flight until the budget's worth have begun.
	until(t, "the budget's worth of checks in flight", func() bool { return checked.Load() >= 10 })
	close(release)
	wg.Wait()
	if got := checked.Load(); got != 10 {
		t.Fatalf("200 at once: %d checked, want the budget of 10", got)
	}
	if _, err := th.Begin(req); err == nil {
		t.Fatal("a failure past the budget was let through")
	}

	// Right credentials spend nothing: 50 in a row on a fresh address.
	ok := fromAddr("198.51.100.8")
	for i := range 50 {
		a, err := th.Begin(ok)
		if err != nil {
			t.Fatalf("right credential %d refused: %v", i+1, err)
		}
		a.Release()
	}
}

// TestAuthThrottleRightKeysWaitForChecksInFlight: a burst of right
// credentials larger than the budget, all in flight at once (the shop's
// cached keys being read again), is not refused: the requests past the
// budget wait for the tokens the right checks hand over, and still no more
// than the budget are checked at once.
func TestAuthThrottleRightKeysWaitForChecksInFlight(t *testing.T) {
	t.Parallel()
	th := NewAuthThrottle(ThrottleConfig{Scope: "merchant", FailuresPerMinute: 10})
	req := fromAddr("198.51.100.7")
	var inFlight, most, began atomic.Int32
	var refused atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			a, err := th.Begin(req)
			if err != nil {
				refused.Add(1)
				return
			}
			n := inFlight.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			began.Add(1)
			<-release // the keys being read
			inFlight.Add(-1)
			a.Release()
		})
	}
	// The budget's worth are checked and the rest wait, all at once.
	until(t, "10 checked and 90 waiting", func() bool { return began.Load() >= 10 && th.waiting("198.51.100.7") >= 90 })
	close(release)
	wg.Wait()
	if refused.Load() != 0 || began.Load() != 100 {
		t.Fatalf("100 right credentials at once with a budget of 10: %d refused, %d checked", refused.Load(), began.Load())
	}
	if m := most.Load(); m > 10 {
		t.Fatalf("%d credentials checked at once; the budget is 10", m)
	}
	// Every token came back: the whole budget is there for failures.
	for i := range 10 {
		a, err := th.Begin(req)
		if err != nil {
			t.Fatalf("failure %d of the budget refused after the burst: %v", i+1, err)
		}
		a.Failed()
	}
	if _, err := th.Begin(req); err == nil {
		t.Fatal("a failure past the budget was let through")
	}
}

// TestAuthThrottleWaitEnds: a request waiting for a token held in flight
// gives up when it is cancelled or waited MaxWait, answered 429, and takes
// nothing with it: the held token, once given back, is there for the next.
func TestAuthThrottleWaitEnds(t *testing.T) {
	t.Parallel()
	th := NewAuthThrottle(ThrottleConfig{Scope: "merchant", FailuresPerMinute: 1, MaxWait: 50 * time.Millisecond})
	req := fromAddr("198.51.100.7")
	held, err := th.Begin(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := th.Begin(req); !isTooMany(err) {
		t.Fatalf("waited past MaxWait: %v; want 429", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	gone := make(chan error, 1)
	go func() {
		_, err := th.Begin(req.WithContext(ctx))
		gone <- err
	}()
	cancel()
	if err := <-gone; !isTooMany(err) {
		t.Fatalf("cancelled while waiting: %v; want 429", err)
	}
	held.Release()
	again, err := th.Begin(req)
	if err != nil {
		t.Fatalf("the given-back token is not there: %v", err)
	}
	again.Failed()
	if _, err := th.Begin(req); !isTooMany(err) {
		t.Fatalf("after the one failure: %v; want 429", err)
	}
}

// TestAuthThrottleWaitersRefusedWhenChecksFail: requests waiting for
// tokens held by checks that fail are answered 429 once those end.
func TestAuthThrottleWaitersRefusedWhenChecksFail(t *testing.T) {
	t.Parallel()
	th := NewAuthThrottle(ThrottleConfig{Scope: "merchant", FailuresPerMinute: 2})
	req := fromAddr("198.51.100.7")
	a, _ := th.Begin(req)
	b, _ := th.Begin(req)
	if a == nil || b == nil {
		t.Fatal("the budget of 2 refused a first check")
	}
	results := make(chan error, 5)
	for range 5 {
		go func() {
			_, err := th.Begin(req)
			results <- err
		}()
	}
	until(t, "the five requests waiting for the checks in flight", func() bool { return th.waiting("198.51.100.7") >= 5 })
	a.Failed()
	b.Failed()
	for range 5 {
		if err := <-results; !isTooMany(err) {
			t.Fatalf("a request waiting on failed checks: %v; want 429", err)
		}
	}
}

// fromAddr is a request from peer.
func fromAddr(peer string) *http.Request {
	r := httptest.NewRequest("POST", "/", nil)
	r.RemoteAddr = peer + ":1"
	return r
}

// waiting counts the requests of group waiting for a token.
func (t *AuthThrottle) waiting(group string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if f := t.flights[group]; f != nil {
		return len(f.waiting)
	}
	return 0
}

// until waits for cond, a state the requests under test reach, polling
// it; a test asserts only after it holds, never after a fixed pause.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("never reached: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func isTooMany(err error) bool {
	var pe *payd.Error
	return errors.As(err, &pe) && pe.Code == payd.CodeTooManyRequests
}

// TestAuthThrottleGroups: IPv4 addresses count alone, IPv6 per /64, and an
// unknown source in one shared bucket.
func TestAuthThrottleGroups(t *testing.T) {
	t.Parallel()
	th := NewAuthThrottle(ThrottleConfig{Source: Source{TrustProxy: true}})
	for xff, want := range map[string]string{
		"198.51.100.7":         "198.51.100.7",
		"::ffff:198.51.100.7":  "198.51.100.7",
		"2001:db8:1:2:3:4:5:6": "2001:db8:1:2::/64",
		"2001:db8:1:2::ffff":   "2001:db8:1:2::/64",
		"fe80::1%eth0":         "fe80::/64",
		"not an address":       "unknown",
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("X-Forwarded-For", xff)
		if got := th.group(r); got != want {
			t.Errorf("group(%q) = %q; want %q", xff, got, want)
		}
	}
}
