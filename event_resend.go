package payd

import "context"

// ResendEvent delivers an event again, now, to every active endpoint of
// its shop and mode subscribed to its type. The event itself never
// changes; the answer is the event with its delivery summary. A test
// event also moves to the end of its shop's sandbox feed, so that a
// running `payd listen` forwards it again (docs/sandbox.md).
func (s *Service) ResendEvent(ctx context.Context, p *Principal, idem Idempotency, id string) (*Response, error) {
	return s.idempotent(ctx, AuditResendEvent, p, idem, func(tx Tx) (Outcome, any, error) {
		ev, err := tx.EventGet(ctx, p.Shop.ID, p.Test(), id)
		if err != nil {
			return 0, nil, notFoundAs(err, "event")
		}
		if ev, err = s.resend(ctx, tx, ev); err != nil {
			return 0, nil, err
		}
		return OutcomeAccepted, ev.WithDelivery(), nil
	})
}

// ResendEventAsOperator is ResendEvent for the operator's support: any
// merchant's event by its id. Its merchant's audit log records the resend
// as the operator's (an entry without a user), beside the operator audit
// entry that names the person. It is not idempotent: a second resend
// delivers once more, which a merchant tells apart by the event's id as
// it does any retry.
func (s *Service) ResendEventAsOperator(ctx context.Context, id string) (ev *Event, err error) {
	if !ValidID(PrefixEvent, id) {
		return nil, NotFound("event")
	}
	err = s.store.Tx(ctx, func(tx Tx) error {
		found, err := tx.EventGetAny(ctx, id)
		if err != nil {
			return notFoundAs(err, "event")
		}
		NoteOperatorObject(ctx, found.ID, found.MerchantID)
		if err := s.auditShop(ctx, tx, nil, found.MerchantID, found.ShopID, ModeOf(found.Test), AuditResendEvent, found.ID); err != nil {
			return err
		}
		// A test event a sandbox reset deletes meanwhile is gone: 404.
		ev, err = s.resend(ctx, tx, found)
		return notFoundAs(err, "event")
	})
	return ev, withOp("resend event", err)
}

// resend queues ev's deliveries again and returns it as it now reads.
func (s *Service) resend(ctx context.Context, tx Tx, ev *Event) (*Event, error) {
	if ev.Test {
		if err := tx.EventResequence(ctx, ev.ShopID, ev.ID); err != nil {
			return nil, err
		}
	}
	endpoints, err := s.subscribers(ctx, tx, ev)
	if err != nil {
		return nil, err
	}
	if len(endpoints) > 0 {
		// Before the new deliveries are queued, so that only the earlier
		// ones are looked at.
		replaced, err := s.replaceFailedDeliveries(ctx, tx, ev.ID, endpoints)
		if err != nil {
			return nil, err
		}
		if err := s.queueDeliveries(ctx, tx, ev, endpoints); err != nil {
			return nil, err
		}
		change := EventDeliveryChange{EventID: ev.ID, Added: len(endpoints), Replaced: replaced}
		if err := tx.EventDeliveryCount(ctx, []EventDeliveryChange{change}); err != nil {
			return nil, err
		}
	}
	return tx.EventGet(ctx, ev.ShopID, ev.Test, ev.ID)
}

// replaceFailedDeliveries marks the event's failed or skipped deliveries to
// the endpoints a resend goes to as resent, and returns how many it marked:
// the new deliveries take their place in the event's summary, so an event
// resent successfully reads succeeded. A delivery still pending keeps its
// retries and counts as it ends.
func (s *Service) replaceFailedDeliveries(ctx context.Context, tx Tx, eventID string, endpoints []*WebhookEndpoint) (int, error) {
	list, err := tx.WebhookDeliveryListByEvent(ctx, eventID)
	if err != nil {
		return 0, err
	}
	resent := map[string]bool{}
	for _, e := range endpoints {
		resent[e.ID] = true
	}
	var replaced []*WebhookDelivery
	for _, d := range list {
		if resent[d.EndpointID] && (d.State == DeliveryStateFailed || d.State == DeliveryStateSkipped) {
			d.State = DeliveryStateResent
			replaced = append(replaced, d)
		}
	}
	if len(replaced) == 0 {
		return 0, nil
	}
	// Two resends at once replace each failure once: the store changes
	// only deliveries still failed or skipped and says which it changed.
	ids, err := tx.WebhookDeliveryReplace(ctx, replaced)
	return len(ids), err
}

// EventAttempts returns the attempt log of an event, for operators.
func (s *Service) EventAttempts(ctx context.Context, eventID string) ([]*DeliveryAttempt, error) {
	return read(ctx, s, "list event attempts", func(tx Tx) ([]*DeliveryAttempt, error) { return tx.DeliveryAttemptListByEvent(ctx, eventID) })
}
