package payd

import (
	"context"
	"errors"
	"time"
)

// RetrySchedule is the waiting time before each retry of a failed delivery
// (Events: Delivery — Retries). A delivery is tried at once and then at
// these delays after each failure; when the last retry fails, the delivery
// is failed and the endpoint becomes failing.
var RetrySchedule = []time.Duration{
	time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 4 * time.Hour,
	12 * time.Hour, 24 * time.Hour, 48 * time.Hour, 72 * time.Hour,
}

// Delivery timeouts (Limits: Webhook acknowledgement, pre-check answer).
const (
	DeliveryTimeout = 10 * time.Second
	PrecheckTimeout = 5 * time.Second
	// MaxLoggedResponse is how much of a receiver's answer is kept.
	MaxLoggedResponse = 4 << 10
)

// Delivery states of one event to one endpoint.
const (
	DeliveryStatePending   = "pending"
	DeliveryStateSucceeded = "succeeded"
	DeliveryStateFailed    = "failed"
	// DeliveryStateSkipped: the endpoint was disabled, failing or deleted
	// when the delivery was due; resend delivers it after revival.
	DeliveryStateSkipped = "skipped"
)

// WebhookDelivery is one event on its way to one endpoint.
type WebhookDelivery struct {
	ID               string     `json:"id"`
	EventID          string     `json:"event_id"`
	EndpointID       string     `json:"endpoint_id"`
	ShopID           string     `json:"shop_id"`
	Test             bool       `json:"test"`
	State            string     `json:"state"`
	Attempts         int        `json:"attempts"`
	LastResponseCode *int       `json:"last_response_code,omitempty"`
	LastAttemptAt    *time.Time `json:"last_attempt_at,omitempty"`
	NextAttemptAt    *time.Time `json:"next_attempt_at,omitempty"`
	CreatedAt        time.Time  `json:"created_at"`
}

// DeliveryAttempt is one POST of an event to an endpoint, for the operator's
// attempt log.
type DeliveryAttempt struct {
	ID           string    `json:"id"`
	DeliveryID   string    `json:"delivery_id"`
	EventID      string    `json:"event_id"`
	EndpointID   string    `json:"endpoint_id"`
	URL          string    `json:"url"`
	At           time.Time `json:"at"`
	StatusCode   int       `json:"status_code,omitempty"`
	DurationMS   int64     `json:"duration_ms"`
	ResponseBody string    `json:"response_body,omitempty"`
	Error        string    `json:"error,omitempty"`
}

// WebhookDeliverArgs is the job of one delivery attempt.
type WebhookDeliverArgs struct {
	DeliveryID string `json:"delivery_id"`
}

// Kind names the job.
func (WebhookDeliverArgs) Kind() string { return "webhook_deliver" }

// SendResult is what a receiver answered.
type SendResult struct {
	StatusCode int
	Body       []byte
	Duration   time.Duration
}

// Sender posts signed deliveries to merchants' endpoints.
type Sender interface {
	// Send posts body to url with headers, within timeout; redirects are
	// not followed and the destination's addresses are checked at connect
	// time.
	Send(ctx context.Context, url string, headers map[string]string, body []byte, timeout time.Duration) (*SendResult, error)
}

// fanOut creates a delivery, and its job, for every active endpoint of the
// event's shop and mode subscribed to its type, in the event's transaction.
// It returns the number of deliveries.
func (s *Service) fanOut(ctx context.Context, tx Tx, ev *Event) (int, error) {
	if ev.Type == EventPaymentAuthorizeRequest {
		return 0, nil // sent synchronously by the pre-check, never queued
	}
	endpoints, err := tx.WebhookEndpointList(ctx, ev.ShopID, ev.Test)
	if err != nil {
		return 0, err
	}
	n := 0
	now := s.clock.Now()
	for _, e := range endpoints {
		if e.Status != WebhookActive || !e.Subscribed(ev.Type) {
			continue
		}
		d := &WebhookDelivery{ID: s.ids.New("dlv_", now), EventID: ev.ID, EndpointID: e.ID, ShopID: ev.ShopID,
			Test: ev.Test, State: DeliveryStatePending, CreatedAt: now}
		if err := tx.WebhookDeliveryInsert(ctx, d); err != nil {
			return n, err
		}
		if err := s.jobs.Enqueue(ctx, tx, WebhookDeliverArgs{DeliveryID: d.ID}, time.Time{}); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// summarize recomputes an event's delivery summary from its deliveries.
func summarize(list []*WebhookDelivery) EventDelivery {
	sum := EventDelivery{Status: DeliveryNone}
	if len(list) == 0 {
		return sum
	}
	pending, failed := false, false
	for _, d := range list {
		sum.Attempts += d.Attempts
		if d.LastAttemptAt != nil && (sum.LastAttemptAt == nil || d.LastAttemptAt.After(*sum.LastAttemptAt)) {
			sum.LastAttemptAt, sum.LastResponseCode = d.LastAttemptAt, d.LastResponseCode
		}
		switch d.State {
		case DeliveryStatePending:
			pending = true
		case DeliveryStateFailed, DeliveryStateSkipped:
			failed = true
		}
	}
	switch {
	case pending:
		sum.Status = DeliveryPending
	case failed:
		sum.Status = DeliveryFailed
	default:
		sum.Status = DeliverySucceeded
	}
	return sum
}

func (s *Service) refreshSummary(ctx context.Context, tx Tx, eventID string) error {
	// Lock the event first: two attempts of one event finishing together
	// would otherwise each read the other's delivery as it was and write a
	// stale summary (PostgreSQL, read committed).
	if err := tx.EventLock(ctx, eventID); err != nil {
		return err
	}
	list, err := tx.WebhookDeliveryListByEvent(ctx, eventID)
	if err != nil {
		return err
	}
	return tx.EventDeliveryUpdate(ctx, eventID, summarize(list))
}

// signingSecrets are the secrets that sign a delivery now: the current one
// and, for SecretOverlap after a rotation, the previous one.
func (e *WebhookEndpoint) signingSecrets(now time.Time) []string {
	out := []string{e.Secret}
	if e.PrevSecret != "" && e.PrevSecretUntil != nil && now.Before(*e.PrevSecretUntil) {
		out = append(out, e.PrevSecret)
	}
	return out
}

var errDeliveryDone = errors.New("delivery already final")
