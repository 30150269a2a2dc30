package account

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// The memory of argon2id runs goes back once they stop for a quiet
// second, never during a burst, and once per quiet spell.
func TestKDFMemoryGoesBackWhenIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var released atomic.Int32
		r := &idleRelease{idle: time.Second, release: func() { released.Add(1) }}
		check := func(when string, want int32) {
			t.Helper()
			synctest.Wait()
			if got := released.Load(); got != want {
				t.Fatalf("%s: released %d times, want %d", when, got, want)
			}
		}
		for range 3 {
			r.ran()
			time.Sleep(600 * time.Millisecond)
			check("during a burst of runs 600 ms apart", 0)
		}
		time.Sleep(401 * time.Millisecond)
		check("a second after the burst's last run", 1)
		time.Sleep(5 * time.Second)
		check("in the quiet after", 1)
		r.ran()
		time.Sleep(999 * time.Millisecond)
		check("just before a second after a later run", 1)
		time.Sleep(2 * time.Millisecond)
		check("a second after a later run", 2)
	})
}
