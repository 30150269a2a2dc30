package payd

import (
	"context"

	"github.com/paydhq/payd/money"
)

// CapturePayment charges an authorized payment, fully (amount nil) or
// partially; a partial capture releases the rest of the authorization
// (Payments, rules 1 and 2).
func (s *Service) CapturePayment(ctx context.Context, p *Principal, idem Idempotency, id string, amount *money.Amount) (*Response, error) {
	return s.claimed(ctx, AuditCapturePayment, p, idem, func(tx Tx) (Outcome, any, error) {
		pay, err := scoped(ctx, tx, p, id, true)
		if err != nil {
			return 0, nil, err
		}
		if pay.Status != PaymentWaitingForCapture {
			return 0, nil, invalidState(pay, "capture")
		}
		sum := pay.Amount.Minor
		if amount != nil {
			if amount.Currency != pay.Amount.Currency {
				return 0, nil, Invalid("amount.currency", "the capture currency must be the payment's, %s", pay.Amount.Currency)
			}
			if amount.Minor <= 0 || amount.Minor > pay.Amount.Minor {
				return 0, nil, Invalid("amount.value", "the capture amount must be above zero and at most the authorized %s", Sum{pay.Amount.Minor, pay.Amount.Currency})
			}
			sum = amount.Minor
		}
		if pr, ok := s.providers[pay.Provider]; ok {
			cctx, done := s.providerCall(ctx, pr.Name(), "capture")
			err := pr.Capture(cctx, tx, pay.ProviderPaymentID, sum)
			if done(err); err != nil {
				return 0, nil, s.providerError(err)
			}
		}
		if err := s.succeed(ctx, tx, pay, sum); err != nil {
			return 0, nil, err
		}
		return OutcomeOK, pay.View(""), nil
	})
}

// CancelPayment closes the checkout of a pending payment or voids the
// authorization of one waiting for capture.
func (s *Service) CancelPayment(ctx context.Context, p *Principal, idem Idempotency, id string) (*Response, error) {
	return s.claimed(ctx, AuditCancelPayment, p, idem, func(tx Tx) (Outcome, any, error) {
		pay, err := scoped(ctx, tx, p, id, true)
		if err != nil {
			return 0, nil, err
		}
		if pay.Status.Final() {
			return 0, nil, invalidState(pay, "cancel")
		}
		if pay.Status == PaymentWaitingForCapture {
			if pr, ok := s.providers[pay.Provider]; ok {
				cctx, done := s.providerCall(ctx, pr.Name(), "void")
				err := pr.Void(cctx, tx, pay.ProviderPaymentID)
				if done(err); err != nil {
					return 0, nil, s.providerError(err)
				}
			}
		}
		if err := s.cancel(ctx, tx, pay, CancellationDetails{Party: PartyMerchant, Reason: ReasonCanceledByMerchant}); err != nil {
			return 0, nil, err
		}
		return OutcomeOK, pay.View(""), nil
	})
}
