package payd

import (
	"context"
)

// disputeActions are the operator's steps of a dispute (`POST
// /admin/v1/disputes/{id}/{action}`): what the bank asked or decided, as an
// operator learned it, and sending the evidence to the bank.
var disputeActions = map[string]DisputeStatus{
	"request_evidence": DisputeEvidenceRequired,
	"submit":           DisputeSubmitted,
	"win":              DisputeWon,
	"lose":             DisputeLost,
	"expire":           DisputeExpired,
}

// OpenDisputeAsOperator opens a dispute a bank reported outside its
// notifications, on any shop's payment.
func (s *Service) OpenDisputeAsOperator(ctx context.Context, paymentID string, in DisputeOpen) (d *Dispute, err error) {
	err = s.store.Tx(ctx, func(tx Tx) error {
		if !ValidID(PrefixPayment, paymentID) {
			return NotFound("payment")
		}
		pay, err := tx.PaymentGetForUpdate(ctx, paymentID)
		if err != nil {
			return notFoundAs(err, "payment")
		}
		d, err = s.openDispute(ctx, tx, pay, in)
		return err
	})
	return d, err
}

// OperatorDispute returns any dispute by id, with what the merchant does
// not see (where its money came from, the merchant's comment).
func (s *Service) OperatorDispute(ctx context.Context, id string) (d *Dispute, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		d, err = tx.DisputeGet(ctx, id)
		return err
	})
	return d, notFoundAs(err, "dispute")
}

// ChangeDispute applies an operator's action; expire closes the dispute
// whatever its deadline.
func (s *Service) ChangeDispute(ctx context.Context, id, action, resolution string) (d *Dispute, err error) {
	to, ok := disputeActions[action]
	if !ok {
		return nil, Invalid("action", "action must be request_evidence, submit, win, lose or expire")
	}
	err = s.store.Tx(ctx, func(tx Tx) error {
		if d, err = tx.DisputeGetForUpdate(ctx, id); err != nil {
			return notFoundAs(err, "dispute")
		}
		return s.moveDispute(ctx, tx, d, to, resolution)
	})
	return d, err
}
