package payd

import "testing"

// TestDisputeTransitions pins the transition table: final states go
// nowhere, a submitted dispute no longer expires, and evidence is taken
// only before submission.
func TestDisputeTransitions(t *testing.T) {
	all := []DisputeStatus{DisputeOpened, DisputeEvidenceRequired, DisputeSubmitted, DisputeWon, DisputeLost, DisputeExpired}
	allowed := map[[2]DisputeStatus]bool{}
	for _, p := range [][2]DisputeStatus{
		{DisputeOpened, DisputeEvidenceRequired}, {DisputeOpened, DisputeSubmitted}, {DisputeOpened, DisputeWon},
		{DisputeOpened, DisputeLost}, {DisputeOpened, DisputeExpired},
		{DisputeEvidenceRequired, DisputeSubmitted}, {DisputeEvidenceRequired, DisputeWon},
		{DisputeEvidenceRequired, DisputeLost}, {DisputeEvidenceRequired, DisputeExpired},
		{DisputeSubmitted, DisputeWon}, {DisputeSubmitted, DisputeLost},
	} {
		allowed[p] = true
	}
	for _, from := range all {
		for _, to := range all {
			if got := from.CanBecome(to); got != allowed[[2]DisputeStatus{from, to}] {
				t.Errorf("%s → %s allowed %v, want %v", from, to, got, !got)
			}
		}
		if want := from == DisputeWon || from == DisputeLost || from == DisputeExpired; from.Final() != want {
			t.Errorf("%s final %v, want %v", from, from.Final(), want)
		}
		if want := from == DisputeOpened || from == DisputeEvidenceRequired; from.AcceptsEvidence() != want {
			t.Errorf("%s accepts evidence %v, want %v", from, from.AcceptsEvidence(), want)
		}
	}
}

// TestPaymentTransitions pins the contract's payment table (States:
// Payment): succeeded and canceled go nowhere, and nothing returns to
// pending.
func TestPaymentTransitions(t *testing.T) {
	all := []PaymentStatus{PaymentPending, PaymentWaitingForCapture, PaymentSucceeded, PaymentCanceled}
	allowed := map[[2]PaymentStatus]bool{
		{PaymentPending, PaymentWaitingForCapture}: true, {PaymentPending, PaymentSucceeded}: true, {PaymentPending, PaymentCanceled}: true,
		{PaymentWaitingForCapture, PaymentSucceeded}: true, {PaymentWaitingForCapture, PaymentCanceled}: true,
	}
	for _, from := range all {
		for _, to := range all {
			if got := from.CanBecome(to); got != allowed[[2]PaymentStatus{from, to}] {
				t.Errorf("%s → %s allowed %v, want %v", from, to, got, !got)
			}
			pay := &Payment{Status: from}
			if err := moveAllowed(pay, to); (err == nil) != allowed[[2]PaymentStatus{from, to}] {
				t.Errorf("moveAllowed %s → %s: %v", from, to, err)
			}
		}
	}
}

// TestChargebackRule checks the defaults and the ratio's edge: the freeze
// needs the minimum count and a ratio strictly above the threshold.
func TestChargebackRule(t *testing.T) {
	tests := []struct {
		name                  string
		rule                  ChargebackRule
		chargebacks, payments int
		want                  bool
	}{
		{"UnderMinimum", ChargebackRule{}, 2, 0, false},
		{"AtThreshold", ChargebackRule{}, 3, 300, false},
		{"AboveThreshold", ChargebackRule{}, 3, 299, true},
		{"NoPayments", ChargebackRule{}, 3, 0, true},
		{"OwnRule", ChargebackRule{RatioBps: 5000, MinCount: 1}, 1, 3, false},
		{"OwnRuleAbove", ChargebackRule{RatioBps: 5000, MinCount: 1}, 2, 3, true},
	}
	for _, tt := range tests {
		if got := tt.rule.Exceeded(tt.chargebacks, tt.payments); got != tt.want {
			t.Errorf("%s: Exceeded(%d, %d) = %v, want %v", tt.name, tt.chargebacks, tt.payments, got, tt.want)
		}
	}
	if e := (ChargebackRule{WindowDays: 7}).Effective(); e != (ChargebackRule{RatioBps: 100, WindowDays: 7, MinCount: 3}) {
		t.Errorf("Effective = %+v", e)
	}
}
