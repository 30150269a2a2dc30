package httpapi

import (
	"net/http"

	"github.com/paydhq/payd"
)

// outcomeStatus maps each outcome of an idempotent operation to the HTTP
// status of its answer.
var outcomeStatus = map[payd.Outcome]int{
	payd.OutcomeOK:        http.StatusOK,
	payd.OutcomeCreated:   http.StatusCreated,
	payd.OutcomeAccepted:  http.StatusAccepted,
	payd.OutcomeNoContent: http.StatusNoContent,
}

// OutcomeStatus returns the HTTP status an outcome is answered with; an
// outcome without one (none of the domain's) is a 500.
func OutcomeStatus(o payd.Outcome) int {
	if st, ok := outcomeStatus[o]; ok {
		return st
	}
	return http.StatusInternalServerError
}
