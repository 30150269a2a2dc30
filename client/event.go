package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"time"

	"github.com/paydhq/payd/webhook"
)

// Event is an event of the service, as delivered to a webhook endpoint or
// read from /events, with its object decoded by kind.
type Event struct {
	ID        string         `json:"id"`
	Type      EventType      `json:"type"`
	CreatedAt time.Time      `json:"created_at"`
	Test      bool           `json:"test"`
	Data      EventObject    `json:"data"`
	Delivery  *EventDelivery `json:"delivery,omitempty"`
}

// EventObject is the object of an event at the moment of the event.
// ObjectType alone says what Object holds: *Payment ("payment"), *Refund
// ("refund"), *Dispute ("dispute"), *Settlement ("settlement"),
// *SettlementStatus ("settlement_status"), *PaymentLink ("payment_link") or
// *Payout ("payout"). An object type this client does not know leaves
// Object a json.RawMessage: the contract asks receivers to acknowledge such
// events and skip them.
type EventObject struct {
	ObjectType string
	Object     any
}

// UnmarshalJSON decodes the object by its object_type.
func (o *EventObject) UnmarshalJSON(b []byte) error {
	var head struct {
		ObjectType string          `json:"object_type"`
		Object     json.RawMessage `json:"object"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	var obj any
	switch head.ObjectType {
	case "payment":
		obj = new(Payment)
	case "refund":
		obj = new(Refund)
	case "dispute":
		obj = new(Dispute)
	case "settlement":
		obj = new(Settlement)
	case "settlement_status":
		obj = new(SettlementStatus)
	case "payment_link":
		obj = new(PaymentLink)
	case "payout":
		obj = new(Payout)
	default:
		o.ObjectType, o.Object = head.ObjectType, head.Object
		return nil
	}
	if err := json.Unmarshal(head.Object, obj); err != nil {
		return fmt.Errorf("client: event object %s: %w", head.ObjectType, err)
	}
	o.ObjectType, o.Object = head.ObjectType, obj
	return nil
}

// MarshalJSON writes the object back in the contract's shape.
func (o EventObject) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ObjectType string `json:"object_type"`
		Object     any    `json:"object"`
	}{o.ObjectType, o.Object})
}

// ConstructEvent verifies a webhook delivery and decodes its event. body is
// the raw request body, exactly as received (read it before any JSON
// decoding); header is the X-Service-Signature header's value; secrets
// are the endpoint's secrets (during a rotation, the old and the new).
// It refuses a signature that matches none of them, and one whose
// timestamp is more than 300 seconds from now (a replay); the errors are
// those of package webhook (webhook.ErrNoMatch, webhook.ErrTimestamp, ...),
// to be answered with 400. Deduplicate on the event's ID: deliveries may
// repeat.
func ConstructEvent(body []byte, header string, secrets ...string) (*Event, error) {
	return constructEventAt(body, header, secrets, time.Now())
}

func constructEventAt(body []byte, header string, secrets []string, now time.Time) (*Event, error) {
	if err := webhook.Verify(header, body, secrets, now); err != nil {
		return nil, err
	}
	var ev Event
	if err := json.Unmarshal(body, &ev); err != nil {
		return nil, fmt.Errorf("client: decode the event: %w", err)
	}
	return &ev, nil
}

// GetEvent reads an event of the last 30 days.
func (c *Client) GetEvent(ctx context.Context, id string, opts ...RequestEditorFn) (*Event, error) {
	r, err := c.raw.GetEventWithResponse(ctx, id, opts...)
	if err != nil {
		return nil, err
	}
	return decodeEvent(r.StatusCode(), r.Body)
}

// ResendEvent delivers an event again to the shop's webhook endpoints.
func (c *Client) ResendEvent(ctx context.Context, id string, opts ...RequestEditorFn) (*Event, error) {
	r, err := c.raw.ResendEventWithResponse(ctx, id, &ResendEventParams{}, opts...)
	if err != nil {
		return nil, err
	}
	return decodeEvent(r.StatusCode(), r.Body)
}

// ListEvents yields every event that matches p, across all pages.
func (c *Client) ListEvents(ctx context.Context, p ListEventsParams, opts ...RequestEditorFn) iter.Seq2[Event, error] {
	return pages(p.Cursor, func(cursor *string) ([]Event, *string, error) {
		q := p
		q.Cursor = cursor
		r, err := c.raw.ListEventsWithResponse(ctx, &q, opts...)
		if err != nil {
			return nil, nil, err
		}
		var page struct {
			Items      []Event `json:"items"`
			NextCursor *string `json:"next_cursor"`
		}
		if err := json.Unmarshal(r.Body, &page); err != nil {
			return nil, nil, fmt.Errorf("client: status %d: decode the events: %w", r.StatusCode(), err)
		}
		return page.Items, page.NextCursor, nil
	})
}

func decodeEvent(status int, b []byte) (*Event, error) {
	var ev Event
	if err := json.Unmarshal(b, &ev); err != nil {
		return nil, fmt.Errorf("client: status %d: decode the event: %w", status, err)
	}
	return &ev, nil
}
