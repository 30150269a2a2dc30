package payd

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
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
	Status      int
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

// Response is the outcome of an idempotent operation as the API writes it.
type Response struct {
	Status   int
	Body     []byte
	Replayed bool
}
