package sandbank

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/mac"
)

// Attempt states of the bank.
const (
	stateCreated    = "created"
	stateAuthorized = "authorized"
	stateCaptured   = "captured"
	stateVoided     = "voided"
	stateDeclined   = "declined"
	stateNoOutcome  = "no_outcome"
)

// ErrDecided is returned for a second decision on an attempt.
var ErrDecided = errors.New("this operation was already processed")

// Bank is one sandbox provider. The service registers two, a primary and a
// backup, so that the cascade has somewhere to go when the primary times
// out (amount digits 04).
type Bank struct {
	name string
	// notifications signs the bank's notifications, the payload alone
	// with no label, as the bank always has: queued ones stay valid.
	notifications mac.Signer
	jobs          payd.Jobs
	clock         payd.Clock
	publicURL     string
}

var _ payd.Simulator = (*Bank)(nil)

// New returns a sandbox bank named name that signs its notifications with
// key and links its pages under publicURL.
func New(name string, key []byte, jobs payd.Jobs, clock payd.Clock, publicURL string) *Bank {
	return &Bank{name: name, notifications: mac.New(key, ""), jobs: jobs, clock: clock, publicURL: publicURL}
}

// Name implements payd.Provider.
func (b *Bank) Name() string { return b.name }

// attemptIDs names attempts: an attempt is kept with its payment's
// merchant, so its identifier carries the merchant's key.
var attemptIDs = payd.NewIDGen()

// CreateAttempt opens an attempt. Only two outcomes happen by themselves,
// in the bank's answer: a decline (digits 01 or a decline override) and a
// timeout of the first candidate (digits 04).
func (b *Bank) CreateAttempt(ctx context.Context, tx payd.Tx, req payd.AttemptRequest) (*payd.AttemptResult, error) {
	p := req.Payment
	pl := planFor(p)
	now := b.clock.Now()
	a := &payd.SandboxAttempt{
		ID: attemptIDs.NewFor(payd.PrefixSandboxAttempt, now, p.MerchantID), Provider: b.name, PaymentID: p.ID,
		Reference: req.Reference,
		Method:    req.Method, Amount: p.Amount.Minor, Currency: string(p.Amount.Currency), Capture: p.Capture,
		Region: p.Region, Outcome: pl.Outcome, DeclineCode: pl.DeclineCode, DelaySeconds: pl.Delay,
		State: stateCreated, ReturnURL: req.ReturnURL, FrameOrigin: req.FrameOrigin, Locale: p.Locale, CreatedAt: now,
		MerchantDisplayName: p.MerchantDisplayName, Description: p.Description,
	}
	if pl.Outcome == payd.SandboxProviderTimeout && req.Candidate == 0 {
		// The bank opens the attempt but its answer is lost on the way:
		// the service sees a timeout, and finds the attempt again only by
		// asking for its reference later.
		a.State = stateAuthorized
		if err := tx.SandboxAttemptInsert(ctx, a); err != nil {
			return nil, err
		}
		return nil, payd.ErrProviderTimeout
	}
	if pl.Outcome == payd.SandboxDecline {
		if err := b.notify(ctx, tx, a, payd.Notification{Kind: payd.NotifyDeclined, Reason: pl.DeclineCode, ProviderCode: pl.DeclineCode}, now); err != nil {
			return nil, err
		}
		a.State = stateDeclined
	}
	if err := tx.SandboxAttemptInsert(ctx, a); err != nil {
		return nil, err
	}
	res := &payd.AttemptResult{ProviderPaymentID: a.ID, RedirectURL: b.publicURL + "/sandbox/bank/" + a.ID}
	if app, ok := appOf(req.Method); ok {
		res.RedirectURL = b.publicURL + app.path + a.ID
		res.QRData = res.RedirectURL
	}
	return res, nil
}

// Capture charges an authorized attempt.
func (b *Bank) Capture(ctx context.Context, tx payd.Tx, id string, amount int64) error {
	return b.move(ctx, tx, id, stateAuthorized, stateCaptured)
}

// Void releases an authorization; voiding an attempt that never got one is
// a no-op, as at a real bank.
func (b *Bank) Void(ctx context.Context, tx payd.Tx, id string) error {
	err := b.move(ctx, tx, id, stateAuthorized, stateVoided)
	if errors.Is(err, ErrDecided) {
		return nil
	}
	return err
}

func (b *Bank) move(ctx context.Context, tx payd.Tx, id, from, to string) error {
	a, err := tx.SandboxAttemptGetForUpdate(ctx, id)
	if err != nil {
		return err
	}
	if a.State != from {
		return fmt.Errorf("sandbox attempt %s is %s: %w", id, a.State, ErrDecided)
	}
	a.State = to
	return tx.SandboxAttemptUpdate(ctx, a)
}

// Status reports an attempt by id, or by the service's reference.
func (b *Bank) Status(ctx context.Context, tx payd.Tx, id, reference string) (payd.ProviderStatus, string, error) {
	var a *payd.SandboxAttempt
	var err error
	if id != "" {
		a, err = tx.SandboxAttemptGet(ctx, id)
	} else {
		a, err = tx.SandboxAttemptGetByReference(ctx, b.name, reference)
	}
	if errors.Is(err, payd.ErrNoRows) {
		return payd.ProviderStatusUnknown, "", nil
	}
	if err != nil {
		return "", "", err
	}
	switch a.State {
	case stateAuthorized:
		return payd.ProviderStatusAuthorized, a.ID, nil
	case stateCaptured:
		return payd.ProviderStatusSucceeded, a.ID, nil
	case stateDeclined:
		return payd.ProviderStatusDeclined, a.ID, nil
	case stateVoided:
		return payd.ProviderStatusVoided, a.ID, nil
	}
	return payd.ProviderStatusPending, a.ID, nil
}

type envelope struct {
	Provider string            `json:"provider"`
	SentAt   time.Time         `json:"sent_at"`
	Event    payd.Notification `json:"event"`
}

// sign is lowercase hex HMAC-SHA256 of the payload.
func (b *Bank) sign(payload []byte) string { return b.notifications.Sign(string(payload)) }

// VerifyNotification checks the signature in constant time and reads the
// notification.
func (b *Bank) VerifyNotification(payload []byte, signature string) (*payd.Notification, error) {
	if !b.notifications.Verify(signature, string(payload)) {
		return nil, errors.New("bad signature")
	}
	var env envelope
	if err := json.Unmarshal(payload, &env); err != nil || env.Provider != b.name {
		return nil, errors.New("malformed notification")
	}
	return &env.Event, nil
}

// notify signs a notification and schedules its delivery to the core at
// at; the attempt keeps it, to send it again for duplicate_webhook.
func (b *Bank) notify(ctx context.Context, tx payd.Tx, a *payd.SandboxAttempt, n payd.Notification, at time.Time) error {
	payload, err := b.send(ctx, tx, a.ID, n, at)
	if err != nil {
		return err
	}
	a.LastNotification = payload
	return nil
}

// send signs a notification about the attempt attemptID and schedules its
// delivery to the core at at; it returns the signed payload.
func (b *Bank) send(ctx context.Context, tx payd.Tx, attemptID string, n payd.Notification, at time.Time) ([]byte, error) {
	n.ProviderPaymentID = attemptID
	if n.ID == "" {
		n.ID = payd.PrefixNotification + ulid.MustNew(ulid.Timestamp(b.clock.Now()), rand.Reader).String()
	}
	payload, err := json.Marshal(envelope{Provider: b.name, SentAt: b.clock.Now(), Event: n})
	if err != nil {
		return nil, err
	}
	return payload, b.enqueue(ctx, tx, payload, at)
}

// enqueue signs a notification's payload and schedules its delivery to the
// core at at.
func (b *Bank) enqueue(ctx context.Context, tx payd.Tx, payload []byte, at time.Time) error {
	return b.jobs.Enqueue(ctx, tx, payd.ProviderNotificationArgs{Provider: b.name, Payload: payload, Signature: b.sign(payload)}, at)
}

func (b *Bank) resend(ctx context.Context, tx payd.Tx, a *payd.SandboxAttempt, at time.Time) error {
	if len(a.LastNotification) == 0 {
		return errors.New("nothing was sent for this attempt yet")
	}
	return b.enqueue(ctx, tx, a.LastNotification, at)
}

// approve is the payer's confirmation on the bank's pages: Pay in a QR
// app, or the right 3-D Secure code. It asks for a charge, or an
// authorization for a two-stage payment; the plan decides the rest.
func (b *Bank) approve(ctx context.Context, tx payd.Tx, a *payd.SandboxAttempt, threeDS bool) error {
	kind := payd.NotifySucceeded
	if !a.Capture {
		kind = payd.NotifyAuthorized
	}
	return b.confirm(ctx, tx, a, kind, threeDS, b.clock.Now())
}

// confirm applies the attempt's plan to the payer's confirmation, whatever
// triggered it — a page or simulate: the amount's digits or the metadata
// chose the outcome, and the trigger only applies it. kind is what the
// trigger asks for (a charge or an authorization), at when the bank
// answers. The plan may turn it into an authorization (02), a failed
// 3-D Secure (03, also for QR methods, which have no 3-D Secure page of
// their own), news that travels late (05) or twice (06), or no answer at
// all (07: the payment then expires).
func (b *Bank) confirm(ctx context.Context, tx payd.Tx, a *payd.SandboxAttempt, kind payd.NotificationKind, threeDS bool, at time.Time) error {
	switch a.Outcome {
	case payd.SandboxThreeDSFail:
		return b.declineAt(ctx, tx, a, payd.ReasonThreeDSFailed, at)
	case payd.SandboxDecline:
		// The bank declined in its answer to the attempt already; a plan
		// of a decline never gets here, but if it did it would decline.
		return b.declineAt(ctx, tx, a, a.DeclineCode, at)
	case payd.SandboxAuthorize:
		kind = payd.NotifyAuthorized
	case payd.SandboxExpire:
		a.State = stateNoOutcome
		return tx.SandboxAttemptUpdate(ctx, a)
	}
	a.State = stateCaptured
	if kind == payd.NotifyAuthorized {
		a.State = stateAuthorized
	}
	n := payd.Notification{Kind: kind, Method: b.methodData(a), Authorization: authorization(threeDS)}
	if a.Outcome == payd.SandboxLateWebhook {
		at = at.Add(time.Duration(a.DelaySeconds) * time.Second)
	}
	if err := b.notify(ctx, tx, a, n, at); err != nil {
		return err
	}
	if a.Outcome == payd.SandboxDuplicateWebhook {
		if err := b.resend(ctx, tx, a, at.Add(time.Second)); err != nil {
			return err
		}
	}
	return tx.SandboxAttemptUpdate(ctx, a)
}

// decline is the bank saying no with reason.
func (b *Bank) decline(ctx context.Context, tx payd.Tx, a *payd.SandboxAttempt, reason string) error {
	return b.declineAt(ctx, tx, a, reason, b.clock.Now())
}

// declineAt is the bank saying no with reason, its answer sent at at.
func (b *Bank) declineAt(ctx context.Context, tx payd.Tx, a *payd.SandboxAttempt, reason string, at time.Time) error {
	a.State = stateDeclined
	if err := b.notify(ctx, tx, a, payd.Notification{Kind: payd.NotifyDeclined, Reason: reason, ProviderCode: reason, Method: b.methodData(a)}, at); err != nil {
		return err
	}
	return tx.SandboxAttemptUpdate(ctx, a)
}

// Test cards of the sandbox: one per region, never a full number.
func (b *Bank) methodData(a *payd.SandboxAttempt) *payd.PaymentMethodData {
	switch a.Method {
	case payd.MethodSBP:
		return &payd.PaymentMethodData{Type: payd.MethodSBP, SBP: &payd.SBPData{BankName: "Sandbox Bank"}}
	case payd.MethodKZQR:
		return &payd.PaymentMethodData{Type: payd.MethodKZQR}
	}
	card := &payd.CardData{First6: "220220", Last4: "0004", Brand: "mir", IssuerCountry: "RU", IssuerName: "Sandbox Bank"}
	if a.Region == payd.RegionKZ {
		card = &payd.CardData{First6: "440043", Last4: "0004", Brand: "visa", IssuerCountry: "KZ", IssuerName: "Sandbox Bank"}
	}
	return &payd.PaymentMethodData{Type: payd.MethodBankCard, Card: card}
}

func authorization(threeDS bool) *payd.AuthorizationDetails {
	digits := func(n int) string {
		b := make([]byte, n)
		rand.Read(b)
		for i := range b {
			b[i] = '0' + b[i]%10
		}
		return string(b)
	}
	return &payd.AuthorizationDetails{RRN: digits(12), AuthCode: digits(6),
		ThreeDSecure: &payd.ThreeDSecure{Applied: threeDS, ChallengeCompleted: threeDS}}
}

// Simulate applies an outcome of `POST /test/payments/{id}/simulate`
// through the same notification path as the bank's pages.
func (b *Bank) Simulate(ctx context.Context, tx payd.Tx, p *payd.Payment, outcome payd.SandboxOutcome, delay time.Duration) error {
	a, err := tx.SandboxAttemptGetForUpdate(ctx, p.ProviderPaymentID)
	if err != nil {
		return err
	}
	at := b.clock.Now().Add(delay)
	send := func(n payd.Notification, state string) error {
		if state != "" {
			a.State = state
		}
		if n.Method == nil {
			n.Method = b.methodData(a)
		}
		if err := b.notify(ctx, tx, a, n, at); err != nil {
			return err
		}
		return tx.SandboxAttemptUpdate(ctx, a)
	}
	// 3-D Secure exists for cards only.
	card := a.Method == payd.MethodBankCard
	switch outcome {
	case payd.SandboxSucceed, payd.SandboxAuthorize:
		kind := payd.NotifySucceeded
		if outcome == payd.SandboxAuthorize {
			kind = payd.NotifyAuthorized
		}
		switch {
		case a.State == stateCreated:
			// The payer's confirmation, simulated: the plan decides what
			// it leads to, as on the pages.
			return b.confirm(ctx, tx, a, kind, card, at)
		case a.State == stateAuthorized && p.Status == payd.PaymentWaitingForCapture && kind == payd.NotifySucceeded:
			// The hold is charged.
			return send(payd.Notification{Kind: kind, Authorization: authorization(card)}, stateCaptured)
		}
		// The bank has answered already (its answer may still be on the
		// way, or by the plan it gives none): nothing to add.
		return nil
	case payd.SandboxDecline:
		reason := a.DeclineCode
		if reason == "" || reason == payd.ReasonGeneralDecline {
			reason = payd.ReasonIssuerDeclined
		}
		return send(payd.Notification{Kind: payd.NotifyDeclined, Reason: reason, ProviderCode: reason}, stateDeclined)
	case payd.SandboxThreeDSFail:
		return send(payd.Notification{Kind: payd.NotifyDeclined, Reason: payd.ReasonThreeDSFailed, ProviderCode: "3ds_failed"}, stateDeclined)
	case payd.SandboxLateWebhook:
		return send(payd.Notification{Kind: payd.NotifySucceeded, Authorization: authorization(card)}, "")
	case payd.SandboxDuplicateWebhook:
		return b.resend(ctx, tx, a, at)
	case payd.SandboxProviderTimeout:
		return b.jobs.Enqueue(ctx, tx, payd.ProviderStatusArgs{PaymentID: p.ID, Provider: b.name, ProviderPaymentID: a.ID}, at)
	}
	return fmt.Errorf("sandbox: outcome %q has no simulation", outcome)
}

// Refund answers a refund asynchronously through the notification path:
// it succeeds unless the refund's metadata says `sandbox_outcome: decline`
// (then it is canceled with the `sandbox_decline_code`, or
// general_decline); `sandbox_delay_seconds` delays the answer.
func (b *Bank) Refund(ctx context.Context, tx payd.Tx, p *payd.Payment, r *payd.Refund) error {
	n := payd.Notification{Kind: payd.NotifyRefundSucceeded, RefundID: r.ID}
	if payd.SandboxOutcome(r.Metadata["sandbox_outcome"]) == payd.SandboxDecline {
		code := r.Metadata["sandbox_decline_code"]
		if !declineCodes[code] {
			code = payd.ReasonGeneralDecline
		}
		n = payd.Notification{Kind: payd.NotifyRefundFailed, RefundID: r.ID, Reason: code, ProviderCode: code}
	}
	at := b.clock.Now()
	if v, err := strconv.Atoi(r.Metadata["sandbox_delay_seconds"]); err == nil && v >= 0 && v <= 3600 {
		at = at.Add(time.Duration(v) * time.Second)
	}
	// The attempt is neither read nor locked: a refund's answer changes
	// nothing on it (duplicate_webhook replays the payment's notification,
	// not a refund's), and the payment's lock, which the caller holds,
	// already orders everything done to this payment. A refund drawing on
	// the available balance holds the merchant's lock here too, so a read
	// would lengthen the section every such refund of the merchant queues
	// for.
	_, err := b.send(ctx, tx, p.ProviderPaymentID, n, at)
	return err
}
