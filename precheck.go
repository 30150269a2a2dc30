package payd

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/paydhq/payd/webhook"
)

// ErrPrecheckDenied is returned to the checkout when the merchant's
// pre-check denied the payment.
var ErrPrecheckDenied = &Error{Code: CodeInvalidState, Message: "the shop declined this payment"}

// ErrPrecheckBusy is returned while the shop is being asked about the
// payment by another request or job: the payment has one question and one
// decision, so a second asker waits for the first one's answer.
var ErrPrecheckBusy = &Error{Code: CodeInvalidState, Message: "the shop is still deciding on this payment; try again in a few seconds"}

// errPaymentClosed: the payment left pending before the shop decided.
var errPaymentClosed = &Error{Code: CodeInvalidState, Message: "the payment is no longer open"}

// Pre-check decisions.
const (
	PrecheckAllow = "allow"
	PrecheckDeny  = "deny"
)

// Sources of a pre-check decision: the shop's answer, or the shop's
// setting authorize_request_default_allow when no usable answer came.
const (
	PrecheckByAnswer  = "answer"
	PrecheckByDefault = "default"
)

// PrecheckLost is how long a question without a recorded decision counts as
// still being asked. Past it the asker is taken to have stopped (a restart
// during the five seconds of waiting) and the question counts as
// unanswered: the shop's default decides and the shop is not asked again.
const PrecheckLost = 30 * time.Second

// Precheck is the record of a payment's `payment.authorize_request`: the
// question (its event) and, once known, the one decision every provider
// attempt of the payment goes by.
type Precheck struct {
	EventID string    `json:"event_id"`
	AskedAt time.Time `json:"asked_at"`
	// Decision is allow or deny; empty while the shop is being asked.
	Decision  string     `json:"decision,omitempty"`
	By        string     `json:"by,omitempty"`
	Reason    string     `json:"reason,omitempty"`
	DecidedAt *time.Time `json:"decided_at,omitempty"`
}

// allowed reports whether the payment's pre-check allowed it.
func (p *Precheck) allowed() bool { return p != nil && p.Decision == PrecheckAllow }

// precheckGate refuses a provider attempt of a payment whose shop has the
// pre-check on and has not allowed it. Every attempt goes through
// startAttempt, which calls it, so a path that forgot to ask cannot move
// money. Its answer is ErrPrecheckBusy: the caller that meets it (a shop
// that turned the pre-check on a moment ago) asks on its next try.
func precheckGate(shop *Shop, pay *Payment) error {
	if shop.Settings.AuthorizeRequestWebhook && !pay.Precheck.allowed() {
		return ErrPrecheckBusy
	}
	return nil
}

// precheckQuestion is what authorizeRequest sends between its two
// transactions.
type precheckQuestion struct {
	shop *Shop
	ev   *Event
	ep   *WebhookEndpoint
}

// authorizeRequest returns the shop's decision on a pending payment,
// asking the shop at most once per payment: a decision already recorded is
// returned as it is. The question is recorded (with its event) in one
// transaction, sent with no transaction open, and the answer recorded in
// another; a deny cancels the payment in that last transaction. The shop's
// oldest active endpoint subscribed to `payment.authorize_request` answers
// within five seconds `{"decision":"allow"}` or
// `{"decision":"deny","reason":...}`; no endpoint, no answer, or an answer
// that is not 2xx JSON with a known decision leaves it to the shop's
// setting (deny by default).
//
// Errors: ErrPrecheckBusy while another asker waits for the answer;
// invalid_state when the payment is not pending.
func (s *Service) authorizeRequest(ctx context.Context, paymentID string) (bool, error) {
	var q *precheckQuestion
	var decided *Precheck
	err := s.store.Tx(ctx, func(tx Tx) error {
		pay, err := tx.PaymentGetForUpdate(ctx, paymentID)
		if err != nil {
			return notFoundAs(err, "payment")
		}
		if pc := pay.Precheck; pc != nil && pc.Decision != "" {
			decided = pc
			return nil
		}
		if pay.Status != PaymentPending {
			return errPaymentClosed
		}
		shop, err := tx.ShopGet(ctx, pay.ShopID)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		if pc := pay.Precheck; pc != nil {
			if now.Sub(pc.AskedAt) < PrecheckLost {
				return ErrPrecheckBusy
			}
			decided = pc
			return s.decidePrecheck(ctx, tx, pay, defaultDecision(shop), PrecheckByDefault, "no answer recorded")
		}
		ev, err := s.RecordEvent(ctx, tx, NewEventParams{Shop: shop, Test: pay.Test, Type: EventPaymentAuthorizeRequest,
			ObjectType: "payment", ObjectID: pay.ID, Object: pay.View("")})
		if err != nil {
			return err
		}
		pay.Precheck = &Precheck{EventID: ev.ID, AskedAt: now}
		ep, err := precheckEndpoint(ctx, tx, shop, pay.Test)
		if err != nil {
			return err
		}
		if ep == nil {
			decided = pay.Precheck
			return s.decidePrecheck(ctx, tx, pay, defaultDecision(shop), PrecheckByDefault, "no pre-check endpoint")
		}
		q = &precheckQuestion{shop: shop, ev: ev, ep: ep}
		return tx.PaymentUpdate(ctx, pay)
	})
	if err != nil {
		return false, err
	}
	if decided != nil {
		return decided.Decision == PrecheckAllow, nil
	}
	return s.askShop(ctx, paymentID, q)
}

// precheckEndpoint is the endpoint that answers for the shop: its oldest
// active endpoint subscribed to `payment.authorize_request`, or nil.
func precheckEndpoint(ctx context.Context, tx Tx, shop *Shop, test bool) (*WebhookEndpoint, error) {
	list, err := tx.WebhookEndpointList(ctx, shop.ID, test)
	if err != nil {
		return nil, err
	}
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].Status == WebhookActive && list[i].Subscribed(EventPaymentAuthorizeRequest) {
			return list[i], nil
		}
	}
	return nil, nil
}

func defaultDecision(shop *Shop) string {
	if shop.Settings.AuthorizeRequestDefaultAllow {
		return PrecheckAllow
	}
	return PrecheckDeny
}

// askShop sends the recorded question, with no transaction open while the
// shop takes up to PrecheckTimeout to answer, and records the answer. A
// payer who leaves the page meanwhile does not cut the question short: the
// answer is the shop's, and it is recorded whoever still waits for it.
func (s *Service) askShop(ctx context.Context, paymentID string, q *precheckQuestion) (bool, error) {
	ctx = context.WithoutCancel(ctx)
	now := s.clock.Now()
	res, sendErr := s.sender.Send(ctx, q.ep.URL, map[string]string{
		"Content-Type":          "application/json",
		"User-Agent":            webhook.UserAgent,
		webhook.EventIDHeader:   q.ev.ID,
		webhook.SignatureHeader: webhook.Header(now, q.ev.Body, q.ep.signingSecrets(now)...),
	}, q.ev.Body, PrecheckTimeout)
	attempt := &DeliveryAttempt{ID: s.ids.NewFor(PrefixAttempt, now, q.ev.MerchantID), EventID: q.ev.ID, EndpointID: q.ep.ID, URL: q.ep.URL, At: now}
	var answer struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	if sendErr != nil {
		attempt.Error = sendErr.Error()
	} else {
		attempt.StatusCode, attempt.DurationMS = res.StatusCode, res.Duration.Milliseconds()
		attempt.ResponseBody = truncateUTF8(res.Body, MaxLoggedResponse)
		if res.StatusCode < 200 || res.StatusCode > 299 || json.Unmarshal(res.Body, &answer) != nil {
			answer.Decision = ""
		}
	}
	summary := EventDelivery{Status: DeliverySucceeded, Attempts: 1, LastAttemptAt: &now}
	if attempt.StatusCode != 0 {
		summary.LastResponseCode = &attempt.StatusCode
	}
	decision, by, reason := answer.Decision, PrecheckByAnswer, answer.Reason
	if decision != PrecheckAllow && decision != PrecheckDeny {
		summary.Status = DeliveryFailed
		attempt.Error += " (no usable decision; the shop's default applies)"
		decision, by, reason = defaultDecision(q.shop), PrecheckByDefault, "no usable answer"
	}
	var result *Precheck
	err := s.store.Tx(ctx, func(tx Tx) error {
		pay, err := tx.PaymentGetForUpdate(ctx, paymentID)
		if err != nil {
			return err
		}
		if err := tx.DeliveryAttemptInsert(ctx, attempt); err != nil {
			return err
		}
		if err := tx.EventDeliveryUpdate(ctx, q.ev.ID, summary); err != nil {
			return err
		}
		result = pay.Precheck
		if result == nil || result.EventID != q.ev.ID || result.Decision != "" {
			// Taken for lost and decided meanwhile: that decision stands.
			return nil
		}
		return s.decidePrecheck(ctx, tx, pay, decision, by, reason)
	})
	if err != nil {
		return false, err
	}
	return result.allowed(), nil
}

// decidePrecheck records the decision on the payment in tx. A deny of a
// payment still pending cancels it with authorize_request_denied (the
// shop's reason is kept as provider_code) and closes its checkout; a
// decision arriving after the payment left pending is only recorded.
func (s *Service) decidePrecheck(ctx context.Context, tx Tx, pay *Payment, decision, by, reason string) error {
	now := s.clock.Now()
	pc := pay.Precheck
	pc.Decision, pc.By, pc.Reason, pc.DecidedAt = decision, by, truncate(reason, 256), &now
	if decision == PrecheckAllow || pay.Status != PaymentPending {
		return tx.PaymentUpdate(ctx, pay)
	}
	pay.CheckoutUsed = true
	d := CancellationDetails{Party: PartyMerchant, Reason: ReasonAuthorizeRequestDenied}
	if by == PrecheckByAnswer {
		d.ProviderCode = truncate(reason, 64)
	}
	return s.cancel(ctx, tx, pay, d)
}

// isClosed reports whether err says the payment left pending.
func isClosed(err error) bool { return errors.Is(err, errPaymentClosed) }

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}
