package payd

import (
	"slices"
	"time"

	"github.com/paydhq/payd/money"
)

// LinkStatus is one state of a payment link (States: Payment link).
type LinkStatus string

// Payment link states; paid, expired and deactivated are final for the
// merchant (docs/links.md).
const (
	LinkActive      LinkStatus = "active"
	LinkPaid        LinkStatus = "paid"
	LinkExpired     LinkStatus = "expired"
	LinkDeactivated LinkStatus = "deactivated"
)

// LinkStatusAll returns every payment link status.
func LinkStatusAll() []LinkStatus {
	return []LinkStatus{LinkActive, LinkPaid, LinkExpired, LinkDeactivated}
}

// Valid reports whether s is a known status.
func (s LinkStatus) Valid() bool { return slices.Contains(LinkStatusAll(), s) }

// PaymentLink is a payment link with everything the service keeps about
// it. A link holds no money: each payment made through it is a payment of
// its own, and the link lists them.
type PaymentLink struct {
	ID         string     `json:"id"`
	ShopID     string     `json:"shop_id"`
	MerchantID string     `json:"merchant_id"`
	Region     Region     `json:"region"`
	Test       bool       `json:"test"`
	Status     LinkStatus `json:"status"`
	CreatedAt  time.Time  `json:"created_at"`

	// Amount is the fixed sum; when nil the payer enters one within
	// MinAmount..MaxAmount (each optional) in Currency.
	Amount    *money.Amount  `json:"amount,omitempty"`
	MinAmount *money.Amount  `json:"min_amount,omitempty"`
	MaxAmount *money.Amount  `json:"max_amount,omitempty"`
	Currency  money.Currency `json:"currency"`

	Description string            `json:"description"`
	OrderID     string            `json:"order_id,omitempty"`
	Capture     bool              `json:"capture"`
	Reusable    bool              `json:"reusable"`
	ExpiresAt   *time.Time        `json:"expires_at,omitempty"`
	ReturnURL   string            `json:"return_url,omitempty"`
	Customer    *Customer         `json:"customer,omitempty"`
	Metadata    map[string]string `json:"metadata,omitempty"`

	// PaymentCount is how many payments were made through the link; the
	// next one is number PaymentCount+1 (its order_id suffix).
	PaymentCount int `json:"payment_count"`
	// Payments are the ids of those payments, oldest first. Stores fill
	// it from their link_payments rows; it is not kept in the document.
	Payments []string `json:"-"`

	PaidAt        *time.Time `json:"paid_at,omitempty"`
	PaidBy        string     `json:"paid_by,omitempty"`
	ExpiredAt     *time.Time `json:"expired_at,omitempty"`
	DeactivatedAt *time.Time `json:"deactivated_at,omitempty"`
}

// PaymentLinkJSON is the contract's PaymentLink object.
type PaymentLinkJSON struct {
	ID          string            `json:"id"`
	URL         string            `json:"url"`
	Status      LinkStatus        `json:"status"`
	CreatedAt   time.Time         `json:"created_at"`
	Test        bool              `json:"test"`
	Amount      *money.Amount     `json:"amount,omitempty"`
	MinAmount   *money.Amount     `json:"min_amount,omitempty"`
	MaxAmount   *money.Amount     `json:"max_amount,omitempty"`
	Description string            `json:"description,omitempty"`
	OrderID     string            `json:"order_id,omitempty"`
	Capture     bool              `json:"capture"`
	Reusable    bool              `json:"reusable"`
	ReturnURL   string            `json:"return_url,omitempty"`
	Payments    []string          `json:"payments"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	ExpiresAt   *time.Time        `json:"expires_at,omitempty"`
}

// View returns the contract's object; pageURL is the address of the link's
// page (Service.LinkURL).
func (l *PaymentLink) View(pageURL string) *PaymentLinkJSON {
	payments := l.Payments
	if payments == nil {
		payments = []string{}
	}
	return &PaymentLinkJSON{
		ID: l.ID, URL: pageURL, Status: l.Status, CreatedAt: l.CreatedAt, Test: l.Test,
		Amount: l.Amount, MinAmount: l.MinAmount, MaxAmount: l.MaxAmount, Description: l.Description,
		OrderID: l.OrderID, Capture: l.Capture, Reusable: l.Reusable, ReturnURL: l.ReturnURL,
		Payments: payments, Metadata: l.Metadata, ExpiresAt: l.ExpiresAt,
	}
}

// PaymentLinkListParams filters `GET /payment-links`.
type PaymentLinkListParams struct {
	ListParams
	ShopID string
	Test   bool
}

// PaymentLinkDue is an active link whose expires_at has passed.
type PaymentLinkDue struct {
	ID        string
	ExpiresAt time.Time
}

// PaymentLinkListExpiredParams select due links: ExpiresAt at or before
// Now, after the position After (zero: from the start), at most Limit.
type PaymentLinkListExpiredParams struct {
	Now   time.Time
	After PaymentLinkDue
	Limit int
}

// MaxLinkLifetime bounds a link's expires_at. The contract is silent; a
// year keeps a forgotten link from taking payments forever while covering
// any invoice's term (docs/links.md).
const MaxLinkLifetime = 365 * 24 * time.Hour
