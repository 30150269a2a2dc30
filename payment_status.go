package payd

import (
	"context"
	"slices"
)

// invalidState refuses an operation the payment's status does not allow,
// with a hint where the merchant likely meant another operation.
func invalidState(pay *Payment, op string) *Error {
	hint := ""
	if op == "capture" && pay.Status == PaymentSucceeded {
		hint = "; it is already captured"
	}
	if pay.Status == PaymentSucceeded && op == "cancel" {
		hint = "; use a refund"
	}
	return Errorf(CodeInvalidState, "cannot %s a payment in status %s%s", op, pay.Status, hint)
}

// moveAllowed refuses a status change the transition table does not hold.
// Each operation checks its own rule first (capture only from
// waiting_for_capture, and so on) with its own message; this is the last
// word, so that no path can revive a final payment.
func moveAllowed(pay *Payment, to PaymentStatus) error {
	if !pay.Status.CanBecome(to) {
		return Errorf(CodeInvalidState, "a payment in status %s cannot become %s", pay.Status, to)
	}
	return nil
}

// succeed moves a payment to succeeded with sum captured, fixes its fee by
// the tariff in force, and records the event.
func (s *Service) succeed(ctx context.Context, tx Tx, pay *Payment, sum int64) error {
	if err := moveAllowed(pay, PaymentSucceeded); err != nil {
		return err
	}
	now := s.clock.Now()
	shop, err := tx.ShopGet(ctx, pay.ShopID)
	if err != nil {
		return err
	}
	method := pay.Method()
	if pay.AuthorizedAt == nil {
		pay.AuthorizedAt = &now
	}
	tariff := shop.Settings.TariffFor(method, pay.Amount.Currency)
	pay.Status, pay.CapturedAmount, pay.CapturedAt = PaymentSucceeded, sum, &now
	pay.FeeAmount, pay.FeeFixed = tariff.Fee(sum), true
	pay.HoldExpiresAt = nil
	if err := s.postCapture(ctx, tx, shop, pay, tariff); err != nil {
		return err
	}
	if err := s.savePaymentEvent(ctx, tx, shop, pay, EventPaymentSucceeded); err != nil {
		return err
	}
	// Every way to success (notification, status query, capture,
	// simulate) comes through here, so a one-time link is paid in the
	// transaction of its payment's success, whatever the trigger.
	if pay.LinkID != "" {
		return s.linkPaymentSucceeded(ctx, tx, shop, pay)
	}
	return nil
}

// authorize moves a pending payment to waiting_for_capture and schedules
// the end of its hold.
func (s *Service) authorize(ctx context.Context, tx Tx, pay *Payment) error {
	if err := moveAllowed(pay, PaymentWaitingForCapture); err != nil {
		return err
	}
	now := s.clock.Now()
	shop, err := tx.ShopGet(ctx, pay.ShopID)
	if err != nil {
		return err
	}
	method := pay.Method()
	hold := now.Add(shop.Settings.HoldFor(method))
	pay.Status, pay.AuthorizedAt, pay.HoldExpiresAt = PaymentWaitingForCapture, &now, &hold
	if err := s.jobs.Enqueue(ctx, tx, PaymentExpireArgs{PaymentID: pay.ID}, hold); err != nil {
		return err
	}
	return s.savePaymentEvent(ctx, tx, shop, pay, EventPaymentWaitingForCapture)
}

// cancel moves a payment to canceled with details.
func (s *Service) cancel(ctx context.Context, tx Tx, pay *Payment, d CancellationDetails) error {
	if err := moveAllowed(pay, PaymentCanceled); err != nil {
		return err
	}
	now := s.clock.Now()
	shop, err := tx.ShopGet(ctx, pay.ShopID)
	if err != nil {
		return err
	}
	pay.Status, pay.CanceledAt, pay.Cancellation, pay.HoldExpiresAt = PaymentCanceled, &now, &d, nil
	return s.savePaymentEvent(ctx, tx, shop, pay, EventPaymentCanceled)
}

func (s *Service) savePaymentEvent(ctx context.Context, tx Tx, shop *Shop, pay *Payment, t EventType) error {
	if err := tx.PaymentUpdate(ctx, pay); err != nil {
		return err
	}
	_, err := s.RecordEvent(ctx, tx, NewEventParams{
		Shop: shop, Test: pay.Test, Type: t, ObjectType: "payment", ObjectID: pay.ID, Object: pay.View(""),
	})
	return err
}

// ExpirePayment cancels a payment whose confirmation time or hold has run
// out; the expiry sweep runs it for pending payments past expires_at, and
// a job at the hold's end. An early or stale run changes nothing.
func (s *Service) ExpirePayment(ctx context.Context, id string, force bool) error {
	return s.store.Tx(ctx, func(tx Tx) error {
		pay, err := tx.PaymentGetForUpdate(ctx, id)
		if err != nil {
			return notFoundAs(err, "payment")
		}
		now := s.clock.Now()
		switch {
		case pay.Status == PaymentPending && (force || !now.Before(pay.ExpiresAt)):
			return s.cancel(ctx, tx, pay, CancellationDetails{Party: PartyService, Reason: ReasonExpiredOnConfirmation})
		case pay.Status == PaymentWaitingForCapture && (force || (pay.HoldExpiresAt != nil && !now.Before(*pay.HoldExpiresAt))):
			if pr, ok := s.providers[pay.Provider]; ok {
				cctx, done := s.providerCall(ctx, pr.Name(), "void")
				err := pr.Void(cctx, tx, pay.ProviderPaymentID)
				if done(err); err != nil {
					return err
				}
			}
			return s.cancel(ctx, tx, pay, CancellationDetails{Party: PartyService, Reason: ReasonExpiredOnCapture})
		}
		return nil
	})
}

// paymentNext is the contract's payment transition table (States:
// Payment): a pending payment is authorized (two-stage), succeeds or is
// canceled; an authorized one is captured or canceled; succeeded and
// canceled are final. Every status change goes through succeed, authorize
// or cancel, and each asks this table first.
var paymentNext = map[PaymentStatus][]PaymentStatus{
	PaymentPending:           {PaymentWaitingForCapture, PaymentSucceeded, PaymentCanceled},
	PaymentWaitingForCapture: {PaymentSucceeded, PaymentCanceled},
}

// CanBecome reports whether the table allows s → to.
func (s PaymentStatus) CanBecome(to PaymentStatus) bool {
	return slices.Contains(paymentNext[s], to)
}
