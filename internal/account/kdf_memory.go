package account

import (
	"runtime/debug"
	"sync"
	"time"
)

// kdfMemory gives the memory of argon2id runs back to the system once
// they stop. A run's block (19 MiB with DefaultArgon2) is the process's
// largest allocation, and the Go runtime keeps freed memory for reuse,
// returning it only gradually: one sign-in held a SQLite server's
// resident size 19 MiB up long after it (peak 97.6 MiB under load, 78.9
// once given back; docs/benchmarks-history.md). Given back after every
// run, the next would fault its block in again and take twice as long
// (30 against 55–60 ms here); given back after a quiet second, a burst of
// sign-ins keeps its memory and a quiet server returns to its size.
var kdfMemory = &idleRelease{idle: time.Second, release: debug.FreeOSMemory}

// idleRelease calls release once no run has ended for idle.
type idleRelease struct {
	idle    time.Duration
	release func()

	mu    sync.Mutex
	timer *time.Timer
}

// ran notes that a run has just ended.
func (r *idleRelease) ran() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timer == nil {
		r.timer = time.AfterFunc(r.idle, r.release)
		return
	}
	r.timer.Reset(r.idle)
}
