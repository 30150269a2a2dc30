package api

import (
	"log/slog"
	"net/http"
	"net/url"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// Frame wraps another listener's handler (the operator API) with the same
// request ids, logs, metrics and panic recovery as the merchant API.
func Frame(log *slog.Logger, m *Metrics, next http.Handler) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return frame(log, m, next)
}

// WriteError writes err as the contract's Error object.
func WriteError(w http.ResponseWriter, r *http.Request, err error) { writeError(w, r, err) }

// WriteJSON writes v as JSON with status.
func WriteJSON(w http.ResponseWriter, status int, v any) { writeJSON(w, status, v) }

// DecodeJSON decodes a JSON object body with the merchant API's rules.
func DecodeJSON(body []byte, dst any) error { return decodeJSON(body, dst) }

// AmountIn is an amount as a request carries it, read field by field so
// that the operator API's errors name amount.value or amount.currency as
// the merchant API's do (money.Amount's own reader names only the object).
type AmountIn = amountIn

// Parse returns the amount a request gave under param, or invalid_request
// naming param (nil: required), param.value or param.currency.
func (a *amountIn) Parse(param string) (money.Amount, error) { return a.parse(param) }

// ParseList reads limit and cursor of a list request; filters name the
// query parameters that filter the list. The fingerprint goes back into
// EncodeCursor.
func ParseList(q url.Values, filters ...string) (payd.ListParams, string, error) {
	return parseList(q, filters...)
}

// EncodeCursor returns the opaque next_cursor for c (nil at the end).
func EncodeCursor(c *payd.Cursor, fingerprint string) *string { return encodeCursor(c, fingerprint) }
