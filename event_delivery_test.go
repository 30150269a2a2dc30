package payd

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// TestEventWithDelivery: the summary written by hand is the one
// encoding/json writes for EventDelivery, spliced into the body as its
// last member, for every shape the summary takes.
func TestEventWithDelivery(t *testing.T) {
	code := func(c int) *int { return &c }
	at := func(s string) *time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	moscow := time.FixedZone("MSK", 3*3600)
	local := time.Date(2026, 11, 30, 9, 15, 0, 120000000, moscow)
	body := json.RawMessage(`{"id":"evt_1","type":"payment.succeeded","data":{"object":{"amount":100}}}`)
	for _, tc := range []struct {
		name string
		body json.RawMessage
		d    EventDelivery
	}{
		{"pending, no attempt", body, EventDelivery{Status: DeliveryPending}},
		{"no endpoints", body, EventDelivery{Status: DeliveryNone}},
		{"failed with a code", body, EventDelivery{Status: DeliveryFailed, Attempts: 7, LastResponseCode: code(503), LastAttemptAt: at("2026-11-30T06:00:00Z")}},
		{"succeeded, nanoseconds", body, EventDelivery{Status: DeliverySucceeded, Attempts: 1, LastResponseCode: code(200), LastAttemptAt: at("2026-11-30T06:00:00.123456789Z")}},
		{"attempt without an answer", body, EventDelivery{Status: DeliveryPending, Attempts: 2, LastAttemptAt: at("2026-11-30T06:00:00.5Z")}},
		{"a time with an offset", body, EventDelivery{Status: DeliveryPending, Attempts: 1, LastAttemptAt: &local}},
		{"body stored with a newline", append(append(json.RawMessage{}, body...), " \n"...), EventDelivery{Status: DeliveryPending}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &Event{Body: tc.body, Delivery: tc.d}
			summary, err := json.Marshal(tc.d)
			if err != nil {
				t.Fatal(err)
			}
			want := append(append(append([]byte{}, body[:len(body)-1]...), `,"delivery":`...), summary...)
			want = append(want, '}')
			if got := e.WithDelivery(); !bytes.Equal(got, want) {
				t.Errorf("WithDelivery:\n got %s\nwant %s", got, want)
			}
			prefix := []byte(`{"x":1},`)
			if got := e.AppendWithDelivery(bytes.Clone(prefix)); !bytes.Equal(got, append(prefix, want...)) {
				t.Errorf("AppendWithDelivery kept not what was before it: %s", got)
			}
			if !bytes.Equal(e.Body, tc.body) {
				t.Errorf("the stored body changed: %s", e.Body)
			}
		})
	}
}
