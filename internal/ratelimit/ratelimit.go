// Package ratelimit counts events per key against per-minute limits: the
// requests of a key (Limits: Request rate) and the failed authentications
// of a source address (docs/security.md). Limiter is the seam: Local is the
// in-process implementation for a single instance, Redis the shared one for
// several instances serving the same shops. Both uses go through the same
// Limiter, so the shared implementation covers both.
package ratelimit

import (
	"context"
	"errors"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// ErrUnavailable is wrapped by the errors of a shared Limiter whose store
// cannot be reached.
var ErrUnavailable = errors.New("rate limit store unavailable")

// Limiter decides whether one more request under key fits perMinute.
//
// A shared Limiter whose store cannot be reached returns an error wrapping
// ErrUnavailable together with the answer of an in-process stand-in: a
// caller that may go on without the shared count (a read) uses that
// answer, one that may not (a money operation) refuses. Local never fails.
type Limiter interface {
	// Allow takes one token of key's bucket at now. When the bucket is
	// empty it returns false and how long until a token is free.
	Allow(ctx context.Context, key string, perMinute int, now time.Time) (ok bool, retryAfter time.Duration, err error)
	// Peek reports whether key's bucket holds a token at now without
	// taking it, and when it is empty how long until one is free. A key
	// never used holds a full bucket; Peek creates no state for it, so
	// it can be asked on every request.
	Peek(ctx context.Context, key string, perMinute int, now time.Time) (ok bool, retryAfter time.Duration, err error)
}

// Local is a token bucket per key: perMinute tokens refilled evenly over a
// minute, with a burst of perMinute, so a key may spend its whole minute at
// once but never more than perMinute in any minute on average. Time comes
// from the caller (the service clock).
type Local struct {
	mu      sync.Mutex
	buckets map[string]*bucket
	sweep   time.Time
}

type bucket struct {
	lim       *rate.Limiter
	perMinute int
	lastUsed  time.Time
}

// NewLocal returns an empty in-process limiter.
func NewLocal() *Local { return &Local{buckets: map[string]*bucket{}} }

// Allow implements Limiter; it never fails.
func (l *Local) Allow(_ context.Context, key string, perMinute int, now time.Time) (bool, time.Duration, error) {
	ok, wait := l.allow(key, perMinute, now)
	return ok, wait, nil
}

func (l *Local) allow(key string, perMinute int, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.evictIdle(now)
	b := l.buckets[key]
	if b == nil || b.perMinute != perMinute {
		b = &bucket{lim: rate.NewLimiter(rate.Limit(float64(perMinute)/60), perMinute), perMinute: perMinute}
		l.buckets[key] = b
	}
	b.lastUsed = now
	r := b.lim.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Minute
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// Peek implements Limiter; it never fails.
func (l *Local) Peek(_ context.Context, key string, perMinute int, now time.Time) (bool, time.Duration, error) {
	ok, wait := l.peek(key, perMinute, now)
	return ok, wait, nil
}

func (l *Local) peek(key string, perMinute int, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil || b.perMinute != perMinute {
		return true, 0
	}
	tokens := b.lim.TokensAt(now)
	if tokens >= 1 {
		return true, 0
	}
	perToken := time.Minute / time.Duration(perMinute)
	return false, time.Duration((1 - tokens) * float64(perToken))
}

// evictIdle forgets buckets unused for two minutes: such a bucket is full
// again anyway, so forgetting it changes no answer.
func (l *Local) evictIdle(now time.Time) {
	if now.Sub(l.sweep) < time.Minute {
		return
	}
	l.sweep = now
	for k, b := range l.buckets {
		if now.Sub(b.lastUsed) > 2*time.Minute {
			delete(l.buckets, k)
		}
	}
}

// RetryAfterSeconds rounds a wait up to whole seconds, at least 1, for the
// Retry-After header.
func RetryAfterSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
