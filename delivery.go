package payd

import (
	"context"
	"slices"
	"time"
)

// retrySchedule is the waiting time before each retry of a failed delivery
// (Events: Delivery — Retries). A delivery is tried at once and then at
// these delays after each failure; when the last retry fails, the delivery
// is failed and the endpoint becomes failing.
var retrySchedule = [...]time.Duration{
	time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 4 * time.Hour,
	12 * time.Hour, 24 * time.Hour, 48 * time.Hour, 72 * time.Hour,
}

// RetrySchedule returns the contract's retry delays, a copy of its own.
func RetrySchedule() []time.Duration { return slices.Clone(retrySchedule[:]) }

// Delivery timeouts (Limits: Webhook acknowledgement, pre-check answer).
const (
	DeliveryTimeout = 10 * time.Second
	PrecheckTimeout = 5 * time.Second
	// MaxLoggedResponse is how much of a receiver's answer is kept.
	MaxLoggedResponse = 4 << 10
)

// WebhookDeliveryState is where one event's delivery to one endpoint is
// (WebhookDelivery.State). It is not the event's summary of all its
// deliveries (EventDeliveryStatus), though some values are spelled alike.
type WebhookDeliveryState string

// Delivery states of one event to one endpoint.
const (
	DeliveryStatePending   WebhookDeliveryState = "pending"
	DeliveryStateSucceeded WebhookDeliveryState = "succeeded"
	DeliveryStateFailed    WebhookDeliveryState = "failed"
	// DeliveryStateSkipped: the endpoint was disabled, failing or deleted
	// when the delivery was due; resend delivers it after revival.
	DeliveryStateSkipped WebhookDeliveryState = "skipped"
	// DeliveryStateResent: failed or skipped, then replaced by a resend to
	// its endpoint; the event's summary no longer counts it as failed.
	DeliveryStateResent WebhookDeliveryState = "resent"
)

// WebhookDeliveryStateAll returns every delivery state, in the order of a
// delivery's life.
func WebhookDeliveryStateAll() []WebhookDeliveryState {
	return []WebhookDeliveryState{DeliveryStatePending, DeliveryStateSucceeded, DeliveryStateFailed,
		DeliveryStateSkipped, DeliveryStateResent}
}

// WebhookDelivery is one event on its way to one endpoint.
type WebhookDelivery struct {
	ID               string               `json:"id"`
	EventID          string               `json:"event_id"`
	EndpointID       string               `json:"endpoint_id"`
	ShopID           string               `json:"shop_id"`
	Test             bool                 `json:"test"`
	State            WebhookDeliveryState `json:"state"`
	Attempts         int                  `json:"attempts"`
	LastResponseCode *int                 `json:"last_response_code,omitempty"`
	LastAttemptAt    *time.Time           `json:"last_attempt_at,omitempty"`
	NextAttemptAt    *time.Time           `json:"next_attempt_at,omitempty"`
	CreatedAt        time.Time            `json:"created_at"`
	// Trace is the trace context of the change that queued the delivery
	// (Config.TraceCarrierFunc), opaque to the domain: the sender's first
	// attempt continues that trace and a retry links to it. Empty when
	// tracing was off. It is stored with the document and never shown.
	Trace map[string]string `json:"trace,omitempty"`
	// DueAt is when the delivery is next sent; a claim moves it forward
	// by its lease.
	DueAt time.Time `json:"-"`
}

// Lateness is how long after it was due the delivery is sent at now:
// since its retry fell due, or since it was queued for its first
// attempt. A sender that keeps up keeps it near zero; it is the webhook
// lag an operator is alerted on (docs/alerts.md).
func (d *WebhookDelivery) Lateness(now time.Time) time.Duration {
	due := d.CreatedAt
	if d.NextAttemptAt != nil {
		due = *d.NextAttemptAt
	}
	return max(now.Sub(due), 0)
}

// DeliveryWork is a claimed delivery with what sending it needs. Event is
// nil when retention removed it, Endpoint when the endpoint was deleted.
type DeliveryWork struct {
	Delivery *WebhookDelivery
	Event    *Event
	Endpoint *WebhookEndpoint
}

// WebhookDeliveryClaimParams chooses the deliveries a sender claims: those
// pending and due at Now, oldest first, at most Limit in all, PerEndpoint
// of each endpoint (PerFastEndpoint of those in Fast), none of the
// endpoints in Exclude (their senders are busy). The endpoints in Slow are
// looked at apart from the others: a slow endpoint's backlog is older than
// everyone's new deliveries, and would otherwise fill the rows a claim
// looks at and hide the others' until it drained.
type WebhookDeliveryClaimParams struct {
	Now, LeaseUntil              time.Time
	Limit                        int
	PerEndpoint, PerFastEndpoint int
	Exclude, Fast, Slow          []string
}

// EventDeliveryChange moves an event's delivery counters: Added new
// deliveries, Attempts made, Finished deliveries (no longer pending), of
// them Failed (failed or skipped), Replaced failed ones a resend took the
// place of, and the latest attempt's time and answer.
type EventDeliveryChange struct {
	EventID                                     string
	Added, Attempts, Finished, Failed, Replaced int
	LastAttemptAt                               *time.Time
	LastResponseCode                            *int
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
	// RequestHeaders are the headers the attempt sent, the signature
	// among them, so that a merchant can check its verification against
	// exactly what arrived (the body is the event's, byte for byte).
	RequestHeaders map[string]string `json:"request_headers,omitempty"`
}

// WebhookDeliverArgs is the job of one delivery attempt in versions that
// queued deliveries as jobs; such jobs left in a database are run as a
// nudge to the delivery sender, which owns the delivery now.
type WebhookDeliverArgs struct {
	DeliveryID string `json:"delivery_id"`
}

// Kind names the job.
func (WebhookDeliverArgs) Kind() string { return "webhook_deliver" }

// SendResult is what a receiver answered.
type SendResult struct {
	StatusCode int
	// StatusText is the standard text of StatusCode ("Bad Gateway"),
	// empty for a code without one; the attempt's error quotes it.
	StatusText string
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

// subscribers are the endpoints an event goes to: the active endpoints of
// its shop and mode subscribed to its type.
func (s *Service) subscribers(ctx context.Context, tx Tx, ev *Event) ([]*WebhookEndpoint, error) {
	if ev.Type == EventPaymentAuthorizeRequest {
		return nil, nil // sent synchronously by the pre-check, never queued
	}
	endpoints, err := tx.WebhookEndpointList(ctx, ev.ShopID, ev.Test)
	if err != nil {
		return nil, err
	}
	out := endpoints[:0]
	for _, e := range endpoints {
		if e.Status == WebhookActive && e.Subscribed(ev.Type) {
			out = append(out, e)
		}
	}
	return out, nil
}

// queueDeliveries writes a delivery, due now, for each endpoint, in the
// event's transaction, and wakes the sender once the transaction commits.
func (s *Service) queueDeliveries(ctx context.Context, tx Tx, ev *Event, endpoints []*WebhookEndpoint) error {
	if len(endpoints) == 0 {
		return nil
	}
	now := s.clock.Now()
	var trace map[string]string
	if s.traceCarrier != nil {
		trace = s.traceCarrier(ctx)
	}
	list := make([]*WebhookDelivery, len(endpoints))
	for i, e := range endpoints {
		list[i] = &WebhookDelivery{ID: s.ids.NewFor(PrefixDelivery, now, ev.MerchantID), EventID: ev.ID, EndpointID: e.ID, ShopID: ev.ShopID,
			Test: ev.Test, State: DeliveryStatePending, CreatedAt: now, DueAt: now, Trace: trace}
	}
	if err := tx.WebhookDeliveryInsert(ctx, list...); err != nil {
		return err
	}
	tx.AfterCommit(s.deliveriesQueued)
	return nil
}

// KickDeliveries wakes the webhook dispatcher to look for due deliveries
// now (after a jump of the test clock, or a job that made some due).
func (s *Service) KickDeliveries() { s.deliveriesQueued() }

// signingSecrets are the secrets that sign a delivery now: the current one
// and, for SecretOverlap after a rotation, the previous one.
func (e *WebhookEndpoint) signingSecrets(now time.Time) []string {
	out := []string{e.Secret}
	if e.PrevSecret != "" && e.PrevSecretUntil != nil && now.Before(*e.PrevSecretUntil) {
		out = append(out, e.PrevSecret)
	}
	return out
}
