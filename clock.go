package payd

import (
	"sync/atomic"
	"time"
)

// Clock is the one source of time for the whole service: timestamps,
// expiries, job schedules, key overlap and idempotency TTL all read it, so
// a test clock moves all of them together. What measures a person's real
// time does not follow a test clock: dashboard sessions' timeouts
// (account.Service.sessionNow) and the authentication throttles count wall-clock
// time, so moving the sandboxes' time signs no one out and refills no
// budget.
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock in UTC with microsecond precision, the
// precision both databases store.
type SystemClock struct{}

// Now returns the current UTC time truncated to microseconds.
func (SystemClock) Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// TestClock follows the wall clock plus an offset that only grows. It backs
// `serve --test-clock`, whose operator route advances it; a merchant's
// dashboard may too while no other merchant runs on it
// (Service.AdvanceTestClock).
type TestClock struct {
	offset atomic.Int64 // nanoseconds
	jumps  atomic.Uint64
	// OnAdvance, when set, runs after every advance: the service uses it
	// to let time-driven jobs catch up with the new time at once.
	OnAdvance func()
}

// Now returns wall time plus the accumulated offset.
func (c *TestClock) Now() time.Time {
	return time.Now().UTC().Add(time.Duration(c.offset.Load())).Truncate(time.Microsecond)
}

// Lead is how far the clock runs ahead of the wall clock.
func (c *TestClock) Lead() time.Duration { return time.Duration(c.offset.Load()) }

// Resume sets the clock's lead to one it had before (a restart), when
// that is further ahead: the clock never goes back.
func (c *TestClock) Resume(lead time.Duration) {
	for {
		cur := c.offset.Load()
		if int64(lead) <= cur || c.offset.CompareAndSwap(cur, int64(lead)) {
			return
		}
	}
}

// Jumps counts the advances so far: work that read the clock can tell
// whether it moved meanwhile (a periodic run then runs again).
func (c *TestClock) Jumps() uint64 { return c.jumps.Load() }

// Advance moves the clock forward by d (negative d is ignored: the service's
// time never goes back) and returns the new time.
func (c *TestClock) Advance(d time.Duration) time.Time {
	if d > 0 {
		c.offset.Add(int64(d))
		c.jumps.Add(1)
	}
	if c.OnAdvance != nil {
		c.OnAdvance()
	}
	return c.Now()
}
