package operator

import (
	"time"

	"github.com/paydhq/payd"
)

// deliveryAttemptJSON is one POST of an event to an endpoint: when, the
// headers sent, the status code, how long it took, the kept start of the
// answer, the error.
type deliveryAttemptJSON struct {
	ID             string            `json:"id"`
	DeliveryID     string            `json:"delivery_id"`
	EventID        string            `json:"event_id"`
	EndpointID     string            `json:"endpoint_id"`
	URL            string            `json:"url"`
	At             time.Time         `json:"at"`
	StatusCode     int               `json:"status_code,omitempty"`
	DurationMS     int64             `json:"duration_ms"`
	ResponseBody   string            `json:"response_body,omitempty"`
	Error          string            `json:"error,omitempty"`
	RequestHeaders map[string]string `json:"request_headers,omitempty"`
}

func deliveryAttemptView(a *payd.DeliveryAttempt) deliveryAttemptJSON {
	return deliveryAttemptJSON{ID: a.ID, DeliveryID: a.DeliveryID, EventID: a.EventID, EndpointID: a.EndpointID, URL: a.URL,
		At: a.At, StatusCode: a.StatusCode, DurationMS: a.DurationMS, ResponseBody: a.ResponseBody, Error: a.Error,
		RequestHeaders: a.RequestHeaders}
}

// eventJSON is an event as a payment's lookup lists it: what it was and
// how its deliveries stand, without its body.
type eventJSON struct {
	Object    string             `json:"object"`
	ID        string             `json:"id"`
	Type      payd.EventType     `json:"type"`
	CreatedAt time.Time          `json:"created_at"`
	Delivery  payd.EventDelivery `json:"delivery"`
}

func eventView(e *payd.Event) eventJSON {
	return eventJSON{Object: "event", ID: e.ID, Type: e.Type, CreatedAt: e.CreatedAt, Delivery: e.Delivery}
}
