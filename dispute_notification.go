package payd

import (
	"context"
	"errors"
	"fmt"
)

// disputeNotified is the status each dispute notification moves to.
var disputeNotified = map[NotificationKind]DisputeStatus{
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
			return errors.New("unknown dispute notification kind " + string(n.Kind))
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
	return tx.DiscrepancyInsert(ctx, &Discrepancy{ID: s.ids.New(PrefixDiscrepancy, now), PaymentID: paymentID, Provider: provider,
		NotificationID: n.ID, ProviderPaymentID: n.ProviderPaymentID, Kind: n.Kind, ObjectStatus: status, CreatedAt: now,
		Detail: fmt.Sprintf("dispute notification for the bank's dispute %q was not applied: %v", n.Dispute.ID, err)})
}
