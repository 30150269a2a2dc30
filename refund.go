package payd

import (
	"time"

	"github.com/paydhq/payd/ledger"
	"github.com/paydhq/payd/money"
)

// RefundStatus is a refund's state: pending, then succeeded or canceled.
type RefundStatus string

// Refund states (States: Refund).
const (
	RefundPending   RefundStatus = "pending"
	RefundSucceeded RefundStatus = "succeeded"
	RefundCanceled  RefundStatus = "canceled"
)

// Valid reports whether s is a known refund status.
func (s RefundStatus) Valid() bool {
	return s == RefundPending || s == RefundSucceeded || s == RefundCanceled
}

// Refund is a refund with what the service keeps about it.
type Refund struct {
	ID           string               `json:"id"`
	ShopID       string               `json:"shop_id"`
	MerchantID   string               `json:"merchant_id"`
	PaymentID    string               `json:"payment_id"`
	Test         bool                 `json:"test"`
	Status       RefundStatus         `json:"status"`
	Amount       money.Amount         `json:"amount"`
	OrderID      string               `json:"order_id"`
	Reason       string               `json:"reason,omitempty"`
	Metadata     map[string]string    `json:"metadata,omitempty"`
	Cancellation *CancellationDetails `json:"cancellation,omitempty"`
	CreatedAt    time.Time            `json:"created_at"`
	SucceededAt  *time.Time           `json:"succeeded_at,omitempty"`
	// FromPending is the part taken from the payment's unreleased money;
	// the rest came from available. A canceled refund gives each part back
	// where it came from.
	FromPending int64 `json:"from_pending"`
	// FeeReturned is the fee part this refund returned to the merchant.
	FeeReturned int64 `json:"fee_returned"`
}

// RefundJSON is the contract's Refund object.
type RefundJSON struct {
	ID                  string               `json:"id"`
	PaymentID           string               `json:"payment_id"`
	Status              RefundStatus         `json:"status"`
	Amount              money.Amount         `json:"amount"`
	CreatedAt           time.Time            `json:"created_at"`
	Test                bool                 `json:"test"`
	OrderID             string               `json:"order_id,omitempty"`
	Reason              string               `json:"reason,omitempty"`
	CancellationDetails *CancellationDetails `json:"cancellation_details,omitempty"`
	Metadata            map[string]string    `json:"metadata,omitempty"`
	SucceededAt         *time.Time           `json:"succeeded_at,omitempty"`
}

// View returns the contract's object.
func (r *Refund) View() *RefundJSON {
	return &RefundJSON{ID: r.ID, PaymentID: r.PaymentID, Status: r.Status, Amount: r.Amount, CreatedAt: r.CreatedAt,
		Test: r.Test, OrderID: r.OrderID, Reason: r.Reason, CancellationDetails: r.Cancellation, Metadata: r.Metadata,
		SucceededAt: r.SucceededAt}
}

// RefundListParams filters `GET /refunds`.
type RefundListParams struct {
	ListParams
	ShopID    string
	Test      bool
	PaymentID string
	Status    RefundStatus
}

// ReserveRule is one currency's rolling reserve of a shop: percent_bps of
// each captured sum held for days.
type ReserveRule struct {
	Currency   money.Currency `json:"currency"`
	PercentBps int            `json:"percent_bps"`
	Days       int            `json:"days"`
}

// LedgerReleaseArgs moves a payment's part in a holding bucket (pending
// after the tariff's hold days, reserve after the reserve's days) to
// available.
type LedgerReleaseArgs struct {
	PaymentID string        `json:"payment_id"`
	Bucket    ledger.Bucket `json:"bucket"`
}

// Kind names the job.
func (LedgerReleaseArgs) Kind() string { return "ledger_release" }
