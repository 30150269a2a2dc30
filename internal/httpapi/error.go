package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ratelimit"
)

// statusOf maps each code of the contract to its HTTP status (Errors table).
var statusOf = map[payd.ErrorCode]int{
	payd.CodeInvalidRequest:              http.StatusBadRequest,
	payd.CodeInvalidCredentials:          http.StatusUnauthorized,
	payd.CodeForbidden:                   http.StatusForbidden,
	payd.CodeNotFound:                    http.StatusNotFound,
	payd.CodeDuplicateOrderID:            http.StatusConflict,
	payd.CodeIdempotencyConflict:         http.StatusConflict,
	payd.CodeIdempotencyInProgress:       http.StatusConflict,
	payd.CodeEvidenceDeadlinePassed:      http.StatusConflict,
	payd.CodeEmailTaken:                  http.StatusConflict,
	payd.CodeInvalidState:                http.StatusUnprocessableEntity,
	payd.CodeAmountLimit:                 http.StatusUnprocessableEntity,
	payd.CodeLimitsExceeded:              http.StatusUnprocessableEntity,
	payd.CodeMethodUnavailable:           http.StatusUnprocessableEntity,
	payd.CodeRefundExceedsCaptured:       http.StatusUnprocessableEntity,
	payd.CodeReceiptInvalid:              http.StatusUnprocessableEntity,
	payd.CodeShopNotLive:                 http.StatusUnprocessableEntity,
	payd.CodeInsufficientMerchantBalance: http.StatusUnprocessableEntity,
	payd.CodePaymentsSuspended:           http.StatusUnprocessableEntity,
	payd.CodeTooManyRequests:             http.StatusTooManyRequests,
	payd.CodeInternal:                    http.StatusInternalServerError,
	payd.CodeNotImplemented:              http.StatusNotImplemented,
	payd.CodeProviderUnavailable:         http.StatusServiceUnavailable,
}

// StatusOf is the HTTP status of an error code; an unknown code is 500.
// The dashboard answers its pages with the same status as the API would.
func StatusOf(code payd.ErrorCode) int {
	if status, ok := statusOf[code]; ok {
		return status
	}
	return http.StatusInternalServerError
}

// ErrorBody is the contract's Error object.
type ErrorBody struct {
	Type        string         `json:"type"`
	Code        payd.ErrorCode `json:"code"`
	Description string         `json:"description"`
	Parameter   string         `json:"parameter,omitempty"`
	RequestID   string         `json:"request_id"`
}

// WriteError writes err as the Error object. Errors that are not *payd.Error
// are logged with their detail and shown as internal_error without it.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	var e *payd.Error
	if !errors.As(err, &e) {
		if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
			// The client went away; nobody reads this answer.
			e = &payd.Error{Code: payd.CodeInternal, Message: "request canceled"}
		} else {
			op := payd.FailedOp(err)
			Logger(r.Context()).Error("internal error", "err", err.Error(), "op", op)
			recordInternal(r.Context(), err, op)
			e = &payd.Error{Code: payd.CodeInternal, Message: "internal error; retry with the same Idempotency-Key, or contact support with the request_id"}
		}
	}
	status := StatusOf(e.Code)
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		SetRetryAfter(w, e.RetryAfter)
	}
	if status == http.StatusServiceUnavailable {
		NoteUnavailableError(w, e)
	}
	WriteJSON(w, status, ErrorBody{
		Type: "error", Code: e.Code, Description: e.Message, Parameter: e.Param, RequestID: RequestID(r.Context()),
	})
}

// SetRetryAfter sets Retry-After to wait in whole seconds, at least 1.
func SetRetryAfter(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(ratelimit.RetryAfterSeconds(wait)))
}

// recordInternal records an internal error on the request's span (a no-op
// span when tracing is off): the error event, the error status and the
// operation of the domain that failed, so that a trace shows where an
// internal_error came from. The error's text is what the log line shows;
// no request data is in it.
func recordInternal(ctx context.Context, err error, op string) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	attrs := []attribute.KeyValue{attribute.String("payd.error.code", string(payd.CodeInternal))}
	if op != "" {
		attrs = append(attrs, attribute.String("payd.operation", op))
	}
	span.SetAttributes(attrs...)
	span.RecordError(err, trace.WithAttributes(attrs...))
	span.SetStatus(codes.Error, string(payd.CodeInternal))
}

// WriteJSON writes v with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"type":"error","code":"internal_error","description":"response encoding failed"}`)
	}
	WriteRaw(w, status, b)
}

// WriteRaw writes a JSON body that is already encoded, and a newline
// after it: a body read with curl in a terminal ends its line, and the
// next command's output or the prompt starts on its own.
func WriteRaw(w http.ResponseWriter, status int, b []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	if len(b) == 0 {
		w.WriteHeader(status)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(b)
	w.Write(newline)
}

var newline = []byte("\n")

// Logger returns the request's logger, which carries its request id (the
// default logger outside a framed request).
func Logger(ctx context.Context) *slog.Logger {
	switch l := ctx.Value(loggerKey{}).(type) {
	case *requestLog:
		return l.logger()
	case *slog.Logger:
		return l
	}
	return slog.Default()
}
