package operator

import (
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// paymentJSON is a payment as operators see it: what the service keeps
// about it, provider attempts and pre-check included, in the members of
// the stored payment rather than the contract's Payment object. The
// checkout token's hash is not among them: only the payer's pages look
// payments up by it. The objects the contract defines (customer,
// cancellation, authorization, payment method) are written as the
// contract writes them.
type paymentJSON struct {
	ID         string             `json:"id"`
	ShopID     string             `json:"shop_id"`
	MerchantID string             `json:"merchant_id"`
	Region     payd.Region        `json:"region"`
	Test       bool               `json:"test"`
	Status     payd.PaymentStatus `json:"status"`
	Amount     money.Amount       `json:"amount"`
	OrderID    string             `json:"order_id"`
	CreatedAt  time.Time          `json:"created_at"`

	Description string            `json:"description,omitempty"`
	Capture     bool              `json:"capture"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	Customer    *payd.Customer    `json:"customer,omitempty"`
	ClientIP    string            `json:"client_ip,omitempty"`
	MethodType  string            `json:"method_type,omitempty"`

	ConfirmationType string `json:"confirmation_type"`
	ReturnURL        string `json:"return_url,omitempty"`
	Locale           string `json:"locale,omitempty"`
	ConfirmationData string `json:"confirmation_data,omitempty"`
	CheckoutUsed     bool   `json:"checkout_used,omitempty"`
	EmbedOrigin      string `json:"embed_origin,omitempty"`

	MerchantDisplayName string `json:"merchant_display_name"`
	StatementDescriptor string `json:"statement_descriptor,omitempty"`

	CapturedAmount       int64 `json:"captured_amount"`
	RefundedAmount       int64 `json:"refunded_amount"`
	ChargedBackAmount    int64 `json:"charged_back_amount"`
	PendingRefundsAmount int64 `json:"pending_refunds_amount"`
	DisputedAmount       int64 `json:"disputed_amount"`
	FeeAmount            int64 `json:"fee_amount"`
	FeeFixed             bool  `json:"fee_fixed"`
	FeeRefundedAmount    int64 `json:"fee_refunded_amount"`
	PendingReleased      bool  `json:"pending_released,omitempty"`

	ExpiresAt     time.Time  `json:"expires_at"`
	AuthorizedAt  *time.Time `json:"authorized_at,omitempty"`
	CapturedAt    *time.Time `json:"captured_at,omitempty"`
	CanceledAt    *time.Time `json:"canceled_at,omitempty"`
	HoldExpiresAt *time.Time `json:"hold_expires_at,omitempty"`

	Cancellation  *payd.CancellationDetails  `json:"cancellation,omitempty"`
	Authorization *payd.AuthorizationDetails `json:"authorization,omitempty"`
	PaymentMethod *payd.PaymentMethodData    `json:"payment_method,omitempty"`

	Provider          string        `json:"provider,omitempty"`
	ProviderPaymentID string        `json:"provider_payment_id,omitempty"`
	Attempts          []attemptJSON `json:"attempts,omitempty"`
	Precheck          *precheckJSON `json:"precheck,omitempty"`

	LinkID string `json:"link_id,omitempty"`
}

// attemptJSON is one try of the payment at one provider.
type attemptJSON struct {
	Provider          string    `json:"provider"`
	ProviderPaymentID string    `json:"provider_payment_id,omitempty"`
	Method            string    `json:"method"`
	Result            string    `json:"result"`
	At                time.Time `json:"at"`
}

// precheckJSON is the shop's `payment.authorize_request` question and its
// decision.
type precheckJSON struct {
	EventID   string     `json:"event_id"`
	AskedAt   time.Time  `json:"asked_at"`
	Decision  string     `json:"decision,omitempty"`
	By        string     `json:"by,omitempty"`
	Reason    string     `json:"reason,omitempty"`
	DecidedAt *time.Time `json:"decided_at,omitempty"`
}

func paymentView(p *payd.Payment) paymentJSON {
	v := paymentJSON{
		ID: p.ID, ShopID: p.ShopID, MerchantID: p.MerchantID, Region: p.Region, Test: p.Test, Status: p.Status,
		Amount: p.Amount, OrderID: p.OrderID, CreatedAt: p.CreatedAt,
		Description: p.Description, Capture: p.Capture, Metadata: p.Metadata, Customer: p.Customer, ClientIP: p.ClientIP,
		MethodType:       p.MethodType,
		ConfirmationType: p.ConfirmationType, ReturnURL: p.ReturnURL, Locale: p.Locale, ConfirmationData: p.ConfirmationData,
		CheckoutUsed: p.CheckoutUsed, EmbedOrigin: p.EmbedOrigin,
		MerchantDisplayName: p.MerchantDisplayName, StatementDescriptor: p.StatementDescriptor,
		CapturedAmount: p.CapturedAmount, RefundedAmount: p.RefundedAmount, ChargedBackAmount: p.ChargedBackAmount,
		PendingRefundsAmount: p.PendingRefundsAmount, DisputedAmount: p.DisputedAmount,
		FeeAmount: p.FeeAmount, FeeFixed: p.FeeFixed, FeeRefundedAmount: p.FeeRefundedAmount, PendingReleased: p.PendingReleased,
		ExpiresAt: p.ExpiresAt, AuthorizedAt: p.AuthorizedAt, CapturedAt: p.CapturedAt, CanceledAt: p.CanceledAt,
		HoldExpiresAt: p.HoldExpiresAt,
		Cancellation:  p.Cancellation, Authorization: p.Authorization, PaymentMethod: p.PaymentMethod,
		Provider: p.Provider, ProviderPaymentID: p.ProviderPaymentID,
		Attempts: views(p.Attempts, func(a payd.Attempt) attemptJSON {
			return attemptJSON{Provider: a.Provider, ProviderPaymentID: a.ProviderPaymentID, Method: a.Method, Result: a.Result, At: a.At}
		}),
		LinkID: p.LinkID,
	}
	if c := p.Precheck; c != nil {
		v.Precheck = &precheckJSON{EventID: c.EventID, AskedAt: c.AskedAt, Decision: c.Decision, By: c.By, Reason: c.Reason,
			DecidedAt: c.DecidedAt}
	}
	return v
}
