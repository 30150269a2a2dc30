package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"
)

// Error is every answer of the service that is not 2xx: the contract's
// Error object with the HTTP status. Test for it with errors.As, and for
// its Code against the ErrorCode constants (ErrorCodeInvalidRequest, ...).
type Error struct {
	// HTTPStatus is the status of the answer (400, 404, 409, 422, ...).
	HTTPStatus int
	// Code is the contract's error code; empty when the answer carried no
	// Error object (a proxy's page, for instance).
	Code ErrorCode
	// Parameter is the dotted path of the offending request field
	// ("amount.value"), when the error names one.
	Parameter string
	// Description is human-readable text; it may change and is not to be
	// parsed.
	Description string
	// RequestID identifies the request to payd's support.
	RequestID string
	// Stage is the delivery stage an operation answered with 501
	// not_implemented needs ("M2", "M5"), as the service names it.
	Stage string
	// RetryAfter is the wait the service advised (429, 503), zero when it
	// gave none.
	RetryAfter time.Duration
}

// ErrNotImplemented matches, with errors.Is, an *Error of an operation that
// the service does not offer at its current stage (501 not_implemented);
// the Error's Stage says which stage brings it.
var ErrNotImplemented = errors.New("client: operation not implemented at the service's stage")

// Error reads "payd: <status> <code> (<parameter>): <description> [request <id>]".
func (e *Error) Error() string {
	s := fmt.Sprintf("payd: %d %s", e.HTTPStatus, e.Code)
	if e.Code == "" {
		s = fmt.Sprintf("payd: %d %s", e.HTTPStatus, http.StatusText(e.HTTPStatus))
	}
	if e.Parameter != "" {
		s += " (" + e.Parameter + ")"
	}
	if e.Description != "" {
		s += ": " + e.Description
	}
	if e.RequestID != "" {
		s += " [request " + e.RequestID + "]"
	}
	return s
}

// Is reports whether target is ErrNotImplemented and e is a 501.
func (e *Error) Is(target error) bool {
	return target == ErrNotImplemented && e.Code == ErrorCodeNotImplemented
}

// retryable says whether the same request, sent again with the same
// idempotency key, may succeed.
func (e *Error) retryable() bool {
	switch e.HTTPStatus {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	case http.StatusConflict:
		return e.Code == ErrorCodeIdempotencyInProgress
	}
	return false
}

// stageRe finds the stage in a 501's description ("... arrive in stage
// M2"); the last one is the stage the operation needs, since the text may
// name the service's own stage before it.
var stageRe = regexp.MustCompile(`\bstage (v1|M[0-9]+)\b`)

func parseError(status int, body []byte) *Error {
	e := &Error{HTTPStatus: status}
	var obj ErrorObject
	if json.Unmarshal(body, &obj) != nil || obj.Code == "" {
		return e
	}
	e.Code, e.Description, e.RequestID = obj.Code, obj.Description, obj.RequestID
	if obj.Parameter != nil {
		e.Parameter = *obj.Parameter
	}
	if e.Code == ErrorCodeNotImplemented {
		if m := stageRe.FindAllStringSubmatch(e.Description, -1); len(m) > 0 {
			e.Stage = m[len(m)-1][1]
		}
	}
	return e
}
