package payd

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/paydhq/payd/money"
)

// ErrProviderTimeout is returned by a provider that did not answer in time.
// The attempt moves to the next candidate of the cascade, and the provider
// is asked later what became of it.
var ErrProviderTimeout = errors.New("provider timeout")

// AttemptRequest asks a provider to start taking a payment.
type AttemptRequest struct {
	Payment *Payment
	Method  string
	// Candidate is the attempt's position in the cascade (0 first).
	Candidate int
	// Reference is the service's own name for the attempt, sent to the
	// provider so that an attempt whose answer was lost (a timeout) can be
	// found again by a status query.
	Reference string
	// ReturnURL is where the provider's pages send the payer when they
	// are done: the merchant's return_url, or for an embedded payment
	// payd's own result page inside the frame. Empty: the provider's own
	// closing page.
	ReturnURL string
	// FrameOrigin is, for an embedded payment, the origin of the merchant
	// page that frames the payer's pages. A provider whose pages may be
	// framed lets this origin, and no other, frame them; one whose pages
	// may not be framed ignores it.
	FrameOrigin string
}

// AttemptReference names the attempt of a payment at a cascade position.
func AttemptReference(paymentID string, candidate int) string {
	return paymentID + "/" + strconv.Itoa(candidate)
}

// AttemptPayment is the payment id of an attempt's reference.
func AttemptPayment(reference string) string {
	id, _, _ := strings.Cut(reference, "/")
	return id
}

// AttemptResult is the provider's answer to an attempt.
type AttemptResult struct {
	ProviderPaymentID string
	// RedirectURL is the provider's page for the payer.
	RedirectURL string
	// QRData is the data of a QR code (SBP).
	QRData string
}

// ProviderStatus is what a status query learns.
type ProviderStatus string

// Provider status answers.
const (
	ProviderStatusUnknown    ProviderStatus = "unknown"
	ProviderStatusPending    ProviderStatus = "pending"
	ProviderStatusAuthorized ProviderStatus = "authorized"
	ProviderStatusSucceeded  ProviderStatus = "succeeded"
	ProviderStatusDeclined   ProviderStatus = "declined"
	ProviderStatusVoided     ProviderStatus = "voided"
)

// ProviderStatusAll returns every answer of a status query.
func ProviderStatusAll() []ProviderStatus {
	return []ProviderStatus{ProviderStatusUnknown, ProviderStatusPending, ProviderStatusAuthorized,
		ProviderStatusSucceeded, ProviderStatusDeclined, ProviderStatusVoided}
}

// Provider is a bank or processor behind the service. Every operation gets
// the store transaction of the change that calls it, so a provider that
// keeps state in the service's database (the sandbox bank) commits it with
// the change; a remote provider ignores it. Notifications come back through
// Service.HandleProviderNotification.
type Provider interface {
	Name() string
	CreateAttempt(ctx context.Context, tx Tx, req AttemptRequest) (*AttemptResult, error)
	Capture(ctx context.Context, tx Tx, providerPaymentID string, amount int64) error
	Void(ctx context.Context, tx Tx, providerPaymentID string) error
	// Status reports an attempt by the provider's id or, when that was
	// never learned, by the service's reference; it also returns the
	// provider's id.
	Status(ctx context.Context, tx Tx, providerPaymentID, reference string) (ProviderStatus, string, error)
	// VerifyNotification checks a notification's signature and reads it.
	VerifyNotification(payload []byte, signature string) (*Notification, error)
}

// Simulator is a provider that can be told an outcome: the sandbox bank.
type Simulator interface {
	Provider
	Simulate(ctx context.Context, tx Tx, p *Payment, outcome SandboxOutcome, delay time.Duration) error
}

// NotificationKind is what a provider's notification reports
// (Notification.Kind).
type NotificationKind string

// Notification kinds.
const (
	NotifyAuthorized      NotificationKind = "authorized"
	NotifySucceeded       NotificationKind = "succeeded"
	NotifyDeclined        NotificationKind = "declined"
	NotifyRefundSucceeded NotificationKind = "refund_succeeded"
	NotifyRefundFailed    NotificationKind = "refund_failed"
	// Dispute notifications: the bank opens a dispute on a payment, asks
	// for evidence, and decides it.
	NotifyDisputeOpened           NotificationKind = "dispute_opened"
	NotifyDisputeEvidenceRequired NotificationKind = "dispute_evidence_required"
	NotifyDisputeWon              NotificationKind = "dispute_won"
	NotifyDisputeLost             NotificationKind = "dispute_lost"
)

// NotificationKindAll returns every notification kind: the payment's, the
// refund's, the dispute's.
func NotificationKindAll() []NotificationKind {
	return []NotificationKind{NotifyAuthorized, NotifySucceeded, NotifyDeclined, NotifyRefundSucceeded, NotifyRefundFailed,
		NotifyDisputeOpened, NotifyDisputeEvidenceRequired, NotifyDisputeWon, NotifyDisputeLost}
}

// Notification is a provider's asynchronous report of an outcome.
type Notification struct {
	ID                string `json:"id"`
	ProviderPaymentID string `json:"provider_payment_id"`
	// RefundID names the refund of a refund notification.
	RefundID      string                `json:"refund_id,omitempty"`
	Kind          NotificationKind      `json:"kind"`
	Reason        string                `json:"reason,omitempty"`
	ProviderCode  string                `json:"provider_code,omitempty"`
	Amount        int64                 `json:"amount,omitempty"`
	Authorization *AuthorizationDetails `json:"authorization,omitempty"`
	Method        *PaymentMethodData    `json:"method,omitempty"`
	// Dispute carries the bank's dispute of a dispute notification.
	Dispute *DisputeNotice `json:"dispute,omitempty"`
}

// DisputeNotice is the dispute part of a bank's notification: its own id
// for the dispute, and on opening what the dispute is (the sum in
// Notification.Amount, the payment's whole refundable amount when zero).
type DisputeNotice struct {
	ID               string      `json:"id"`
	Kind             DisputeKind `json:"kind,omitempty"`
	ReasonCode       string      `json:"reason_code,omitempty"`
	EvidenceDeadline *time.Time  `json:"evidence_deadline,omitempty"`
	BankFine         *int64      `json:"bank_fine,omitempty"`
	Resolution       string      `json:"resolution,omitempty"`
}

// DisputeSimulator is a provider that can be told the next step of a
// dispute: the sandbox bank. It answers through a dispute notification.
type DisputeSimulator interface {
	Provider
	SimulateDispute(ctx context.Context, tx Tx, d *Dispute, kind NotificationKind, delay time.Duration) error
}

// Route chooses the ordered cascade of providers for a test payment by
// region, method and currency. Live payments are routed by the operator's
// table instead (ProviderRoute).
type Route func(region Region, method string, currency money.Currency) []string

// Discrepancy is a provider report that could not be applied, kept for
// reconciliation: a late notification for a payment already final, a
// repeated one for a refund already decided, a dispute's report that
// cannot apply.
type Discrepancy struct {
	ID             string           `json:"id"`
	PaymentID      string           `json:"payment_id"`
	Provider       string           `json:"provider"`
	NotificationID string           `json:"notification_id"`
	Kind           NotificationKind `json:"kind"`
	// ObjectStatus is the status of the object the report was about
	// when it arrived: the payment's for a payment's report or a new
	// dispute, the refund's for a refund's report, the dispute's for a
	// report on a known dispute. Its JSON name, payment_status, is older
	// than refunds and disputes and stays: it is the stored document's
	// (the operator API writes the same name, internal/operator).
	ObjectStatus      string    `json:"payment_status"`
	Detail            string    `json:"detail"`
	CreatedAt         time.Time `json:"created_at"`
	ProviderPaymentID string    `json:"provider_payment_id"`
}

// Job kinds the payment flow enqueues; package jobs runs them.

// PaymentExpireArgs cancels a payment whose confirmation time or hold ran
// out. Force applies the expiry now (sandbox `expire`).
type PaymentExpireArgs struct {
	PaymentID string `json:"payment_id"`
	Force     bool   `json:"force,omitempty"`
}

// Kind names the job.
func (PaymentExpireArgs) Kind() string { return "payment_expire" }

// ProviderNotificationArgs delivers a provider's signed notification to the
// service, at its time.
type ProviderNotificationArgs struct {
	Provider  string `json:"provider"`
	Payload   []byte `json:"payload"`
	Signature string `json:"signature"`
}

// Kind names the job.
func (ProviderNotificationArgs) Kind() string { return "provider_notification" }

// ProviderStatusArgs asks a provider what became of an attempt.
type ProviderStatusArgs struct {
	PaymentID         string `json:"payment_id"`
	Provider          string `json:"provider"`
	ProviderPaymentID string `json:"provider_payment_id,omitempty"`
	Reference         string `json:"reference,omitempty"`
}

// Kind names the job.
func (ProviderStatusArgs) Kind() string { return "provider_status" }

// Provider returns a registered provider by name.
func (s *Service) Provider(name string) (Provider, bool) {
	p, ok := s.providers[name]
	return p, ok
}

// startAttempt runs the cascade, the route read for the payment and
// method in tx: each candidate in order until one takes the attempt. A
// timeout moves on to the next candidate and schedules a status query of
// the one that timed out, so an attempt that was created after all is
// found and settled. It is the only way to a provider attempt, and it
// refuses a payment of a shop with the pre-check on that its shop has not
// allowed; the cascade's later candidates go by that one decision.
func (s *Service) startAttempt(ctx context.Context, tx Tx, shop *Shop, pay *Payment, method string, candidates []string) error {
	if err := precheckGate(shop, pay); err != nil {
		return err
	}
	now := s.clock.Now()
	for i, name := range candidates {
		pr, ok := s.providers[name]
		if !ok {
			continue
		}
		ref := AttemptReference(pay.ID, i)
		cctx, done := s.providerCall(ctx, name, "create_attempt")
		res, err := pr.CreateAttempt(cctx, tx, AttemptRequest{Payment: pay, Method: method, Candidate: i, Reference: ref,
			ReturnURL: pay.payerReturnURL(), FrameOrigin: pay.EmbedOrigin})
		done(err)
		if errors.Is(err, ErrProviderTimeout) {
			pay.Attempts = append(pay.Attempts, Attempt{Provider: name, Method: method, Result: "timeout", At: now})
			if err := s.jobs.Enqueue(ctx, tx, ProviderStatusArgs{PaymentID: pay.ID, Provider: name, Reference: ref}, now.Add(30*time.Second)); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		pay.Provider, pay.ProviderPaymentID = name, res.ProviderPaymentID
		pay.Attempts = append(pay.Attempts, Attempt{Provider: name, ProviderPaymentID: res.ProviderPaymentID, Method: method, Result: "created", At: now})
		pay.PaymentMethod = &PaymentMethodData{Type: method}
		if res.QRData != "" {
			pay.ConfirmationData = res.QRData
		}
		pay.redirect = res.RedirectURL
		return nil
	}
	return &Error{Code: CodeProviderUnavailable, Cause: CauseProvider, RetryAfter: 30 * time.Second,
		Message: "no payment provider could take the attempt; retry later"}
}

func (s *Service) providerError(err error) error {
	if errors.Is(err, ErrProviderTimeout) {
		return &Error{Code: CodeProviderUnavailable, Cause: CauseProvider, RetryAfter: 30 * time.Second, Message: "the provider did not answer; retry with the same Idempotency-Key"}
	}
	return err
}

// providerCall brackets one call to a provider for the adapters
// (Config.ProviderCallFunc): the call is made with the context it returns,
// and the function it returns is called with the call's error.
func (s *Service) providerCall(ctx context.Context, provider, op string) (context.Context, func(error)) {
	if s.providerCallFunc == nil {
		return ctx, ignoreCallError
	}
	return s.providerCallFunc(ctx, provider, op)
}

func ignoreCallError(error) {}
