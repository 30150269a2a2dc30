package jobs

import (
	"testing"
	"time"

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

// A failed sweep is not retried as a whole: the next periodic one takes up
// what it left, and retries with backoff would stack sweeps.
func TestExpirySweepTriedOnce(t *testing.T) {
	if got := (ExpirePaymentsArgs{}).InsertOpts().MaxAttempts; got != 1 {
		t.Fatalf("expiry sweep MaxAttempts = %d, want 1", got)
	}
	if got := (ExpireDisputesArgs{}).InsertOpts().MaxAttempts; got != 1 {
		t.Fatalf("dispute expiry sweep MaxAttempts = %d, want 1", got)
	}
	if got := (ExpireLinksArgs{}).InsertOpts().MaxAttempts; got != 1 {
		t.Fatalf("payment link expiry sweep MaxAttempts = %d, want 1", got)
	}
	if got := (RemoveExpiredEvidenceArgs{}).InsertOpts().MaxAttempts; got != 1 {
		t.Fatalf("evidence sweep MaxAttempts = %d, want 1", got)
	}
}

// TestPeriodicKinds: every periodic job is named, sweeps as tried once, so
// that the fault test tells a job waiting for its turn from a lost one.
func TestPeriodicKinds(t *testing.T) {
	got := PeriodicKinds()
	for kind, once := range map[string]bool{
		"expire_payments": true, "expire_disputes": true, "expire_payment_links": true,
		"remove_expired_evidence": true, "payment_views_refresh": true,
		"purge_events": false, "purge_idempotency": false, "settlement_run": false,
		"fold_ledger_totals": true,
	} {
		if g, ok := got[kind]; !ok || g != once {
			t.Errorf("PeriodicKinds()[%q] = %v, %v; want %v, true", kind, g, ok, once)
		}
	}
	if len(got) != 9 {
		t.Errorf("PeriodicKinds() has %d kinds, want 9: %v", len(got), got)
	}
}
