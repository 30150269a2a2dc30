package payd

import (
	"context"
	"slices"
	"time"
)

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
	Outcome      SandboxOutcome `json:"outcome"`
	DeclineCode  string         `json:"decline_code,omitempty"`
	DelaySeconds int            `json:"delay_seconds"`
	// State is the bank's state: created, decided, authorized, captured,
	// voided, declined.
	State string `json:"state"`
	// ThreeDSUsed is set once the single 3-D Secure attempt was spent.
	ThreeDSUsed bool `json:"three_ds_used,omitempty"`
	// LastNotification is kept to send it again (duplicate_webhook).
	LastNotification []byte `json:"last_notification,omitempty"`
	ReturnURL        string `json:"return_url,omitempty"`
	// FrameOrigin is the origin of the merchant page that frames the
	// bank's pages of an embedded payment; empty: they are never framed.
	FrameOrigin string `json:"frame_origin,omitempty"`
	// Locale is the payment's confirmation.locale, the language of the
	// bank's pages; empty leaves it to the payer's browser and the region.
	Locale    string    `json:"locale,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// SandboxOutcome is what the sandbox bank does with a test payment: told
// by simulate, or chosen at the attempt from the amount's last digits or
// the metadata overrides (Sandbox: simulate and metadata).
type SandboxOutcome string

// Outcomes of the sandbox.
const (
	SandboxSucceed          SandboxOutcome = "succeed"
	SandboxAuthorize        SandboxOutcome = "authorize"
	SandboxDecline          SandboxOutcome = "decline"
	SandboxExpire           SandboxOutcome = "expire"
	SandboxThreeDSFail      SandboxOutcome = "three_ds_fail"
	SandboxProviderTimeout  SandboxOutcome = "provider_timeout"
	SandboxLateWebhook      SandboxOutcome = "late_webhook"
	SandboxDuplicateWebhook SandboxOutcome = "duplicate_webhook"
)

// SandboxOutcomeAll returns every outcome, in the order the contract
// lists them (and the dashboard offers them).
func SandboxOutcomeAll() []SandboxOutcome {
	return []SandboxOutcome{SandboxSucceed, SandboxAuthorize, SandboxDecline, SandboxExpire, SandboxThreeDSFail,
		SandboxProviderTimeout, SandboxLateWebhook, SandboxDuplicateWebhook}
}

// Valid reports whether o is a known outcome.
func (o SandboxOutcome) Valid() bool { return slices.Contains(SandboxOutcomeAll(), o) }

// simulateFrom is the payment statuses each outcome of simulate applies to
// (Sandbox: simulate).
func (o SandboxOutcome) simulateFrom() []PaymentStatus {
	switch o {
	case SandboxSucceed, SandboxExpire:
		return []PaymentStatus{PaymentPending, PaymentWaitingForCapture}
	case SandboxAuthorize, SandboxDecline, SandboxThreeDSFail, SandboxProviderTimeout:
		return []PaymentStatus{PaymentPending}
	case SandboxLateWebhook:
		return []PaymentStatus{PaymentCanceled}
	case SandboxDuplicateWebhook:
		return []PaymentStatus{PaymentSucceeded}
	}
	return nil
}

// SimulateOutcome is `POST /test/payments/{id}/simulate`: it checks the
// outcome fits the payment's status and has the sandbox bank deliver it,
// after delay, through the provider notification path.
func (s *Service) SimulateOutcome(ctx context.Context, p *Principal, idem Idempotency, id string, outcome SandboxOutcome, delay time.Duration) (*Response, error) {
	if !p.Test() {
		return nil, Errorf(CodeForbidden, "simulate works with test keys only")
	}
	from := outcome.simulateFrom()
	if from == nil {
		return nil, Invalid("outcome", "unknown outcome %q", outcome)
	}
	return s.idempotent(ctx, AuditSimulateOutcome, p, idem, func(tx Tx) (Outcome, any, error) {
		pay, err := scoped(ctx, tx, p, id, true)
		if err != nil {
			return 0, nil, err
		}
		allowed := false
		for _, st := range from {
			allowed = allowed || st == pay.Status
		}
		if outcome == SandboxLateWebhook && (pay.Cancellation == nil ||
			(pay.Cancellation.Reason != ReasonExpiredOnConfirmation && pay.Cancellation.Reason != ReasonExpiredOnCapture)) {
			allowed = false
		}
		if !allowed {
			return 0, nil, Errorf(CodeInvalidState, "outcome %s does not apply to a payment in status %s", outcome, pay.Status)
		}
		// Before the payer chose a method, or before the shop's pre-check
		// allowed a QR payment, there is no attempt at the bank, so
		// nothing can happen to it yet (Sandbox).
		sim, ok := s.providers[pay.Provider].(Simulator)
		if !ok || pay.ProviderPaymentID == "" {
			if pay.ConfirmationType == ConfirmationQR {
				return 0, nil, Errorf(CodeInvalidState, "no provider attempt yet: the shop's pre-check has not allowed the payment")
			}
			return 0, nil, Errorf(CodeInvalidState, "no provider attempt yet: the payer has not chosen a method")
		}
		// The answer has no body: the entry names the payment.
		named := audited{objectID: pay.ID, detail: simulateDetail(string(outcome), delay)}
		if outcome == SandboxExpire {
			return OutcomeAccepted, named, s.jobs.Enqueue(ctx, tx, PaymentExpireArgs{PaymentID: pay.ID, Force: true}, s.clock.Now().Add(delay))
		}
		return OutcomeAccepted, named, sim.Simulate(ctx, tx, pay, outcome, delay)
	})
}

// simulateDetail is a simulate's audit detail: the outcome, and its delay
// when there is one.
func simulateDetail(outcome string, delay time.Duration) string {
	if delay > 0 {
		return outcome + " after " + delay.String()
	}
	return outcome
}
