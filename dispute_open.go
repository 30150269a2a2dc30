package payd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paydhq/payd/money"
)

// DefaultEvidenceWindow is the time a dispute opened without a deadline of
// its own leaves for evidence.
const DefaultEvidenceWindow = 7 * 24 * time.Hour

// DisputeOpen describes a new dispute, whoever raises it: the sandbox, an
// operator, or a bank's notification.
type DisputeOpen struct {
	Kind DisputeKind
	// Amount is the disputed sum in minor units; nil disputes the whole
	// refundable amount.
	Amount     *int64
	ReasonCode string
	// Deadline is the evidence deadline; zero is DefaultEvidenceWindow from
	// now.
	Deadline time.Time
	// BankFine and ServiceFee are charged if the dispute is lost or
	// expires; nil takes the shop's dispute_fees setting.
	BankFine, ServiceFee *int64
	// ProviderDisputeID is the bank's name for the dispute, unique per
	// provider; empty for disputes without one.
	ProviderDisputeID string
	// Currencies names the currency of each amount given, by its request
	// parameter; each must be the payment's.
	Currencies map[string]money.Currency
	// namedByService gives the dispute the service's id as the bank's
	// name: the sandbox bank knows its disputes so.
	namedByService bool
}

// check validates an opening's own fields; param prefixes name them as the
// caller's request does.
func (in *DisputeOpen) check() error {
	if in.Kind == "" {
		in.Kind = DisputeChargeback
	}
	if !in.Kind.Valid() {
		return Invalid("kind", "kind must be chargeback, retrieval or complaint")
	}
	if err := checkText("reason_code", in.ReasonCode, 0, 32); err != nil {
		return err
	}
	if in.Amount != nil && (*in.Amount <= 0 || *in.Amount > money.MaxMinor) {
		return Invalid("amount.value", "the dispute amount must be above zero")
	}
	for _, f := range []struct {
		name string
		v    *int64
	}{{"bank_fine_amount", in.BankFine}, {"service_fee_amount", in.ServiceFee}} {
		if f.v != nil && (*f.v < 0 || *f.v > money.MaxMinor) {
			return Invalid(f.name+".value", "%s must not be negative", f.name)
		}
	}
	return nil
}

// openDispute opens a dispute on a locked payment: the payment must have
// succeeded and the sum must fit its refundable amount (Payment, rule 4);
// the sum is held by the cascade, the merchant's freezes are looked at
// again, and dispute.opened goes to the shop owning the payment.
func (s *Service) openDispute(ctx context.Context, tx Tx, pay *Payment, in DisputeOpen) (*Dispute, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	if pay.Status != PaymentSucceeded {
		return nil, Errorf(CodeInvalidState, "only a succeeded payment can be disputed; this one is %s", pay.Status)
	}
	for _, param := range sortedKeys(in.Currencies) {
		if c := in.Currencies[param]; c != pay.Amount.Currency {
			return nil, Invalid(param, "the currency must be the payment's, %s", pay.Amount.Currency)
		}
	}
	amount := max(0, pay.RefundableAmount())
	if in.Amount != nil {
		amount = *in.Amount
	}
	if amount <= 0 || amount > pay.RefundableAmount() {
		e := Errorf(CodeRefundExceedsCaptured, "the dispute amount must be above zero and at most the payment's refundable amount %s",
			Sum{max(0, pay.RefundableAmount()), pay.Amount.Currency})
		e.Param = "amount.value"
		return nil, e
	}
	if in.ProviderDisputeID != "" {
		// Checked before any write, so that a caller recording the
		// repeat as a discrepancy commits nothing else.
		_, err := tx.DisputeGetByProviderID(ctx, pay.Provider, in.ProviderDisputeID)
		if err == nil {
			return nil, Errorf(CodeInvalidState, "the provider's dispute %s is already open", in.ProviderDisputeID)
		}
		if !errors.Is(err, ErrNoRows) {
			return nil, err
		}
	}
	shop, err := tx.ShopGet(ctx, pay.ShopID)
	if err != nil {
		return nil, err
	}
	if _, err := tx.MerchantGetForUpdate(ctx, pay.MerchantID); err != nil {
		return nil, err
	}
	now := s.clock.Now()
	c := pay.Amount.Currency
	fees := shop.Settings.DisputeFeeFor(c)
	if in.BankFine != nil {
		fees.BankFine = *in.BankFine
	}
	if in.ServiceFee != nil {
		fees.ServiceFee = *in.ServiceFee
	}
	deadline := in.Deadline
	if deadline.IsZero() {
		deadline = now.Add(DefaultEvidenceWindow)
	}
	d := &Dispute{ID: s.ids.NewFor(PrefixDispute, now, pay.MerchantID), ShopID: pay.ShopID, MerchantID: pay.MerchantID, PaymentID: pay.ID,
		Test: pay.Test, Kind: in.Kind, Status: DisputeOpened, Amount: money.New(amount, c), OrderID: pay.OrderID,
		BankFine: fees.BankFine, ServiceFee: fees.ServiceFee, ReasonCode: in.ReasonCode,
		EvidenceDeadlineAt: deadline.UTC(), Provider: pay.Provider, ProviderDisputeID: in.ProviderDisputeID, CreatedAt: now}
	if in.namedByService {
		d.ProviderDisputeID = d.ID
	}
	if err := s.holdDispute(ctx, tx, pay, d); err != nil {
		return nil, err
	}
	if err := tx.DisputeInsert(ctx, d); err != nil {
		// The check above saw no such dispute, so another transaction
		// opened it meanwhile: a plain error rolls this one back, hold and
		// all, and a retry finds the dispute.
		return nil, fmt.Errorf("open dispute %s: %w", in.ProviderDisputeID, err)
	}
	if err := tx.PaymentUpdate(ctx, pay); err != nil {
		return nil, err
	}
	if err := s.autoFreeze(ctx, tx, pay.MerchantID, pay.Test); err != nil {
		return nil, err
	}
	if d.Kind == DisputeChargeback {
		if err := s.checkChargebackRatio(ctx, tx, pay.MerchantID, pay.Test); err != nil {
			return nil, err
		}
	}
	return d, s.disputeEvent(ctx, tx, shop, d, EventDisputeOpened)
}

// checkChargebackRatio freezes a merchant's payouts in a contour with
// reason chargeback_ratio when its chargebacks over the rule's window break
// the rule. Only an operator lifts that freeze; an earlier freeze of
// another reason stays as it is.
func (s *Service) checkChargebackRatio(ctx context.Context, tx Tx, merchantID string, test bool) error {
	m, err := tx.MerchantGet(ctx, merchantID)
	if err != nil {
		return err
	}
	rule := m.Chargeback.Effective()
	chargebacks, payments, err := tx.ChargebackStats(ctx, merchantID, test, s.clock.Now().Add(-rule.Window()))
	if err != nil {
		return err
	}
	if !rule.Exceeded(chargebacks, payments) {
		return nil
	}
	return s.setFreeze(ctx, tx, merchantID, test, true, FreezeChargebackRatio)
}
