package jobs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/riverqueue/river"
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

// Every periodic kind, the hourly ones as the sweeps, runs once after a
// jump of the clock by months and resumes from the new time: a schedule
// that stepped by its period would ask for thousands of runs in a row.
func TestEveryPeriodicKindSkipsAhead(t *testing.T) {
	t.Parallel()
	for _, p := range periodics() {
		clock := &payd.TestClock{}
		s := p.schedule(clock)
		prev := clock.Now()
		if got, want := s.Next(prev), prev.Add(p.every); !got.Equal(want) {
			t.Errorf("%s: Next in step = %v, want %v", p.args.Kind(), got, want)
		}
		clock.Advance(100 * 24 * time.Hour)
		if got, jumped := s.Next(prev), clock.Now(); got.Before(jumped) || got.After(jumped.Add(p.every)) {
			t.Errorf("%s: Next after a jump of 100 days = %v, want within a period after %v", p.args.Kind(), got, jumped)
		}
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
		if want := map[bool]time.Duration{true: p.every}[p.sweep]; opts.UniqueOpts.ByPeriod != want {
			t.Errorf("%s: unique per %v, want %v", p.args.Kind(), opts.UniqueOpts.ByPeriod, want)
		}
	}
}

// A job that finds storage out of reach waits and runs again without
// spending an attempt; any other failure is the retry policy's.
func TestArgsWorkerSnoozesWhileStorageIsAway(t *testing.T) {
	t.Parallel()
	away := &payd.Error{Code: payd.CodeProviderUnavailable, Cause: payd.CauseStorage, RetryAfter: 2 * time.Second}
	refused := &payd.Error{Code: payd.CodeInvalidState}
	for _, tc := range []struct {
		name   string
		err    error
		snooze time.Duration // 0: not snoozed
	}{
		{"storage away", fmt.Errorf("expire pay_1: %w", away), 2 * time.Second},
		{"storage away without a pause", &payd.Error{Code: payd.CodeProviderUnavailable, Cause: payd.CauseStorage}, time.Second},
		{"a rule refuses", refused, 0},
		{"done", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &argsWorker[payd.PaymentExpireArgs]{fn: func(context.Context, payd.PaymentExpireArgs) error { return tc.err }}
			err := w.Work(t.Context(), &river.Job[payd.PaymentExpireArgs]{})
			var snooze *river.JobSnoozeError
			switch {
			case tc.snooze == 0 && errors.As(err, &snooze):
				t.Fatalf("snoozed %v, want the error itself (%v)", snooze.Duration, tc.err)
			case tc.snooze == 0 && !errors.Is(err, tc.err):
				t.Fatalf("got %v, want %v", err, tc.err)
			case tc.snooze != 0 && (!errors.As(err, &snooze) || snooze.Duration != tc.snooze):
				t.Fatalf("got %v, want a snooze of %v", err, tc.snooze)
			}
		})
	}
}
