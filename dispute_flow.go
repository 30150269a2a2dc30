package payd

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// disputeNotified is the status each dispute notification moves to.
var disputeNotified = map[string]DisputeStatus{
	NotifyDisputeEvidenceRequired: DisputeEvidenceRequired,
	NotifyDisputeWon:              DisputeWon,
	NotifyDisputeLost:             DisputeLost,
}

// applyDisputeNotification opens or moves a dispute as its bank reports.
// A report that cannot apply (an unknown payment or dispute, a dispute
// already final, a sum above the refundable amount) is recorded as a
// discrepancy for reconciliation, never retried.
func (s *Service) applyDisputeNotification(ctx context.Context, tx Tx, provider string, n *Notification) error {
	var err error
	var paymentID, status string
	switch n.Kind {
	case NotifyDisputeOpened:
		var pay *Payment
		if pay, err = tx.PaymentGetByProviderID(ctx, provider, n.ProviderPaymentID); err == nil {
			pay, err = tx.PaymentGetForUpdate(ctx, pay.ID)
		}
		if err == nil {
			paymentID, status = pay.ID, string(pay.Status)
			in := DisputeOpen{Kind: n.Dispute.Kind, ReasonCode: n.Dispute.ReasonCode, BankFine: n.Dispute.BankFine,
				ProviderDisputeID: n.Dispute.ID}
			if n.Amount > 0 {
				in.Amount = &n.Amount
			}
			if n.Dispute.EvidenceDeadline != nil {
				in.Deadline = *n.Dispute.EvidenceDeadline
			}
			_, err = s.openDispute(ctx, tx, pay, in)
		}
	default:
		to, known := disputeNotified[n.Kind]
		if !known {
			return errors.New("unknown dispute notification kind " + n.Kind)
		}
		var d *Dispute
		if d, err = tx.DisputeGetByProviderID(ctx, provider, n.Dispute.ID); err == nil {
			d, err = tx.DisputeGetForUpdate(ctx, d.ID)
		}
		if err == nil {
			paymentID, status = d.PaymentID, string(d.Status)
			err = s.moveDispute(ctx, tx, d, to, n.Dispute.Resolution)
		}
	}
	var pe *Error
	if !errors.Is(err, ErrNoRows) && !errors.As(err, &pe) {
		return err
	}
	now := s.clock.Now()
	return tx.DiscrepancyInsert(ctx, &Discrepancy{ID: s.ids.New("dsc_", now), PaymentID: paymentID, Provider: provider,
		NotificationID: n.ID, ProviderPaymentID: n.ProviderPaymentID, Kind: n.Kind, PaymentStatus: status, CreatedAt: now,
		Detail: fmt.Sprintf("dispute notification for the bank's dispute %q was not applied: %v", n.Dispute.ID, err)})
}

// TestDisputeCreate is `POST /test/payments/{id}/disputes` after its shape
// was checked.
type TestDisputeCreate struct {
	DisputeOpen
	// DeadlineSeconds is the time left for evidence (0: 7 days).
	DeadlineSeconds int64
}

// CreateTestDispute opens a sandbox dispute on a succeeded test payment of
// the principal's shop, as the bank would, and answers it in opened.
func (s *Service) CreateTestDispute(ctx context.Context, p *Principal, idem Idempotency, paymentID string, in TestDisputeCreate) (*Response, error) {
	if !p.Test() {
		return nil, Errorf(CodeForbidden, "sandbox disputes work with test keys only")
	}
	if err := in.check(); err != nil {
		return nil, err
	}
	return s.idempotent(ctx, p, idem, func(tx Tx) (Outcome, any, error) {
		pay, err := scoped(ctx, tx, p, paymentID, true)
		if err != nil {
			return 0, nil, err
		}
		open := in.DisputeOpen
		open.namedByService = true
		if in.DeadlineSeconds > 0 {
			open.Deadline = s.clock.Now().Add(time.Duration(in.DeadlineSeconds) * time.Second)
		}
		// The sandbox bank knows the dispute by the service's id, so that
		// simulate answers through its notifications.
		d, err := s.openDispute(ctx, tx, pay, open)
		if err != nil {
			return 0, nil, err
		}
		return OutcomeCreated, d.View(), nil
	})
}

// disputeSimulateFrom lists the statuses each sandbox outcome applies to.
var disputeSimulateFrom = map[string][]DisputeStatus{
	"evidence_required": {DisputeOpened},
	"won":               {DisputeOpened, DisputeEvidenceRequired, DisputeSubmitted},
	"lost":              {DisputeOpened, DisputeEvidenceRequired, DisputeSubmitted},
	"expire":            {DisputeOpened, DisputeEvidenceRequired},
}

// disputeSimulateKind is the bank notification of each outcome; expire is
// the service's own deadline and needs none.
var disputeSimulateKind = map[string]string{
	"evidence_required": NotifyDisputeEvidenceRequired, "won": NotifyDisputeWon, "lost": NotifyDisputeLost,
}

// SimulateDispute is `POST /test/disputes/{id}/simulate`: it checks the
// outcome fits the dispute's status and has the sandbox bank deliver it
// after delay, through the provider notification path; expire runs the
// deadline's expiry at once.
func (s *Service) SimulateDispute(ctx context.Context, p *Principal, idem Idempotency, id, outcome string, delay time.Duration) (*Response, error) {
	if !p.Test() {
		return nil, Errorf(CodeForbidden, "simulate works with test keys only")
	}
	from, ok := disputeSimulateFrom[outcome]
	if !ok {
		return nil, Invalid("outcome", "outcome must be evidence_required, won, lost or expire")
	}
	return s.idempotent(ctx, p, idem, func(tx Tx) (Outcome, any, error) {
		d, err := scopedDispute(ctx, tx, p, id, true)
		if err != nil {
			return 0, nil, err
		}
		allowed := false
		for _, st := range from {
			allowed = allowed || st == d.Status
		}
		if !allowed {
			return 0, nil, Errorf(CodeInvalidState, "outcome %s does not apply to a dispute in status %s", outcome, d.Status)
		}
		at := s.clock.Now().Add(delay)
		if outcome == "expire" {
			return OutcomeAccepted, nil, s.jobs.Enqueue(ctx, tx, DisputeExpireArgs{DisputeID: d.ID, Force: true}, at)
		}
		sim, ok := s.providers[d.Provider].(DisputeSimulator)
		if !ok {
			return 0, nil, Errorf(CodeInvalidState, "the dispute's bank cannot be simulated")
		}
		return OutcomeAccepted, nil, sim.SimulateDispute(ctx, tx, d, disputeSimulateKind[outcome], delay)
	})
}

// DisputeExpireArgs expires one dispute; Force expires it before its
// deadline (sandbox `expire`).
type DisputeExpireArgs struct {
	DisputeID string `json:"dispute_id"`
	Force     bool   `json:"force,omitempty"`
}

// Kind names the job.
func (DisputeExpireArgs) Kind() string { return "dispute_expire" }

// ExpireDispute closes an unanswered dispute whose evidence deadline has
// passed on the service clock as expired; the sweep and the sandbox run it.
// The deadline is the last moment for evidence, so it passes just after.
// An early or stale run changes nothing.
func (s *Service) ExpireDispute(ctx context.Context, id string, force bool) error {
	return s.store.Tx(ctx, func(tx Tx) error {
		d, err := tx.DisputeGetForUpdate(ctx, id)
		if err != nil {
			return notFoundAs(err, "dispute")
		}
		if !d.Status.CanBecome(DisputeExpired) || (!force && !s.clock.Now().After(d.EvidenceDeadlineAt)) {
			return nil
		}
		return s.moveDispute(ctx, tx, d, DisputeExpired, "")
	})
}

// ExpireDueDisputes expires every unanswered dispute whose deadline has
// passed, each in its own transaction, as ExpireDuePayments does for
// payments: a periodic job runs it on the service clock, a dispute that
// fails is left to the next sweep, and the errors are returned together.
func (s *Service) ExpireDueDisputes(ctx context.Context) (int, error) {
	params := &DisputeListExpiredParams{Now: s.clock.Now(), Limit: expirySweepBatch}
	return sweepDue(ctx, s, "disputes", expirySweepBatch,
		func(tx Tx, after *DisputeDue) ([]DisputeDue, error) {
			if after != nil {
				params.After = *after
			}
			return tx.DisputeListExpired(ctx, params)
		},
		func(d DisputeDue) (string, error) { return d.ID, s.ExpireDispute(ctx, d.ID, false) })
}
