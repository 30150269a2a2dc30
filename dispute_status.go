package payd

import "context"

func (s *Service) disputeEvent(ctx context.Context, tx Tx, shop *Shop, d *Dispute, t EventType) error {
	_, err := s.RecordEvent(ctx, tx, NewEventParams{Shop: shop, Test: d.Test, Type: t, ObjectType: "dispute", ObjectID: d.ID, Object: d.View()})
	return err
}

// moveDispute applies one transition to a locked dispute, with its money
// and its event: evidence_required and submitted move no money; won
// releases the hold; lost and expired charge it back with the fine and the
// fee. Final states never change (invalid_state).
func (s *Service) moveDispute(ctx context.Context, tx Tx, d *Dispute, to DisputeStatus, resolution string) error {
	if !d.Status.CanBecome(to) {
		return Errorf(CodeInvalidState, "a dispute in status %s cannot become %s", d.Status, to)
	}
	if to == DisputeSubmitted && len(d.Evidence) == 0 {
		return Errorf(CodeInvalidState, "the dispute has no evidence attached to send to the bank")
	}
	if err := checkText("resolution", resolution, 0, 512); err != nil {
		return err
	}
	shop, err := tx.ShopGet(ctx, d.ShopID)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	d.Status = to
	if resolution != "" {
		d.Resolution = resolution
	}
	event := EventDisputeClosed
	switch to {
	case DisputeEvidenceRequired:
		event = EventDisputeEvidenceRequired
	case DisputeSubmitted:
		d.SubmittedAt, event = &now, EventDisputeSubmitted
		if _, ok := s.responderOf(d); ok {
			if err := s.jobs.Enqueue(ctx, tx, DisputeSubmitArgs{DisputeID: d.ID}, now); err != nil {
				return err
			}
		}
	default:
		d.ClosedAt = &now
		pay, err := tx.PaymentGetForUpdate(ctx, d.PaymentID)
		if err != nil {
			return err
		}
		if _, err := tx.MerchantGetForUpdate(ctx, d.MerchantID); err != nil {
			return err
		}
		if to == DisputeWon {
			err = s.releaseDispute(ctx, tx, pay, d)
		} else {
			err = s.chargeBack(ctx, tx, shop, pay, d)
		}
		if err != nil {
			return err
		}
		if err := tx.PaymentUpdate(ctx, pay); err != nil {
			return err
		}
		if err := s.autoFreeze(ctx, tx, d.MerchantID, d.Test); err != nil {
			return err
		}
	}
	if err := tx.DisputeUpdate(ctx, d); err != nil {
		return err
	}
	return s.disputeEvent(ctx, tx, shop, d, event)
}
