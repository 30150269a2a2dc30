package ratelimit

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// RunBudget checks the rule every Limiter keeps: however many requests take
// at once, no more succeed than the bucket holds, and a returned token can
// be taken once more, never twice. The bucket is 6 a minute (a token every
// ten seconds), so the refill during the test is none.
func RunBudget(t *testing.T, l Limiter) {
	t.Helper()
	ctx, now := context.Background(), time.Now()
	const perMinute = 6
	takeAtOnce := func(key string, n int) int {
		var ok atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range n {
			wg.Go(func() {
				<-start
				if got, _, err := l.Allow(ctx, key, perMinute, now); err != nil {
					t.Error(err)
				} else if got {
					ok.Add(1)
				}
			})
		}
		close(start)
		wg.Wait()
		return int(ok.Load())
	}
	if got := takeAtOnce("budget", 100); got != perMinute {
		t.Fatalf("100 at once: %d taken, want the bucket's %d", got, perMinute)
	}
	for range 2 {
		if err := l.Return(ctx, "budget", perMinute, now); err != nil {
			t.Fatal(err)
		}
	}
	if got := takeAtOnce("budget", 50); got != 2 {
		t.Fatalf("after 2 returned, 50 at once: %d taken, want 2", got)
	}
	// Returns to a full bucket do not make it fuller.
	if _, _, err := l.Allow(ctx, "full", perMinute, now); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if err := l.Return(ctx, "full", perMinute, now); err != nil {
			t.Fatal(err)
		}
	}
	if got := takeAtOnce("full", 50); got != perMinute {
		t.Fatalf("a bucket given back more than was taken: %d taken at once, want %d", got, perMinute)
	}
}
