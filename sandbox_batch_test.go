package payd

import (
	"testing"
	"time"
)

// TestSandboxBatchingNext: a timed batching scales the next batch toward
// its time, at most doubling or halving it at a time and within a tenth to
// ten times the first size; an untimed one keeps every batch at its size.
func TestSandboxBatchingNext(t *testing.T) {
	t.Parallel()
	timed := SandboxBatching{Size: 50, Time: 10 * time.Millisecond}
	for _, c := range []struct {
		name string
		b    SandboxBatching
		size int
		took time.Duration
		want int
	}{
		{"OnTime", timed, 50, 10 * time.Millisecond, 50},
		{"SlowerScalesDown", timed, 50, 12500 * time.Microsecond, 40},
		{"FarSlowerHalves", timed, 50, time.Second, 25},
		{"FasterScalesUp", timed, 40, 8 * time.Millisecond, 50},
		{"FarFasterDoubles", timed, 50, time.Millisecond, 100},
		{"NoTimeDoubles", timed, 50, 0, 100},
		{"NotPastTenTimesTheSize", timed, 400, time.Millisecond, 500},
		{"NotBelowATenthOfTheSize", timed, 6, time.Second, 5},
		{"Untimed", SandboxBatching{Size: 1000}, 1000, time.Second, 1000},
		{"Default", SandboxBatching{}, SandboxBatching{}.first(), time.Second, SandboxResetBatch},
	} {
		if got := c.b.next(c.size, c.took); got != c.want {
			t.Errorf("%s: next(%d, %v) = %d, want %d", c.name, c.size, c.took, got, c.want)
		}
	}
}
