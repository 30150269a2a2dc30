package payd

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"time"
)

// EventType is one value of the contract's event type list.
type EventType string

// Event types of the contract (Events: Types). The list only grows, with a
// dated entry in docs/changelog.md.
const (
	EventPaymentWaitingForCapture EventType = "payment.waiting_for_capture"
	EventPaymentSucceeded         EventType = "payment.succeeded"
	EventPaymentCanceled          EventType = "payment.canceled"
	EventPaymentAuthorizeRequest  EventType = "payment.authorize_request"
	EventRefundSucceeded          EventType = "refund.succeeded"
	EventRefundCanceled           EventType = "refund.canceled"
	EventPaymentLinkPaid          EventType = "payment_link.paid"
	EventPayoutSucceeded          EventType = "payout.succeeded"
	EventPayoutCanceled           EventType = "payout.canceled"
	EventSettlementPaid           EventType = "settlement.paid"
	EventSettlementFrozen         EventType = "settlement.frozen"
	EventSettlementUnfrozen       EventType = "settlement.unfrozen"
	EventDisputeOpened            EventType = "dispute.opened"
	EventDisputeEvidenceRequired  EventType = "dispute.evidence_required"
	// EventDisputeSubmitted is ours (docs/changelog.md, 2026-11-25): the
	// evidence went to the bank.
	EventDisputeSubmitted EventType = "dispute.submitted"
	EventDisputeClosed    EventType = "dispute.closed"
)

// EventTypeAll returns every known type, in the contract's order.
func EventTypeAll() []EventType {
	return []EventType{
		EventPaymentWaitingForCapture, EventPaymentSucceeded, EventPaymentCanceled,
		EventPaymentAuthorizeRequest, EventRefundSucceeded, EventRefundCanceled,
		EventPaymentLinkPaid, EventPayoutSucceeded, EventPayoutCanceled,
		EventSettlementPaid, EventSettlementFrozen, EventSettlementUnfrozen,
		EventDisputeOpened, EventDisputeEvidenceRequired, EventDisputeSubmitted, EventDisputeClosed,
	}
}

// Valid reports whether t is a known event type.
func (t EventType) Valid() bool { return slices.Contains(EventTypeAll(), t) }

// EventRetention is how long events are kept (Limits: Event retention).
const EventRetention = 365 * 24 * time.Hour

// Event is a stored event. Body is the event JSON exactly as it is shown and
// delivered: it is rendered once, at creation, and never re-rendered, so every
// delivery attempt and resend carries the same bytes.
type Event struct {
	ID         string
	ShopID     string
	MerchantID string
	Test       bool
	Type       EventType
	ObjectID   string
	CreatedAt  time.Time
	Body       json.RawMessage
	Delivery   EventDelivery
	// Deliveries is the number of deliveries queued with the event when
	// it is inserted; its counters start from it.
	Deliveries int
}

// EventDeliveryStatus is the summary of all an event's deliveries
// (EventDelivery.Status), not the state of one of them
// (WebhookDeliveryState).
type EventDeliveryStatus string

// Delivery states of an event's summary. The contract names `pending`; the
// others are ours (docs/events.md).
const (
	DeliveryPending   EventDeliveryStatus = "pending"
	DeliverySucceeded EventDeliveryStatus = "succeeded"
	DeliveryFailed    EventDeliveryStatus = "failed"
	DeliveryNone      EventDeliveryStatus = "no_endpoints"
)

// EventDeliveryStatusAll returns every summary status.
func EventDeliveryStatusAll() []EventDeliveryStatus {
	return []EventDeliveryStatus{DeliveryPending, DeliverySucceeded, DeliveryFailed, DeliveryNone}
}

// EventDelivery is the delivery summary shown in `GET /events`.
type EventDelivery struct {
	Status           EventDeliveryStatus `json:"status"`
	Attempts         int                 `json:"attempts"`
	LastResponseCode *int                `json:"last_response_code,omitempty"`
	LastAttemptAt    *time.Time          `json:"last_attempt_at,omitempty"`
}

type eventEnvelope struct {
	ID        string    `json:"id"`
	Type      EventType `json:"type"`
	CreatedAt time.Time `json:"created_at"`
	Test      bool      `json:"test"`
	Data      struct {
		ObjectType string `json:"object_type"`
		Object     any    `json:"object"`
	} `json:"data"`
}

// NewEventParams describes an event to record.
type NewEventParams struct {
	Shop       *Shop
	Test       bool
	Type       EventType
	ObjectType string
	ObjectID   string
	Object     any
}

// newEvent renders an event's body from the object as it is now.
func (s *Service) newEvent(p NewEventParams) (*Event, error) {
	now := s.clock.Now()
	env := eventEnvelope{ID: s.ids.NewFor(PrefixEvent, now, p.Shop.MerchantID), Type: p.Type, CreatedAt: now, Test: p.Test}
	env.Data.ObjectType = p.ObjectType
	env.Data.Object = p.Object
	body, err := json.Marshal(env)
	if err != nil {
		return nil, err
	}
	return &Event{
		ID: env.ID, ShopID: p.Shop.ID, MerchantID: p.Shop.MerchantID, Test: p.Test,
		Type: p.Type, ObjectID: p.ObjectID, CreatedAt: now, Body: body,
		Delivery: EventDelivery{Status: DeliveryPending},
	}, nil
}

// RecordEvent writes an event in tx, the transaction of the change it
// reports, with a delivery for every subscribed endpoint.
func (s *Service) RecordEvent(ctx context.Context, tx Tx, p NewEventParams) (*Event, error) {
	ev, err := s.newEvent(p)
	if err != nil {
		return nil, err
	}
	endpoints, err := s.subscribers(ctx, tx, ev)
	if err != nil {
		return nil, err
	}
	ev.Deliveries = len(endpoints)
	if ev.Deliveries == 0 {
		ev.Delivery.Status = DeliveryNone
	}
	if err := tx.EventInsert(ctx, ev); err != nil {
		return nil, err
	}
	return ev, s.queueDeliveries(ctx, tx, ev, endpoints)
}

// WithDelivery returns the stored event body with its delivery summary
// added, leaving the stored bytes themselves untouched.
func (e *Event) WithDelivery() json.RawMessage {
	return e.AppendWithDelivery(make([]byte, 0, len(e.Body)+deliveryLen))
}

// deliveryLen is about the longest delivery summary AppendWithDelivery
// writes, for sizing a buffer.
const deliveryLen = 128

// AppendWithDelivery appends what WithDelivery returns to dst. The summary
// is written by hand, as encoding/json writes the EventDelivery (the
// status is one of a fixed list, the time in RFC 3339 with nanoseconds):
// an events page of 100 spent more on encoding its summaries with
// reflection than on reading its rows.
func (e *Event) AppendWithDelivery(dst []byte) []byte {
	body := bytes.TrimRight(e.Body, " \n")
	dst = append(dst, body[:len(body)-1]...)
	d := e.Delivery
	dst = append(dst, `,"delivery":{"status":"`...)
	dst = append(dst, d.Status...)
	dst = append(dst, `","attempts":`...)
	dst = strconv.AppendInt(dst, int64(d.Attempts), 10)
	if d.LastResponseCode != nil {
		dst = append(dst, `,"last_response_code":`...)
		dst = strconv.AppendInt(dst, int64(*d.LastResponseCode), 10)
	}
	if d.LastAttemptAt != nil {
		dst = append(dst, `,"last_attempt_at":"`...)
		dst = d.LastAttemptAt.AppendFormat(dst, time.RFC3339Nano)
		dst = append(dst, '"')
	}
	return append(dst, "}}"...)
}

// RecordMerchantEvent records a merchant-level event (settlement.*) once
// per shop of the merchant: each with its own id, the object identical, each
// delivered to its own shop's endpoints (Events: merchant-level events).
func (s *Service) RecordMerchantEvent(ctx context.Context, tx Tx, merchantID string, test bool, t EventType, objectType, objectID string, object any) ([]*Event, error) {
	shops, err := tx.ShopListByMerchant(ctx, merchantID)
	if err != nil {
		return nil, err
	}
	out := make([]*Event, 0, len(shops))
	for _, shop := range shops {
		ev, err := s.RecordEvent(ctx, tx, NewEventParams{Shop: shop, Test: test, Type: t, ObjectType: objectType, ObjectID: objectID, Object: object})
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}

// GetEvent returns an event of the principal's shop and mode.
func (s *Service) GetEvent(ctx context.Context, p *Principal, id string) (e *Event, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		e, err = tx.EventGet(ctx, p.Shop.ID, p.Test(), id)
		return err
	})
	return e, notFoundAs(err, "event")
}

// ListEvents lists events of the principal's shop and mode, newest first.
func (s *Service) ListEvents(ctx context.Context, p *Principal, params *EventListParams) (Page[*Event], error) {
	params.ShopID, params.Test = p.Shop.ID, p.Test()
	return read(ctx, s, "list events", func(tx Tx) (Page[*Event], error) { return tx.EventList(ctx, params) })
}
