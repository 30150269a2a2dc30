package payd

import "context"

// SendTestEvent delivers one event again to one endpoint only, now: the
// newest event of the endpoint's shop and mode of a type it subscribes
// to. It is the dashboard's "send a test event" (docs/webhooks.md): a real
// event, with the bytes and the signatures every delivery of it carries,
// so a receiver is tested against exactly what it will get; receivers
// deduplicate on the event's id (Events: Duplicates), so the repeat is
// harmless. The contract has no event type for a test, and one made up
// would reach receivers that do not expect it. The answer is the event
// with its delivery summary, as a resend's.
func (s *Service) SendTestEvent(ctx context.Context, p *Principal, idem Idempotency, endpointID string) (*Response, error) {
	return s.idempotent(ctx, AuditSendTestEvent, p, idem, func(tx Tx) (Outcome, any, error) {
		e, err := tx.WebhookEndpointGet(ctx, p.Shop.ID, p.Test(), endpointID)
		if err != nil {
			return 0, nil, notFoundAs(err, "webhook endpoint")
		}
		if e.Status == WebhookDisabled {
			return 0, nil, Errorf(CodeInvalidState, "the endpoint is disabled; enable it to send it events")
		}
		var ev *Event
		for _, t := range e.Events {
			if t == EventPaymentAuthorizeRequest {
				continue // answered synchronously by the pre-check, never queued
			}
			page, err := tx.EventList(ctx, &EventListParams{ListParams: ListParams{Limit: 1}, ShopID: p.Shop.ID, Test: p.Test(), Type: t})
			if err != nil {
				return 0, nil, err
			}
			if len(page.Items) == 1 && (ev == nil || page.Items[0].CreatedAt.After(ev.CreatedAt)) {
				ev = page.Items[0]
			}
		}
		if ev == nil {
			return 0, nil, Errorf(CodeInvalidState, "there is no event of the types this endpoint subscribes to yet")
		}
		if err := s.queueDeliveries(ctx, tx, ev, []*WebhookEndpoint{e}); err != nil {
			return 0, nil, err
		}
		if err := tx.EventDeliveryCount(ctx, []EventDeliveryChange{{EventID: ev.ID, Added: 1}}); err != nil {
			return 0, nil, err
		}
		if ev, err = tx.EventGet(ctx, p.Shop.ID, p.Test(), ev.ID); err != nil {
			return 0, nil, err
		}
		// The answer is the event; the entry names the endpoint tested.
		return OutcomeAccepted, audited{answer: ev.WithDelivery(), objectID: e.ID, detail: "event " + ev.ID}, nil
	})
}
