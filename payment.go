package payd

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/paydhq/payd/money"
)

// PaymentStatus is one state of the payment table (States: Payment).
type PaymentStatus string

// Payment states; succeeded and canceled are final.
const (
	PaymentPending           PaymentStatus = "pending"
	PaymentWaitingForCapture PaymentStatus = "waiting_for_capture"
	PaymentSucceeded         PaymentStatus = "succeeded"
	PaymentCanceled          PaymentStatus = "canceled"
)

// PaymentStatusAll returns every payment status, in the order a payment
// passes them.
func PaymentStatusAll() []PaymentStatus {
	return []PaymentStatus{PaymentPending, PaymentWaitingForCapture, PaymentSucceeded, PaymentCanceled}
}

// Valid reports whether s is a known status.
func (s PaymentStatus) Valid() bool { return slices.Contains(PaymentStatusAll(), s) }

// Final reports whether no transition leaves s.
func (s PaymentStatus) Final() bool { return s == PaymentSucceeded || s == PaymentCanceled }

// Confirmation kinds of a payment create request.
const (
	ConfirmationRedirect = "redirect"
	ConfirmationQR       = "qr"
	ConfirmationEmbedded = "embedded"
)

// Cancellation parties and reasons (CancellationDetails). The contract's
// reason list is open; canceled_by_merchant is ours for the cancel
// operation.
const (
	PartyMerchant       = "merchant"
	PartyPaymentNetwork = "payment_network"
	PartyService        = "payd"

	ReasonExpiredOnConfirmation  = "expired_on_confirmation"
	ReasonExpiredOnCapture       = "expired_on_capture"
	ReasonInsufficientFunds      = "insufficient_funds"
	ReasonIssuerDeclined         = "issuer_declined"
	ReasonGeneralDecline         = "general_decline"
	ReasonThreeDSFailed          = "three_d_secure_failed"
	ReasonCanceledByCustomer     = "canceled_by_customer"
	ReasonCanceledByMerchant     = "canceled_by_merchant"
	ReasonAuthorizeRequestDenied = "authorize_request_denied"
	ReasonLimitsExceeded         = "limits_exceeded"
	ReasonCardExpired            = "card_expired"
)

// Customer is the contract's Customer object.
type Customer struct {
	Email    string `json:"email,omitempty"`
	Phone    string `json:"phone,omitempty"`
	FullName string `json:"full_name,omitempty"`
	TaxID    string `json:"tax_id,omitempty"`
	IP       string `json:"ip,omitempty"`
}

// CancellationDetails says who canceled a payment and why.
type CancellationDetails struct {
	Party        string `json:"party"`
	Reason       string `json:"reason"`
	ProviderCode string `json:"provider_code,omitempty"`
}

// ThreeDSecure reports 3-D Secure on an authorization.
type ThreeDSecure struct {
	Applied            bool `json:"applied"`
	ChallengeCompleted bool `json:"challenge_completed"`
}

// AuthorizationDetails are the bank's authorization data.
type AuthorizationDetails struct {
	RRN          string        `json:"rrn,omitempty"`
	AuthCode     string        `json:"auth_code,omitempty"`
	ThreeDSecure *ThreeDSecure `json:"three_d_secure,omitempty"`
}

// CardData is the masked card of PaymentMethodData; a full number never
// enters the service.
type CardData struct {
	First6        string `json:"first6,omitempty"`
	Last4         string `json:"last4,omitempty"`
	Brand         string `json:"brand,omitempty"`
	IssuerCountry string `json:"issuer_country,omitempty"`
	IssuerName    string `json:"issuer_name,omitempty"`
}

// SBPData names the payer's bank of an SBP payment.
type SBPData struct {
	BankName string `json:"bank_name,omitempty"`
}

// PaymentMethodData is the method as the payer used it.
type PaymentMethodData struct {
	Type  string    `json:"type"`
	Card  *CardData `json:"card,omitempty"`
	SBP   *SBPData  `json:"sbp,omitempty"`
	Saved bool      `json:"saved"`
	ID    string    `json:"id,omitempty"`
}

// Payment is a payment with everything the service keeps about it.
type Payment struct {
	ID         string        `json:"id"`
	ShopID     string        `json:"shop_id"`
	MerchantID string        `json:"merchant_id"`
	Region     Region        `json:"region"`
	Test       bool          `json:"test"`
	Status     PaymentStatus `json:"status"`
	Amount     money.Amount  `json:"amount"`
	OrderID    string        `json:"order_id"`
	CreatedAt  time.Time     `json:"created_at"`

	Description string            `json:"description,omitempty"`
	Capture     bool              `json:"capture"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	Customer    *Customer         `json:"customer,omitempty"`
	ClientIP    string            `json:"client_ip,omitempty"`
	// MethodType restricts the payer to one method; empty lets the payer
	// choose at checkout.
	MethodType string `json:"method_type,omitempty"`

	ConfirmationType string `json:"confirmation_type"`
	ReturnURL        string `json:"return_url,omitempty"`
	Locale           string `json:"locale,omitempty"`
	ConfirmationData string `json:"confirmation_data,omitempty"`
	// CheckoutTokenHash is the SHA-256 of the one-time checkout token; the
	// token itself is only in the create answer's confirmation_url.
	CheckoutTokenHash []byte `json:"checkout_token_hash,omitempty"`
	CheckoutUsed      bool   `json:"checkout_used,omitempty"`
	// EmbedOrigin is the origin of the merchant page the embedded form was
	// first opened in: the first load binds the token to it, and every
	// later page of the payment may be framed by that origin alone.
	EmbedOrigin string `json:"embed_origin,omitempty"`

	MerchantDisplayName string `json:"merchant_display_name"`
	StatementDescriptor string `json:"statement_descriptor,omitempty"`

	CapturedAmount       int64 `json:"captured_amount"`
	RefundedAmount       int64 `json:"refunded_amount"`
	ChargedBackAmount    int64 `json:"charged_back_amount"`
	PendingRefundsAmount int64 `json:"pending_refunds_amount"`
	DisputedAmount       int64 `json:"disputed_amount"`
	// FeeAmount is fixed when the payment succeeds (FeeFixed) and never
	// recalculated.
	FeeAmount         int64 `json:"fee_amount"`
	FeeFixed          bool  `json:"fee_fixed"`
	FeeRefundedAmount int64 `json:"fee_refunded_amount"`
	// PendingReleased is set when the payment's unreleased part moved to
	// available after the tariff's hold.
	PendingReleased bool `json:"pending_released,omitempty"`

	ExpiresAt     time.Time  `json:"expires_at"`
	AuthorizedAt  *time.Time `json:"authorized_at,omitempty"`
	CapturedAt    *time.Time `json:"captured_at,omitempty"`
	CanceledAt    *time.Time `json:"canceled_at,omitempty"`
	HoldExpiresAt *time.Time `json:"hold_expires_at,omitempty"`

	Cancellation  *CancellationDetails  `json:"cancellation,omitempty"`
	Authorization *AuthorizationDetails `json:"authorization,omitempty"`
	PaymentMethod *PaymentMethodData    `json:"payment_method,omitempty"`

	// Provider and ProviderPaymentID name the current attempt; Attempts
	// keeps the cascade's history.
	Provider          string    `json:"provider,omitempty"`
	ProviderPaymentID string    `json:"provider_payment_id,omitempty"`
	Attempts          []Attempt `json:"attempts,omitempty"`
	// Precheck is the shop's `payment.authorize_request` question and
	// decision, when its shop had the pre-check on; one per payment.
	Precheck *Precheck `json:"precheck,omitempty"`

	// LinkID names the payment link the payment was made through, if any;
	// its success may make a one-time link paid.
	LinkID string `json:"link_id,omitempty"`

	// redirect is where the payer goes after choosing a method (not stored).
	redirect string
	// payerReturn, when set, is where the provider sends the payer back
	// instead of ReturnURL: the embedded form's result page (not stored).
	payerReturn string
}

// Attempt is one try at one provider.
type Attempt struct {
	Provider          string    `json:"provider"`
	ProviderPaymentID string    `json:"provider_payment_id,omitempty"`
	Method            string    `json:"method"`
	Result            string    `json:"result"`
	At                time.Time `json:"at"`
}

// RefundableAmount is rule 4 of Payment: captured − refunded − charged back
// − refunds in flight − disputed.
func (p *Payment) RefundableAmount() int64 {
	return p.CapturedAmount - p.RefundedAmount - p.ChargedBackAmount - p.PendingRefundsAmount - p.DisputedAmount
}

func (p *Payment) amount(minor int64) money.Amount { return money.New(minor, p.Amount.Currency) }

// confirmationJSON is the contract's Confirmation object.
type confirmationJSON struct {
	Type            string `json:"type"`
	ConfirmationURL string `json:"confirmation_url,omitempty"`
	// ConfirmationToken is the embedded form's one-time token, given only
	// in the create answer, as ConfirmationURL.
	ConfirmationToken string     `json:"confirmation_token,omitempty"`
	ConfirmationData  string     `json:"confirmation_data,omitempty"`
	ReturnURL         string     `json:"return_url,omitempty"`
	ExpiresAt         *time.Time `json:"expires_at,omitempty"`
}

// PaymentJSON is the contract's Payment object.
type PaymentJSON struct {
	ID                   string                `json:"id"`
	Status               PaymentStatus         `json:"status"`
	Amount               money.Amount          `json:"amount"`
	OrderID              string                `json:"order_id"`
	CreatedAt            time.Time             `json:"created_at"`
	Test                 bool                  `json:"test"`
	Paid                 bool                  `json:"paid"`
	Refundable           bool                  `json:"refundable"`
	CapturedAmount       money.Amount          `json:"captured_amount"`
	RefundedAmount       money.Amount          `json:"refunded_amount"`
	RefundableAmount     money.Amount          `json:"refundable_amount"`
	ChargedBackAmount    money.Amount          `json:"charged_back_amount"`
	PendingRefundsAmount money.Amount          `json:"pending_refunds_amount"`
	DisputedAmount       money.Amount          `json:"disputed_amount"`
	FeeAmount            *money.Amount         `json:"fee_amount,omitempty"`
	FeeRefundedAmount    *money.Amount         `json:"fee_refunded_amount,omitempty"`
	MerchantDisplayName  string                `json:"merchant_display_name"`
	StatementDescriptor  string                `json:"statement_descriptor,omitempty"`
	Description          string                `json:"description,omitempty"`
	Capture              bool                  `json:"capture"`
	Confirmation         *confirmationJSON     `json:"confirmation,omitempty"`
	PaymentMethod        *PaymentMethodData    `json:"payment_method,omitempty"`
	Customer             *Customer             `json:"customer,omitempty"`
	CancellationDetails  *CancellationDetails  `json:"cancellation_details,omitempty"`
	AuthorizationDetails *AuthorizationDetails `json:"authorization_details,omitempty"`
	Metadata             map[string]string     `json:"metadata,omitempty"`
	ExpiresAt            *time.Time            `json:"expires_at,omitempty"`
	AuthorizedAt         *time.Time            `json:"authorized_at,omitempty"`
	CapturedAt           *time.Time            `json:"captured_at,omitempty"`
	CanceledAt           *time.Time            `json:"canceled_at,omitempty"`
}

// PaymentView is a payment as the contract renders it, already encoded:
// what a list page sends.
type PaymentView struct {
	ID        string
	CreatedAt time.Time
	// JSON is a string, as the store reads it: a page of them is joined
	// into the answer without a copy of each on the way.
	JSON string
	// ShopID is set by ListPaymentsOfShops, whose items come from several
	// shops, and by Tx.PaymentViewGet with Test, to check the reader's
	// scope; the rendering does not carry the shop.
	ShopID string
	Test   bool
}

func (v *PaymentView) scope() (string, bool) { return v.ShopID, v.Test }

// Payment is the rendering read back as the contract's object, for a
// caller that shows a payment of a list rather than sending it (the
// dashboard's lists and its export).
func (v *PaymentView) Payment() (*PaymentJSON, error) {
	var p PaymentJSON
	if err := json.Unmarshal([]byte(v.JSON), &p); err != nil {
		return nil, fmt.Errorf("read the rendering of payment %s: %w", v.ID, err)
	}
	return &p, nil
}

// PaymentViewVersion is the version of what View renders. A payment's
// rendering is stored beside its document and sent as it is by lists; a
// rendering of another version is rendered afresh on read and by a
// background pass (RefreshPaymentViews). Raise it with every change to
// what View writes, together with a migration that moves the bound of the
// payments_view_stale index to it (docs/architecture.md, "What is
// stored").
const PaymentViewVersion = 1

// View returns the contract's object. confirmationURL is given only in the
// create answer: the one-time token is never recoverable later.
func (p *Payment) View(confirmationURL string) *PaymentJSON {
	v := &PaymentJSON{
		ID: p.ID, Status: p.Status, Amount: p.Amount, OrderID: p.OrderID, CreatedAt: p.CreatedAt, Test: p.Test,
		Paid:                 p.Status == PaymentSucceeded,
		CapturedAmount:       p.amount(p.CapturedAmount),
		RefundedAmount:       p.amount(p.RefundedAmount),
		RefundableAmount:     p.amount(max(0, p.RefundableAmount())),
		ChargedBackAmount:    p.amount(p.ChargedBackAmount),
		PendingRefundsAmount: p.amount(p.PendingRefundsAmount),
		DisputedAmount:       p.amount(p.DisputedAmount),
		MerchantDisplayName:  p.MerchantDisplayName, StatementDescriptor: p.StatementDescriptor,
		Description: p.Description, Capture: p.Capture, PaymentMethod: p.PaymentMethod, Customer: p.Customer,
		CancellationDetails: p.Cancellation, AuthorizationDetails: p.Authorization, Metadata: p.Metadata,
		AuthorizedAt: p.AuthorizedAt, CapturedAt: p.CapturedAt, CanceledAt: p.CanceledAt,
	}
	// Rule 3: refundable when succeeded, the method refunds and something
	// is left to refund.
	v.Refundable = p.Status == PaymentSucceeded && p.RefundableAmount() > 0
	if p.FeeFixed {
		fee, feeBack := p.amount(p.FeeAmount), p.amount(p.FeeRefundedAmount)
		v.FeeAmount, v.FeeRefundedAmount = &fee, &feeBack
	}
	if !p.Status.Final() {
		exp := p.ExpiresAt
		v.ExpiresAt = &exp
		if p.Status == PaymentWaitingForCapture && p.HoldExpiresAt != nil {
			v.ExpiresAt = p.HoldExpiresAt
		}
	}
	c := &confirmationJSON{Type: p.ConfirmationType, ConfirmationURL: confirmationURL,
		ConfirmationData: p.ConfirmationData, ReturnURL: p.ReturnURL}
	if p.Status == PaymentPending {
		exp := p.ExpiresAt
		c.ExpiresAt = &exp
	}
	v.Confirmation = c
	return v
}

// Method is the payment's method type; a payment whose payer has not yet
// chosen one is priced and held as a bank card, the default tariff.
func (p *Payment) Method() string {
	if p.PaymentMethod != nil && p.PaymentMethod.Type != "" {
		return p.PaymentMethod.Type
	}
	return MethodBankCard
}

// KnownMethod is the method the payer used, else the one the payment is
// restricted to, else "" while the payer has not chosen: what a list
// filtered by method matches.
func (p *Payment) KnownMethod() string {
	if p.PaymentMethod != nil && p.PaymentMethod.Type != "" {
		return p.PaymentMethod.Type
	}
	return p.MethodType
}

// declineReason is the cancellation reason a provider gave, or
// general_decline when it gave none.
func declineReason(reason string) string {
	if reason == "" {
		return ReasonGeneralDecline
	}
	return reason
}
