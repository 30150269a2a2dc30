package payd

import "context"

// QRAttemptArgs makes the provider attempt of a QR payment whose shop has
// the pre-check on, after asking the shop. It is committed with the
// payment, so a payment is never left without either its attempt or its
// decision; a retry of it asks nothing and attempts nothing twice.
type QRAttemptArgs struct {
	PaymentID string `json:"payment_id"`
}

// Kind names the job.
func (QRAttemptArgs) Kind() string { return "qr_attempt" }

// StartQRAttempt runs QRAttemptArgs: it asks the shop its
// `payment.authorize_request` (once per payment: a recorded decision is
// reused) and, when allowed, makes the SBP attempt whose QR data the
// payment then carries in confirmation.confirmation_data. A deny cancels
// the payment instead. A payment that already has its attempt or left
// pending is left as it is.
//
// Errors: ErrPrecheckBusy while another asker waits for the shop's answer,
// provider_unavailable when no provider takes the attempt; the job is
// retried on both.
func (s *Service) StartQRAttempt(ctx context.Context, paymentID string) error {
	var pay *Payment
	var shop *Shop
	err := s.store.View(ctx, func(tx Tx) (err error) {
		if pay, err = tx.PaymentGet(ctx, paymentID); err != nil {
			return err
		}
		shop, err = tx.ShopGet(ctx, pay.ShopID)
		return err
	})
	if err != nil {
		return err
	}
	if !needsQRAttempt(pay) {
		return nil
	}
	if shop.Settings.AuthorizeRequestWebhook && !pay.Precheck.allowed() {
		allow, err := s.authorizeRequest(ctx, paymentID)
		if isClosed(err) || (err == nil && !allow) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return s.store.Tx(ctx, func(tx Tx) error {
		pay, err := tx.PaymentGetForUpdate(ctx, paymentID)
		if err != nil {
			return err
		}
		if !needsQRAttempt(pay) {
			return nil
		}
		shop, err := tx.ShopGet(ctx, pay.ShopID)
		if err != nil {
			return err
		}
		route, err := s.routeOf(ctx, tx, pay.Test, pay.Region, pay.MethodType, pay.Amount.Currency)
		if err != nil {
			return err
		}
		if len(route) == 0 {
			return errNoProvider()
		}
		if err := s.startAttempt(ctx, tx, shop, pay, pay.MethodType, route); err != nil {
			return err
		}
		return tx.PaymentUpdate(ctx, pay)
	})
}

// needsQRAttempt reports whether pay is a pending QR payment with no
// provider attempt yet. A cascade that found no provider leaves no
// attempt behind: its transaction rolls back.
func needsQRAttempt(pay *Payment) bool {
	return pay.ConfirmationType == ConfirmationQR && pay.Status == PaymentPending && len(pay.Attempts) == 0
}
