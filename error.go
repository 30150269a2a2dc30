package payd

import (
	"errors"
	"fmt"
	"time"

	"github.com/paydhq/payd/money"
)

// ErrorCode is one value of the contract's closed `code` enum.
type ErrorCode string

// The contract's error codes (Errors table). The merchant API writes no
// other value; CodeEmailTaken, last, belongs to the operator API and the
// dashboard alone.
const (
	CodeInvalidRequest              ErrorCode = "invalid_request"
	CodeInvalidCredentials          ErrorCode = "invalid_credentials"
	CodeForbidden                   ErrorCode = "forbidden"
	CodeNotFound                    ErrorCode = "not_found"
	CodeDuplicateOrderID            ErrorCode = "duplicate_order_id"
	CodeIdempotencyConflict         ErrorCode = "idempotency_conflict"
	CodeIdempotencyInProgress       ErrorCode = "idempotency_in_progress"
	CodeEvidenceDeadlinePassed      ErrorCode = "evidence_deadline_passed"
	CodeInvalidState                ErrorCode = "invalid_state"
	CodeAmountLimit                 ErrorCode = "amount_limit"
	CodeLimitsExceeded              ErrorCode = "limits_exceeded"
	CodeMethodUnavailable           ErrorCode = "method_unavailable"
	CodeRefundExceedsCaptured       ErrorCode = "refund_exceeds_captured"
	CodeReceiptInvalid              ErrorCode = "receipt_invalid"
	CodeShopNotLive                 ErrorCode = "shop_not_live"
	CodeInsufficientMerchantBalance ErrorCode = "insufficient_merchant_balance"
	CodePaymentsSuspended           ErrorCode = "payments_suspended"
	CodeTooManyRequests             ErrorCode = "too_many_requests"
	CodeInternal                    ErrorCode = "internal_error"
	CodeNotImplemented              ErrorCode = "not_implemented"
	CodeProviderUnavailable         ErrorCode = "provider_unavailable"
	// CodeEmailTaken is not of the merchant contract: the operator API and
	// the dashboard answer it (409) when a user's email is taken.
	CodeEmailTaken ErrorCode = "email_taken"
)

// Error is a failure the contract describes. Anything that is not an *Error
// reaches the client as `internal_error` with its details hidden.
type Error struct {
	Code    ErrorCode
	Message string
	// Param is the dotted path of the offending request field, e.g.
	// "amount.value" or "confirmation.return_url"; empty when not applicable.
	Param string
	// RetryAfter is sent as the Retry-After header with 429 and 503.
	RetryAfter time.Duration
	// Cause says why a provider_unavailable error could not be served:
	// what an operator's metrics count the 503s by. It is never shown.
	Cause Cause
	// Format and Args are Message with its values apart, so that a page
	// can say it in its own language (docs/languages.md): Format is the
	// English wording with fmt's verbs, the key of the pages' catalogue,
	// and Args its values, an amount as a Sum. The API writes Message
	// alone; Errorf, Invalid and NotFound fill both.
	Format string
	Args   []any
}

// Cause is why the service answered that it is unavailable (503): the
// label of the metric that counts those answers (docs/alerts.md).
type Cause string

// The causes of a 503.
const (
	// CauseStorage: the database cannot be reached, or it accepts no
	// writes (a standby, or a primary demoted by a failover).
	CauseStorage Cause = "storage"
	// CauseRateLimitStore: the shared rate limit store (Redis) cannot be
	// reached, so a money operation's rate cannot be counted.
	CauseRateLimitStore Cause = "rate_limit_store"
	// CauseProvider: a payment or payout provider did not answer, or none
	// could take the operation.
	CauseProvider Cause = "provider"
	// CauseSandboxReset: the shop's sandbox was being reset.
	CauseSandboxReset Cause = "sandbox_reset"
)

// Sum is an amount among an error's values: Message writes it as the
// contract writes a value ("1300.00"), and a page as it writes amounts in
// its language ("1 300,00 ₽").
type Sum struct {
	Minor    int64
	Currency money.Currency
}

// String is the contract's form of the value, without the currency.
func (s Sum) String() string { return money.FormatValue(s.Minor) }

func (e *Error) Error() string {
	if e.Param != "" {
		return fmt.Sprintf("%s: %s (%s)", e.Code, e.Message, e.Param)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Errorf returns an *Error with a formatted message.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Format: format, Args: args}
}

// Invalid returns an `invalid_request` error naming the request field param.
func Invalid(param, format string, args ...any) *Error {
	return &Error{Code: CodeInvalidRequest, Param: param, Message: fmt.Sprintf(format, args...), Format: format, Args: args}
}

// NotFound is the answer for a missing object and for another shop's object
// alike (Conventions: Scope), so the two cannot be told apart.
func NotFound(kind string) *Error {
	return &Error{Code: CodeNotFound, Message: kind + " not found", Format: kind + " not found"}
}

// ErrNoRows is returned by stores when a lookup finds nothing. The service
// turns it into NotFound with the kind of object it looked for.
var ErrNoRows = errors.New("no rows")

// ErrorCodeOf returns the contract code of err, or internal_error.
func ErrorCodeOf(err error) ErrorCode {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrConflict is returned by stores when an insert violates a unique rule.
var ErrConflict = errors.New("unique violation")

// ErrOrderIDTaken is returned by Tx.PaymentInsertAtCommit, or by the
// Store.Tx that commits it, when the shop has a payment with the order id
// in the same mode.
var ErrOrderIDTaken = errors.New("order_id taken")

// ErrSandboxResetting is returned by Tx.IdempotencyLockGet of a test key
// while the shop's sandbox is being reset (ResetSandbox): the change waits
// and is tried again when the reset ends.
var ErrSandboxResetting = errors.New("sandbox reset in progress")

// ErrClaimRefused is returned by the statement, commit or Store.Tx of a
// transaction whose Tx.IdempotencyClaim did not hold: the key was not
// free. Nothing of the transaction is kept; it is run again taking the
// key's lock first (Tx.IdempotencyLockGet).
var ErrClaimRefused = errors.New("idempotency key claim refused")

// withOp names the operation an internal error came from as it leaves the
// domain ("capture payment: ..."), so that an internal_error in the log says
// which operation failed. A contract error (*Error) is the answer itself
// and goes out as it is.
func withOp(op string, err error) error {
	var e *Error
	if err == nil || errors.As(err, &e) {
		return err
	}
	return &OpError{Op: op, Err: err}
}

// OpError is an internal error named by the operation of the domain it
// came from (withOp). The adapters read Op to say, beside the error, which
// operation failed: in the log line and on the request's trace span.
type OpError struct {
	Op  string
	Err error
}

func (e *OpError) Error() string { return e.Op + ": " + e.Err.Error() }

// Unwrap returns the error the operation failed with.
func (e *OpError) Unwrap() error { return e.Err }

// FailedOp returns the operation an internal error came from ("" when err
// was not named by one).
func FailedOp(err error) string {
	var oe *OpError
	if errors.As(err, &oe) {
		return oe.Op
	}
	return ""
}
