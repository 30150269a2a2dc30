package ratelimit

import (
	"context"
	"testing"
	"time"
)

func TestLocalAllowsBurstThenRefuses(t *testing.T) {
	t.Parallel()
	l := NewLocal()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 600; i++ {
		if ok, _ := l.allow("k", 600, now); !ok {
			t.Fatalf("request %d refused within the limit", i+1)
		}
	}
	ok, wait := l.allow("k", 600, now)
	if ok {
		t.Fatal("request 601 in the same minute allowed")
	}
	if wait <= 0 || wait > time.Second {
		t.Fatalf("retry after %v; want one token's time (100ms)", wait)
	}
	if ok, _ := l.allow("other", 600, now); !ok {
		t.Fatal("another key shares the first key's bucket")
	}
	if ok, _ := l.allow("k", 600, now.Add(wait)); !ok {
		t.Fatal("refused after waiting the advised time")
	}
}

func TestLocalRefillsOverAMinute(t *testing.T) {
	t.Parallel()
	l := NewLocal()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 120; i++ {
		l.allow("k", 120, now)
	}
	// 120 per minute refills two tokens a second.
	for i := 0; i < 2; i++ {
		if ok, _ := l.allow("k", 120, now.Add(time.Second)); !ok {
			t.Fatalf("token %d not refilled after 1s", i+1)
		}
	}
	if ok, _ := l.allow("k", 120, now.Add(time.Second)); ok {
		t.Fatal("a third token after 1s at 2 per second")
	}
}

func TestLocalTakeAndReturn(t *testing.T) {
	t.Parallel()
	RunBudget(t, NewLocal())
	l := NewLocal()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// A return to a key never taken from leaves no state behind.
	l.Return(context.Background(), "k", 3, now)
	if len(l.cells) != 0 {
		t.Fatal("Return created a cell")
	}
	// Returned tokens of a full bucket are forgotten at the next sweep.
	l.allow("k", 3, now)
	l.Return(context.Background(), "k", 3, now)
	if len(l.cells) != 0 {
		t.Fatal("a bucket full again keeps its cell")
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]int{0: 1, 100 * time.Millisecond: 1, 1500 * time.Millisecond: 2, 30 * time.Second: 30} {
		if got := RetryAfterSeconds(d); got != want {
			t.Errorf("RetryAfterSeconds(%v) = %d; want %d", d, got, want)
		}
	}
}
