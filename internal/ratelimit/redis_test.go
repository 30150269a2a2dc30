package ratelimit_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/ratelimit"
)

func newRedis(t *testing.T, url, prefix string, opts ratelimit.RedisOptions) *ratelimit.Redis {
	t.Helper()
	opts.Prefix = prefix
	// The tests of what Redis keeps are not about latency: on a machine
	// running the whole suite, a call can outlast the default 200 ms.
	// The outage tests set their own bound.
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	r, err := ratelimit.NewRedis(url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// Two limiters on one Redis, as two instances would hold, share each key's
// allowance: together they let perMinute through, not twice that.
func TestRedisSharedAllowance(t *testing.T) {
	t.Parallel()
	url := paydtest.RedisURL(t)
	prefix := paydtest.NewRedisPrefix()
	a := newRedis(t, url, prefix, ratelimit.RedisOptions{})
	b := newRedis(t, url, prefix, ratelimit.RedisOptions{})
	ctx, now := context.Background(), time.Now()
	for i := range 6 {
		l := a
		if i%2 == 1 {
			l = b
		}
		if ok, _, err := l.Allow(ctx, "k", 6, now); !ok || err != nil {
			t.Fatalf("request %d refused: %v", i+1, err)
		}
	}
	for _, l := range []*ratelimit.Redis{a, b} {
		ok, wait, err := l.Allow(ctx, "k", 6, now)
		if ok || err != nil {
			t.Fatalf("7th request: ok=%v err=%v, want refused", ok, err)
		}
		// One token comes back every 10 seconds at 6 per minute.
		if wait <= 9*time.Second || wait > 10*time.Second {
			t.Fatalf("retry after %v, want just under 10s", wait)
		}
	}
	// Other keys and other prefixes are untouched.
	if ok, _, _ := a.Allow(ctx, "other", 6, now); !ok {
		t.Fatal("another key was refused")
	}
	c := newRedis(t, url, paydtest.NewRedisPrefix(), ratelimit.RedisOptions{})
	if ok, _, _ := c.Allow(ctx, "k", 6, now); !ok {
		t.Fatal("the same key under another prefix was refused")
	}
}

// The Redis limiter keeps a budget exactly under concurrency, like Local,
// and a returned token can be taken again from another instance.
func TestRedisTakeAndReturn(t *testing.T) {
	t.Parallel()
	url, prefix := paydtest.RedisURL(t), paydtest.NewRedisPrefix()
	ratelimit.RunBudget(t, newRedis(t, url, prefix, ratelimit.RedisOptions{}))
	a := newRedis(t, url, prefix, ratelimit.RedisOptions{})
	b := newRedis(t, url, prefix, ratelimit.RedisOptions{})
	ctx, now := context.Background(), time.Now()
	if ok, _, _ := a.Allow(ctx, "shared", 1, now); !ok {
		t.Fatal("the only token refused")
	}
	if ok, _, _ := b.Allow(ctx, "shared", 1, now); ok {
		t.Fatal("a second token of a bucket of one")
	}
	if err := a.Return(ctx, "shared", 1, now); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := b.Allow(ctx, "shared", 1, now); !ok {
		t.Fatal("the returned token is not there for the other instance")
	}
}

// When Redis dies the limiter answers at once from its stand-in with
// ErrUnavailable, reports the outage once, and comes back by itself when
// Redis does.
func TestRedisOutage(t *testing.T) {
	t.Parallel()
	srv := paydtest.StartRedis(t)
	var downs, ups atomic.Int32
	r := newRedis(t, srv.URL(), "outage:", ratelimit.RedisOptions{
		Timeout: 150 * time.Millisecond, ProbeInterval: 100 * time.Millisecond,
		OnDown: func(error) { downs.Add(1) },
		OnUp:   func(time.Duration) { ups.Add(1) },
	})
	ctx := context.Background()
	if _, _, err := r.Allow(ctx, "k", 100, time.Now()); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	for i := range 20 {
		start := time.Now()
		ok, _, err := r.Allow(ctx, "k", 100, time.Now())
		if !errors.Is(err, ratelimit.ErrUnavailable) {
			t.Fatalf("call %d with Redis stopped: err = %v", i, err)
		}
		if !ok {
			t.Fatal("the stand-in refused a fresh key")
		}
		if d := time.Since(start); d > time.Second {
			t.Fatalf("call took %v with Redis stopped", d)
		}
		if err := r.Return(ctx, "k", 100, time.Now()); !errors.Is(err, ratelimit.ErrUnavailable) {
			t.Fatalf("Return with Redis stopped: err = %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if downs.Load() != 1 || ups.Load() != 0 {
		t.Fatalf("outage reported %d times, recovery %d times; want 1 and 0", downs.Load(), ups.Load())
	}
	if r.Fallbacks() < 40 {
		t.Fatalf("fallbacks = %d, want every call counted", r.Fallbacks())
	}
	srv.Start()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, _, err := r.Allow(ctx, "k", 100, time.Now())
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no recovery 5s after Redis came back: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if downs.Load() != 1 || ups.Load() != 1 {
		t.Fatalf("after recovery: %d outages, %d recoveries; want 1 and 1", downs.Load(), ups.Load())
	}
}

// Ping reports an unreachable Redis as an outage, once.
func TestRedisPingBeginsOutage(t *testing.T) {
	t.Parallel()
	srv := paydtest.StartRedis(t)
	srv.Stop()
	var downs atomic.Int32
	r := newRedis(t, srv.URL(), "ping:", ratelimit.RedisOptions{OnDown: func(error) { downs.Add(1) }})
	for range 3 {
		if err := r.Ping(context.Background()); !errors.Is(err, ratelimit.ErrUnavailable) {
			t.Fatalf("Ping with Redis stopped: %v", err)
		}
	}
	if downs.Load() != 1 {
		t.Fatalf("outage reported %d times, want 1", downs.Load())
	}
}
