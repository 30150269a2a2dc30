package httpapi

import (
	"net/http"
	"testing"

	"github.com/paydhq/payd"
)

// TestOutcomeStatus pins the status of every outcome: the answers of
// idempotent operations keep the statuses the contract gives them.
func TestOutcomeStatus(t *testing.T) {
	t.Parallel()
	for o, want := range map[payd.Outcome]int{
		payd.OutcomeOK:        http.StatusOK,
		payd.OutcomeCreated:   http.StatusCreated,
		payd.OutcomeAccepted:  http.StatusAccepted,
		payd.OutcomeNoContent: http.StatusNoContent,
		0:                     http.StatusInternalServerError,
	} {
		if got := OutcomeStatus(o); got != want {
			t.Errorf("OutcomeStatus(%d) = %d, want %d", o, got, want)
		}
	}
}
