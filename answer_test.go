package payd

import (
	"encoding/json"
	"testing"
	"time"
)

// TestAnswerIsTypedForTheFirstAnswerAndAReplay: the caller of an
// idempotent operation reads its answer as the operation's type, whether
// the effect ran in its request or the answer is a replay of the
// recorded bytes; the two read alike.
func TestAnswerIsTypedForTheFirstAnswerAndAReplay(t *testing.T) {
	t.Parallel()
	e := &WebhookEndpoint{ID: "whe_1", URL: "https://hooks.example.test/h", Events: []EventType{EventPaymentSucceeded},
		Status: WebhookActive, Secret: "whsec_x", CreatedAt: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	body, err := json.Marshal(e.View(true))
	if err != nil {
		t.Fatal(err)
	}
	first := &Response{Outcome: OutcomeCreated, Body: body, answer: e.View(true)}
	replayed := &Response{Outcome: OutcomeOK, Body: body, Replayed: true}
	for name, r := range map[string]*Response{"first": first, "replay": replayed} {
		got, err := Answer[WebhookEndpointJSON](r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.ID != e.ID || got.Secret != e.Secret || !got.CreatedAt.Equal(e.CreatedAt) || len(got.Events) != 1 {
			t.Errorf("%s: %+v, want the endpoint with its secret", name, got)
		}
		if id := r.ObjectID(); id != e.ID {
			t.Errorf("%s: ObjectID %q, want %q", name, id, e.ID)
		}
	}
	if _, err := Answer[*EvidenceUploadJSON](&Response{Body: []byte(`[1]`)}); err == nil {
		t.Error("an answer of another shape read without an error")
	}
	if id := (&Response{Outcome: OutcomeAccepted}).ObjectID(); id != "" {
		t.Errorf("a 202 without a body names %q", id)
	}
}
