package sandpayout_test

import (
	"errors"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/sandpayout"
	"github.com/paydhq/payd/money"
)

// TestOutcomes walks each sandbox plan on a test clock: undecided before
// its time, decided after it.
func TestOutcomes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		minor  int64
		token  string
		wait   time.Duration
		status payd.PayoutStatus
		reason string
	}{
		{"Succeed", 10000, "tok_sandbox_4242", sandpayout.Settle, payd.PayoutSucceeded, ""},
		{"Decline01", 10001, "tok_sandbox_4242", sandpayout.Settle, payd.PayoutCanceled, payd.ReasonIssuerDeclined},
		{"Timeout04", 10004, "tok_sandbox_4242", sandpayout.Silent, payd.PayoutSucceeded, ""},
		{"Delayed05", 10005, "tok_sandbox_4242", sandpayout.Delayed, payd.PayoutSucceeded, ""},
		{"DeclinedToken", 10000, "tok_sandbox_0002", sandpayout.Settle, payd.PayoutCanceled, payd.ReasonIssuerDeclined},
		{"ExpiredCard", 10000, "tok_sandbox_0069", sandpayout.Settle, payd.PayoutCanceled, payd.ReasonCardExpired},
		{"TokenBeatsDigits", 10005, "tok_sandbox_0069", sandpayout.Settle, payd.PayoutCanceled, payd.ReasonCardExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := &payd.TestClock{}
			p := sandpayout.New(clock)
			po := &payd.Payout{ID: "po_01ARZ3NDEKTSV4RRFFQ69G5FAV", Amount: money.New(tt.minor, money.RUB),
				DestinationType: payd.DestinationCard, CreatedAt: clock.Now()}
			ref, err := p.AcceptPayout(t.Context(), nil, po, payd.PayoutDestination{Type: "card", CardToken: tt.token})
			if tt.minor%100 == 4 {
				if !errors.Is(err, payd.ErrProviderTimeout) || ref != "" {
					t.Fatalf("AcceptPayout = %q, %v; want a timeout", ref, err)
				}
			} else if err != nil || ref == "" {
				t.Fatalf("AcceptPayout = %q, %v", ref, err)
			}
			po.ProviderPayoutID = ref
			clock.Advance(tt.wait - time.Second) // the test clock also follows the wall clock
			res, err := p.PayoutStatus(t.Context(), nil, po)
			if (err == nil && res.Status != payd.PayoutProcessing) || (err != nil && !errors.Is(err, payd.ErrProviderTimeout)) {
				t.Fatalf("before its time: %+v, %v", res, err)
			}
			clock.Advance(time.Second)
			res, err = p.PayoutStatus(t.Context(), nil, po)
			if err != nil || res.Status != tt.status || res.Reason != tt.reason {
				t.Fatalf("after its time: %+v, %v; want %s %s", res, err, tt.status, tt.reason)
			}
		})
	}
}

func TestUnknownCardToken(t *testing.T) {
	t.Parallel()
	p := sandpayout.New(&payd.TestClock{})
	err := p.CheckDestination(payd.DestinationCard, payd.PayoutDestination{Type: "card", CardToken: "tok_live_abcdef_4242"})
	var pe *payd.Error
	if !errors.As(err, &pe) || pe.Param != "destination.card_token" {
		t.Fatalf("CheckDestination = %v, want invalid destination.card_token", err)
	}
	if err := p.CheckDestination(payd.DestinationSBP, payd.PayoutDestination{Type: "sbp"}); err != nil {
		t.Fatalf("CheckDestination of sbp = %v", err)
	}
}
