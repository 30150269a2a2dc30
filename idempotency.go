package payd

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"
)

// IdempotencyTTL is how long a key is remembered (Limits: Idempotency-Key).
const IdempotencyTTL = 24 * time.Hour

// IdempotencyRecord is the remembered outcome of a POST or PATCH. It is
// written in the transaction of the effect, so neither exists without the
// other. Only successful effects are remembered: a request that failed
// changed nothing, and retrying it with the same key runs it again.
type IdempotencyRecord struct {
	ShopID      string
	Mode        Mode
	Key         string
	RequestHash []byte
	Outcome     Outcome
	Body        []byte
	CreatedAt   time.Time
	ExpiresAt   time.Time
}

// Idempotency is what a request brings: its key and the hash of what it
// asks for (method, path and body).
type Idempotency struct {
	Key  string
	Hash []byte
}

// RequestHash hashes a request for idempotency comparison. A JSON body is
// compared by meaning, not by bytes: the same object with other whitespace
// or key order is the same request.
func RequestHash(method, path string, body []byte) []byte {
	h := sha256.New()
	h.Write([]byte(method + " " + path + "\n"))
	h.Write(canonicalJSON(body))
	return h.Sum(nil)
}

func canonicalJSON(body []byte) []byte {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return trimmed
	}
	out, err := json.Marshal(v) // map keys come out sorted
	if err != nil {
		return trimmed
	}
	return out
}

// Outcome is what an idempotent operation did. The adapter that answers
// the request chooses the status it is written with (package httpapi:
// 200, 201, 202, 204); a store keeps it with the record.
type Outcome int

// Outcomes of idempotent operations; zero is none (an operation that
// failed).
const (
	// OutcomeOK: the operation changed an object and returns it, or the
	// answer is the replay of a recorded one.
	OutcomeOK Outcome = iota + 1
	// OutcomeCreated: the operation created the object it returns.
	OutcomeCreated
	// OutcomeAccepted: the operation was taken and completes later.
	OutcomeAccepted
	// OutcomeNoContent: the operation returns nothing.
	OutcomeNoContent
)

// Response is the result of an idempotent operation as the API writes it:
// the first answer with its operation's outcome, a replay with
// OutcomeOK and Replayed set. Body is the answer's bytes, kept in the
// idempotency record and sent again by a replay; a caller that reads the
// answer (the dashboard) takes it typed with Answer.
type Response struct {
	Outcome  Outcome
	Body     []byte
	Replayed bool
	// answer is what the effect returned when it ran in this request; nil
	// for a replay, which has only the recorded bytes.
	answer any
}

// Answer is r's object as T, the type its operation answers
// (*PaymentJSON, WebhookEndpointJSON, *EvidenceUploadJSON...): the
// effect's own value when it ran in this request, or the recorded body
// read back into T for a replay.
func Answer[T any](r *Response) (T, error) {
	if v, ok := r.answer.(T); ok {
		return v, nil
	}
	var v T
	if err := json.Unmarshal(r.Body, &v); err != nil {
		return v, fmt.Errorf("read the answer as %T: %w", v, err)
	}
	return v, nil
}

// ObjectID is the id of the object r answers, "" when its answer has none
// (a simulate's 202).
func (r *Response) ObjectID() string { return bodyID(r.Body) }

// bodyID is the "id" member of an answer's bytes, "" when it has none.
func bodyID(body []byte) string {
	var obj struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(body, &obj) // an answer without an id names no object
	return obj.ID
}
