package jobs

import (
	"slices"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/paydhq/payd"
)

// The sweep's schedule steps by its interval while the clock runs
// normally, and after a jump runs once and resumes from the new time.
func TestSkipAhead(t *testing.T) {
	t.Parallel()
	clock := &payd.TestClock{}
	s := skipAhead{clock: clock, every: 5 * time.Second}
	now := clock.Now()
	if got, want := s.Next(now), now.Add(5*time.Second); !got.Equal(want) {
		t.Fatalf("Next in step = %v, want %v", got, want)
	}
	prev := now
	clock.Advance(7 * 24 * time.Hour)
	got := s.Next(prev)
	if jumped := clock.Now(); got.Before(jumped) || got.After(jumped.Add(6*time.Second)) {
		t.Fatalf("Next after a 7-day jump = %v, want about %v", got, jumped.Add(5*time.Second))
	}
}

// TestPeriodicKinds: every periodic kind is named for the fault test,
// and each is asked for on the periodic queue, unique among its runs
// waiting, running and waiting to retry, with a bounded retry: one run of
// a kind in flight at a time, none piling up, outcome jobs never behind.
func TestPeriodicKinds(t *testing.T) {
	got := PeriodicKinds()
	for _, kind := range []string{"expire_payments", "expire_disputes", "expire_payment_links", "remove_expired_evidence",
		"payment_views_refresh", "purge_events", "purge_idempotency", "settlement_run", "fold_ledger_totals"} {
		if !got[kind] {
			t.Errorf("PeriodicKinds() lacks %q", kind)
		}
	}
	if len(got) != 9 {
		t.Errorf("PeriodicKinds() has %d kinds, want 9: %v", len(got), got)
	}
	opts := periodicInsertOpts()
	if opts.Queue != queuePeriodic || opts.MaxAttempts != periodicAttempts || periodicAttempts > 5 {
		t.Errorf("periodic insert options: queue %q, %d attempts", opts.Queue, opts.MaxAttempts)
	}
	for _, st := range []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStateRunning,
		rivertype.JobStateRetryable, rivertype.JobStateScheduled} {
		if !slices.Contains(opts.UniqueOpts.ByState, st) {
			t.Errorf("a periodic run is not unique among %s runs", st)
		}
	}
	if slices.Contains(opts.UniqueOpts.ByState, rivertype.JobStateCompleted) {
		t.Error("a completed periodic run would keep the next one out for a day")
	}
}
