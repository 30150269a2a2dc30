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
	// Return gives back one token that Allow took, for an attempt that
	// turned out not to count (a credential that was right). A bucket is
	// never fuller than perMinute. Taking first and returning after is
	// what keeps a budget of failures exact under concurrency: requests
	// in flight hold their tokens, so no more of them are checked than
	// the bucket holds.
	Return(ctx context.Context, key string, perMinute int, now time.Time) error
}

// Local is a token bucket per key: perMinute tokens refilled evenly over a
// minute, with a burst of perMinute, so a key may spend its whole minute at
// once but never more than perMinute in any minute on average. Each bucket
// is a GCRA cell, the theoretical arrival time of the next token, exactly
// as Redis keeps it. Time comes from the caller.
type Local struct {
	mu    sync.Mutex
	cells map[string]time.Time
	sweep time.Time
}

// NewLocal returns an empty in-process limiter.
func NewLocal() *Local { return &Local{cells: map[string]time.Time{}} }

// Allow implements Limiter; it never fails.
func (l *Local) Allow(_ context.Context, key string, perMinute int, now time.Time) (bool, time.Duration, error) {
	ok, wait := l.allow(key, perMinute, now)
	return ok, wait, nil
}

// emission is the time one token takes to come back.
func emission(perMinute int) time.Duration { return time.Minute / time.Duration(max(perMinute, 1)) }

func (l *Local) allow(key string, perMinute int, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.evictFull(now)
	tat := l.cells[key]
	if tat.Before(now) {
		tat = now
	}
	next := tat.Add(emission(perMinute))
	// The bucket holds perMinute tokens: a token is free while the next
	// arrival time stays within a minute of now.
	if over := next.Sub(now) - time.Duration(perMinute)*emission(perMinute); over > 0 {
		return false, over
	}
	l.cells[key] = next
	return true, 0
}

// Return implements Limiter; it never fails.
func (l *Local) Return(_ context.Context, key string, perMinute int, now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	tat, ok := l.cells[key]
	if !ok {
		return nil
	}
	if tat = tat.Add(-emission(perMinute)); !tat.After(now) {
		delete(l.cells, key)
		return nil
	}
	l.cells[key] = tat
	return nil
}

// evictFull forgets, once a minute, the cells whose bucket is full again:
// a missing cell is a full bucket, so forgetting one changes no answer.
func (l *Local) evictFull(now time.Time) {
	if now.Sub(l.sweep) < time.Minute && !now.Before(l.sweep) {
		return
	}
	l.sweep = now
	for k, tat := range l.cells {
		if !tat.After(now) {
			delete(l.cells, k)
		}
	}
}

// RetryAfterSeconds rounds a wait up to whole seconds, at least 1, for the
// Retry-After header.
func RetryAfterSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
