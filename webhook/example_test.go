package webhook_test

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"sync"
	"time"

	"github.com/paydhq/payd/webhook"
)

// seen remembers processed event ids: the same event may arrive more than
// once (retries, resend), so a handler deduplicates on the id. A real
// handler keeps this in its database, next to the effect of the event.
var seen sync.Map

// Example shows a handler that verifies each delivery, answers 400 when the
// signature does not hold, and processes each event once.
func Example() {
	secrets := []string{"whsec_..."} // two during a rotation: the new and the old
	http.HandleFunc("/payd-hook", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "cannot read body", http.StatusBadRequest)
			return
		}
		// Verify the raw bytes as received: decoding and encoding the JSON
		// again would change them and break the signature.
		if err := webhook.Verify(r.Header.Get(webhook.SignatureHeader), body, secrets, time.Now()); err != nil {
			switch {
			case errors.Is(err, webhook.ErrTimestamp):
				log.Printf("stale or replayed delivery: %v", err)
			case errors.Is(err, webhook.ErrNoMatch):
				log.Printf("signature does not match: %v", err)
			}
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		id := r.Header.Get(webhook.EventIDHeader)
		if _, dup := seen.LoadOrStore(id, true); dup {
			w.WriteHeader(http.StatusOK) // already processed: acknowledge
			return
		}
		// ... decode body, look at data.object_type, re-fetch the object if
		// order matters, act on it ...
		w.WriteHeader(http.StatusOK)
	})
	fmt.Println("listening")
	// Output: listening
}
