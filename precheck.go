package payd

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/paydhq/payd/webhook"
)

// ErrPrecheckDenied is returned to the checkout when the merchant's
// pre-check denied the payment.
var ErrPrecheckDenied = &Error{Code: CodeInvalidState, Message: "the shop declined this payment"}

// precheck sends `payment.authorize_request` to the shop's subscribed
// endpoint and waits up to five seconds for `{"decision":"allow"}` or
// `{"decision":"deny","reason":...}`. No endpoint, no answer, an answer
// that is not 2xx JSON with a known decision: the shop's setting decides
// (deny by default). The event is stored like any other.
func (s *Service) precheck(ctx context.Context, shop *Shop, pay *Payment) (allow bool, reason string) {
	fallback := shop.Settings.AuthorizeRequestDefaultAllow
	var ev *Event
	var ep *WebhookEndpoint
	err := s.store.Tx(ctx, func(tx Tx) (err error) {
		if ev, err = s.RecordEvent(ctx, tx, NewEventParams{Shop: shop, Test: pay.Test, Type: EventPaymentAuthorizeRequest,
			ObjectType: "payment", ObjectID: pay.ID, Object: pay.View("")}); err != nil {
			return err
		}
		list, err := tx.WebhookEndpointList(ctx, shop.ID, pay.Test)
		if err != nil {
			return err
		}
		// The oldest active subscribed endpoint answers for the shop.
		for i := len(list) - 1; i >= 0; i-- {
			if list[i].Status == WebhookActive && list[i].Subscribed(EventPaymentAuthorizeRequest) {
				ep = list[i]
				break
			}
		}
		return nil
	})
	if err != nil || ep == nil {
		return fallback, "no pre-check endpoint"
	}
	now := s.clock.Now()
	res, sendErr := s.sender.Send(ctx, ep.URL, map[string]string{
		"Content-Type":          "application/json",
		"User-Agent":            webhook.UserAgent,
		webhook.EventIDHeader:   ev.ID,
		webhook.SignatureHeader: webhook.Header(now, ev.Body, ep.signingSecrets(now)...),
	}, ev.Body, PrecheckTimeout)
	attempt := &DeliveryAttempt{ID: s.ids.New("att_", now), EventID: ev.ID, EndpointID: ep.ID, URL: ep.URL, At: now}
	decision := ""
	if sendErr != nil {
		attempt.Error = sendErr.Error()
	} else {
		attempt.StatusCode, attempt.DurationMS = res.StatusCode, res.Duration.Milliseconds()
		attempt.ResponseBody = truncateUTF8(res.Body, MaxLoggedResponse)
		var answer struct {
			Decision string `json:"decision"`
			Reason   string `json:"reason"`
		}
		if res.StatusCode >= 200 && res.StatusCode < 300 && json.Unmarshal(res.Body, &answer) == nil {
			decision, reason = answer.Decision, answer.Reason
		}
	}
	summary := EventDelivery{Status: DeliverySucceeded, Attempts: 1, LastAttemptAt: &now}
	if attempt.StatusCode != 0 {
		summary.LastResponseCode = &attempt.StatusCode
	}
	if decision != "allow" && decision != "deny" {
		summary.Status = DeliveryFailed
		attempt.Error += " (no usable decision; the shop's default applies)"
	}
	if err := s.store.Tx(ctx, func(tx Tx) error {
		if err := tx.DeliveryAttemptInsert(ctx, attempt); err != nil {
			return err
		}
		return tx.EventDeliveryUpdate(ctx, ev.ID, summary)
	}); err != nil {
		s.log.Warn("pre-check log", "err", err.Error())
	}
	switch decision {
	case "allow":
		return true, ""
	case "deny":
		return false, reason
	}
	return fallback, "no usable answer"
}

// denyPayment cancels a pending payment the pre-check denied.
func (s *Service) denyPayment(ctx context.Context, id, reason string) error {
	err := s.store.Tx(ctx, func(tx Tx) error {
		pay, err := tx.PaymentGetForUpdate(ctx, id)
		if err != nil {
			return err
		}
		if pay.Status != PaymentPending || pay.CheckoutUsed {
			return Errorf(CodeInvalidState, "the payment is no longer open")
		}
		pay.CheckoutUsed = true
		return s.cancel(ctx, tx, pay, CancellationDetails{Party: PartyMerchant, Reason: ReasonAuthorizeRequestDenied, ProviderCode: truncate(reason, 64)})
	})
	if err != nil {
		var pe *Error
		if errors.As(err, &pe) {
			return pe
		}
		return err
	}
	return ErrPrecheckDenied
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}
