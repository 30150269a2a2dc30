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
// waiting, running and waiting to retry (a sweep per period), with a
// bounded retry: none piling up, outcome jobs never behind.
func TestPeriodicKinds(t *testing.T) {
	got := PeriodicKinds()
	for kind, sweep := range map[string]bool{"expire_payments": true, "expire_disputes": true, "expire_payment_links": true,
		"remove_expired_evidence": true, "payment_views_refresh": false, "purge_events": false, "purge_idempotency": false,
		"settlement_run": false, "fold_ledger_totals": false, "reseal_secrets": false, "ledger_check": false} {
		if g, ok := got[kind]; !ok || g != sweep {
			t.Errorf("PeriodicKinds()[%q] = %v, %v; want %v, true", kind, g, ok, sweep)
		}
	}
	if len(got) != 11 {
		t.Errorf("PeriodicKinds() has %d kinds, want 11: %v", len(got), got)
	}
	for _, p := range periodics() {
		opts := periodicInsertOpts(p)
		if opts.Queue != queuePeriodic || opts.MaxAttempts != periodicAttempts || periodicAttempts > 5 {
			t.Errorf("%s: queue %q, %d attempts", p.args.Kind(), opts.Queue, opts.MaxAttempts)
		}
		for _, st := range []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStateRunning,
			rivertype.JobStateRetryable, rivertype.JobStateScheduled} {
			if !slices.Contains(opts.UniqueOpts.ByState, st) {
				t.Errorf("%s: a run is not unique among %s runs", p.args.Kind(), st)
			}
		}
		if slices.Contains(opts.UniqueOpts.ByState, rivertype.JobStateCompleted) {
			t.Errorf("%s: a completed run would keep the next one out for a day", p.args.Kind())
		}
		if want := map[bool]time.Duration{true: p.every}[p.skipAhead]; opts.UniqueOpts.ByPeriod != want {
			t.Errorf("%s: unique per %v, want %v", p.args.Kind(), opts.UniqueOpts.ByPeriod, want)
		}
	}
}
