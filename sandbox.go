package payd

import "time"

// SandboxAttempt is the sandbox bank's record of one attempt: the bank's
// own state, kept in the service's database because the sandbox bank is
// built in.
type SandboxAttempt struct {
	ID        string `json:"id"`
	Provider  string `json:"provider"`
	PaymentID string `json:"payment_id"`
	// Reference is the service's name for the attempt.
	Reference string `json:"reference"`
	Method    string `json:"method"`
	Amount    int64  `json:"amount"`
	Currency  string `json:"currency"`
	// MerchantDisplayName and Description are the payment's, as a bank
	// receives them with the payment, for its app to show the payer
	// whom and what they pay. Attempts made before they were kept have
	// neither.
	MerchantDisplayName string `json:"merchant_display_name,omitempty"`
	Description         string `json:"description,omitempty"`
	Capture             bool   `json:"capture"`
	Region              Region `json:"region"`
	// Outcome, DeclineCode and DelaySeconds are the plan chosen from the
	// amount's last digits or the metadata overrides.
	Outcome      string `json:"outcome"`
	DeclineCode  string `json:"decline_code,omitempty"`
	DelaySeconds int    `json:"delay_seconds"`
	// State is the bank's state: created, decided, authorized, captured,
	// voided, declined.
	State string `json:"state"`
	// ThreeDSUsed is set once the single 3-D Secure attempt was spent.
	ThreeDSUsed bool `json:"three_ds_used,omitempty"`
	// LastNotification is kept to send it again (duplicate_webhook).
	LastNotification []byte `json:"last_notification,omitempty"`
	ReturnURL        string `json:"return_url,omitempty"`
	// Locale is the payment's confirmation.locale, the language of the
	// bank's pages; empty leaves it to the payer's browser and the region.
	Locale    string    `json:"locale,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}
