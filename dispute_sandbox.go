package payd

import (
	"context"
	"time"
)

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
	return s.idempotent(ctx, AuditCreateTestDispute, p, idem, func(tx Tx) (Outcome, any, error) {
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
var disputeSimulateKind = map[string]NotificationKind{
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
	return s.idempotent(ctx, AuditSimulateDispute, p, idem, func(tx Tx) (Outcome, any, error) {
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
		named := audited{objectID: d.ID, detail: simulateDetail(outcome, delay)}
		if outcome == "expire" {
			return OutcomeAccepted, named, s.jobs.Enqueue(ctx, tx, DisputeExpireArgs{DisputeID: d.ID, Force: true}, at)
		}
		sim, ok := s.providers[d.Provider].(DisputeSimulator)
		if !ok {
			return 0, nil, Errorf(CodeInvalidState, "the dispute's bank cannot be simulated")
		}
		return OutcomeAccepted, named, sim.SimulateDispute(ctx, tx, d, disputeSimulateKind[outcome], delay)
	})
}
