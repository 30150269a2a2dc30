package httpapi

import (
	"errors"
	"net/http"

	"github.com/paydhq/payd"
)

// Causes of a 503 that are not the domain's (payd.Cause): the readiness
// probe's two answers, and a 503 that named no cause.
const (
	CauseDraining = "draining"
	CauseNotReady = "not_ready"
	causeOther    = "other"
)

// unavailableCauses are the values of payd_http_unavailable_total's cause
// label, each exported from the start at zero so that an alert's rate
// never starts from a missing series.
var unavailableCauses = []string{
	string(payd.CauseStorage), string(payd.CauseRateLimitStore), string(payd.CauseProvider), string(payd.CauseSandboxReset),
	CauseDraining, CauseNotReady, causeOther,
}

// NoteUnavailable tells Frame's metrics why the request is answered 503.
// WriteError notes the cause a *payd.Error carries; a handler that writes
// its own 503 (the readiness probe) calls it before writing.
func NoteUnavailable(w http.ResponseWriter, cause string) {
	for {
		switch x := w.(type) {
		case *statusRecorder:
			x.cause = cause
			return
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return
		}
	}
}

// NoteUnavailableError notes the cause err carries, if it is a *payd.Error
// with one: for the pages that answer a provider_unavailable error with a
// page of their own rather than WriteError.
func NoteUnavailableError(w http.ResponseWriter, err error) {
	var e *payd.Error
	if errors.As(err, &e) && e.Cause != "" {
		NoteUnavailable(w, string(e.Cause))
	}
}
