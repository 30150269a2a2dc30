package ratelimit

import (
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

func TestLocalPeekTakesNothing(t *testing.T) {
	t.Parallel()
	l := NewLocal()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// An unknown key is a full bucket and stays unknown.
	for i := 0; i < 10; i++ {
		if ok, _ := l.peek("k", 3, now); !ok {
			t.Fatal("an unused key peeks empty")
		}
	}
	if len(l.buckets) != 0 {
		t.Fatal("Peek created a bucket")
	}
	for i := 0; i < 3; i++ {
		if ok, _ := l.peek("k", 3, now); !ok {
			t.Fatalf("peek before token %d: empty", i+1)
		}
		l.allow("k", 3, now)
	}
	ok, wait := l.peek("k", 3, now)
	if ok || wait != 20*time.Second {
		t.Fatalf("Peek after the burst = %v, %v; want empty for one token's time (20s)", ok, wait)
	}
	if _, allowWait := l.allow("k", 3, now); allowWait != wait {
		t.Fatalf("Allow advises %v, Peek %v", allowWait, wait)
	}
	if ok, wait := l.peek("k", 3, now.Add(5*time.Second)); ok || wait != 15*time.Second {
		t.Fatalf("Peek 5s later = %v, %v; want 15s", ok, wait)
	}
	if ok, _ := l.peek("k", 3, now.Add(20*time.Second)); !ok {
		t.Fatal("no token after the advised wait")
	}
	// Peeking never spends: the token found is still there for Allow.
	if ok, _ := l.allow("k", 3, now.Add(20*time.Second)); !ok {
		t.Fatal("Peek spent the token")
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
