package payd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paydhq/payd/ledger"
	"github.com/paydhq/payd/money"
)

// PayoutCreate is `POST /payouts` after its shape was checked.
type PayoutCreate struct {
	Amount      money.Amount
	Destination PayoutDestination
	Description string
	OrderID     string
	Metadata    map[string]string
}

// payoutInsufficient refuses a payout that its sum and fee (need) do not
// fit in: it names both figures, and the part of available that unpaid
// registers hold, so that the merchant sees what is missing.
func payoutInsufficient(need, available, registered int64, c money.Currency) *Error {
	held := ""
	if registered > 0 {
		held = fmt.Sprintf(", of which %s is held for settlements not yet paid", money.New(registered, c))
	}
	return Errorf(CodeInsufficientMerchantBalance, "the payout and its fee need %s; the available balance is %s%s",
		money.New(need, c), money.Signed{Minor: available, Currency: c}, held)
}

// CreatePayout creates a pending payout of the principal's shop from the
// merchant's available balance. The checks run in this order: the fields
// (400), the payout range (422 amount_limit), a provider for the payout
// (503 provider_unavailable), the payout freeze (422 invalid_state), the
// balance (422 insufficient_merchant_balance). The sum and its fee move
// from available to pending_payouts in the transaction that creates the
// payout, under the merchant's lock, with the job that moves it along.
func (s *Service) CreatePayout(ctx context.Context, p *Principal, idem Idempotency, in PayoutCreate) (*Response, error) {
	if s.stage < StageM5 {
		return nil, &Error{Code: CodeNotImplemented, Message: "not implemented in this build: payouts arrive in stage M5"}
	}
	if in.Amount.Minor <= 0 {
		return nil, Invalid("amount.value", "the payout amount must be above zero")
	}
	kind, masked, err := in.Destination.Check(p.Shop.Region)
	if err != nil {
		return nil, err
	}
	if p.Test() {
		if dc, ok := s.payoutProviders[s.testPayoutProvider].(DestinationChecker); ok {
			if err := dc.CheckDestination(kind, in.Destination); err != nil {
				return nil, err
			}
		}
	}
	if err := checkText("description", in.Description, 0, 256); err != nil {
		return nil, err
	}
	if in.OrderID != "" {
		if err := checkText("order_id", in.OrderID, 1, 128); err != nil {
			return nil, err
		}
	}
	if err := CheckMetadata(in.Metadata); err != nil {
		return nil, err
	}
	c := in.Amount.Currency
	if r := p.Shop.Settings.PayoutRange(c); in.Amount.Minor < r.Min || in.Amount.Minor > r.Max {
		return nil, Errorf(CodeAmountLimit, "a payout in %s must be %s..%s", c, money.FormatValue(r.Min), money.FormatValue(r.Max))
	}
	fee := p.Shop.Settings.PayoutFeeFor(c).Of(in.Amount.Minor)
	return s.idempotent(ctx, p, idem, func(tx Tx) (Outcome, any, error) {
		pr, err := s.payoutProviderFor(ctx, tx, p.Test(), p.Shop.Region, kind, c)
		if err != nil {
			return 0, nil, err
		}
		merchantID := p.Shop.MerchantID
		if _, err := tx.MerchantGetForUpdate(ctx, merchantID); err != nil {
			return 0, nil, err
		}
		f, err := tx.FreezeGet(ctx, merchantID, p.Test())
		if err != nil {
			return 0, nil, err
		}
		if f.Frozen {
			return 0, nil, Errorf(CodeInvalidState, "payouts are frozen (%s): no payout can be created until the freeze is lifted", f.Reason)
		}
		availableAcct := merchantAccount(merchantID, p.Test(), c, ledger.Available, "")
		available, err := tx.LedgerAccountBalance(ctx, availableAcct)
		if err != nil {
			return 0, nil, err
		}
		// Money an unpaid register counted is promised to it: paying the
		// register moves its net out of available whatever a payout took
		// meanwhile, so a payout may only use what no register holds.
		registered, err := registeredUnpaid(ctx, tx, merchantID, p.Test(), c)
		if err != nil {
			return 0, nil, err
		}
		if need := in.Amount.Minor + fee; need > max(0, available-registered) {
			return 0, nil, payoutInsufficient(need, available, registered, c)
		}
		now := s.clock.Now()
		po := &Payout{ID: s.ids.New(PrefixPayout, now), ShopID: p.Shop.ID, MerchantID: merchantID, Test: p.Test(),
			Status: PayoutPending, Amount: in.Amount, Fee: fee, DestinationType: kind, DestinationMasked: masked,
			Description: in.Description, OrderID: in.OrderID, Metadata: in.Metadata, CreatedAt: now, Provider: pr.Name(),
			Reference: PayoutReference(p.Shop.ID, p.Test(), idem)}
		ref, err := pr.AcceptPayout(ctx, tx, po, in.Destination)
		var pe *Error
		switch {
		case errors.As(err, &pe):
			return 0, nil, pe
		case errors.Is(err, ErrProviderTimeout):
			// Unknown whether the provider took it: the status query
			// finds out, by the payout's own id.
		case err != nil:
			return 0, nil, err
		}
		po.ProviderPayoutID = ref
		if err := tx.PayoutInsert(ctx, po); err != nil {
			return 0, nil, err
		}
		if err := s.post(ctx, tx, ledger.KindPayoutCreated, "payout", po.ID,
			ledger.Move(availableAcct, merchantAccount(merchantID, po.Test, c, ledger.PendingPayouts, po.ID), po.Held())); err != nil {
			return 0, nil, err
		}
		if err := s.jobs.Enqueue(ctx, tx, PayoutCheckArgs{PayoutID: po.ID}, now); err != nil {
			return 0, nil, err
		}
		return OutcomeCreated, po.View(), nil
	})
}

// registeredUnpaid is the positive net of the merchant's registers of one
// contour and currency not yet paid (draft, approved, sent): what paying
// them will take out of available. The merchant's row lock, held by the
// caller, keeps a register from being formed or paid meanwhile.
func registeredUnpaid(ctx context.Context, tx Tx, merchantID string, test bool, c money.Currency) (int64, error) {
	registers, err := tx.SettlementListUnpaid(ctx, merchantID, test, c)
	var sum int64
	for _, st := range registers {
		sum += max(0, st.Net)
	}
	return sum, err
}

// payoutRecheck is the service's wait before asking a silent provider
// again: a minute, doubling with every question, at most an hour.
func payoutRecheck(checks int) time.Duration {
	d := time.Minute << min(checks, 6)
	return min(d, time.Hour)
}

// CheckPayout moves a payout along (the payout_check job): a pending
// payout becomes processing, then its provider is asked what became of it.
// A decided payout settles its money and emits its event; an undecided
// one is asked again when the provider says, or after the backoff. A
// final payout is left alone, so a repeated job changes nothing.
func (s *Service) CheckPayout(ctx context.Context, id string) error {
	return s.store.Tx(ctx, func(tx Tx) error {
		po, err := tx.PayoutGetForUpdate(ctx, id)
		if err != nil {
			return notFoundAs(err, "payout")
		}
		if po.Status.Final() {
			return nil
		}
		pr := s.payoutProviders[po.Provider]
		if pr == nil {
			return errors.New("payout " + po.ID + ": provider " + po.Provider + " is not in this build")
		}
		po.Status = PayoutProcessing
		res, err := pr.PayoutStatus(ctx, tx, po)
		now := s.clock.Now()
		switch {
		case errors.Is(err, ErrProviderTimeout):
			res = PayoutResult{Status: PayoutProcessing}
		case err != nil:
			return err
		}
		switch res.Status {
		case PayoutSucceeded, PayoutCanceled:
			return s.settlePayout(ctx, tx, po, res)
		case PayoutProcessing, PayoutPending:
			next := res.CheckAt
			if !next.After(now) {
				next = now.Add(payoutRecheck(po.Checks))
			}
			po.Checks++
			if err := tx.PayoutUpdate(ctx, po); err != nil {
				return err
			}
			return s.jobs.Enqueue(ctx, tx, PayoutCheckArgs{PayoutID: po.ID}, next)
		}
		return errors.New("payout " + po.ID + ": provider answered unknown status " + string(res.Status))
	})
}

// settlePayout applies a provider's decision: succeeded sends the sum out
// to the payout provider and charges the fee; canceled gives the sum and
// the fee back to available. Either way the payout's part of
// pending_payouts ends at zero.
func (s *Service) settlePayout(ctx context.Context, tx Tx, po *Payout, res PayoutResult) error {
	if _, err := tx.MerchantGetForUpdate(ctx, po.MerchantID); err != nil {
		return err
	}
	c, now := po.Amount.Currency, s.clock.Now()
	held := merchantAccount(po.MerchantID, po.Test, c, ledger.PendingPayouts, po.ID)
	evType := EventPayoutSucceeded
	if res.Status == PayoutSucceeded {
		if err := s.post(ctx, tx, ledger.KindPayoutSucceeded, "payout", po.ID,
			ledger.Move(held, serviceAccount(po.Test, c, ledger.PayoutClearing), po.Amount.Minor),
			ledger.Move(held, serviceAccount(po.Test, c, ledger.PayoutFees), po.Fee)); err != nil {
			return err
		}
		po.Status, po.SucceededAt = PayoutSucceeded, &now
	} else {
		if err := s.post(ctx, tx, ledger.KindPayoutCanceled, "payout", po.ID,
			ledger.Move(held, merchantAccount(po.MerchantID, po.Test, c, ledger.Available, ""), po.Held())); err != nil {
			return err
		}
		reason := declineReason(res.Reason)
		// Nothing was charged: the fee came back with the sum.
		po.Status, po.CanceledAt, po.Fee = PayoutCanceled, &now, 0
		po.Cancellation = &CancellationDetails{Party: PartyPaymentNetwork, Reason: reason, ProviderCode: res.ProviderCode}
		evType = EventPayoutCanceled
	}
	if err := tx.PayoutUpdate(ctx, po); err != nil {
		return err
	}
	if po.Status == PayoutCanceled {
		if err := s.autoFreeze(ctx, tx, po.MerchantID, po.Test); err != nil {
			return err
		}
	}
	shop, err := tx.ShopGet(ctx, po.ShopID)
	if err != nil {
		return err
	}
	_, err = s.RecordEvent(ctx, tx, NewEventParams{Shop: shop, Test: po.Test, Type: evType, ObjectType: "payout", ObjectID: po.ID, Object: po.View()})
	return err
}

// GetPayout returns a payout of the principal's shop and mode; another
// shop's, or the other contour's, is not found.
func (s *Service) GetPayout(ctx context.Context, p *Principal, id string) (po *Payout, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		po, err = inScope(ctx, p, PrefixPayout, "payout", id, tx.PayoutGet)
		return err
	})
	return po, err
}

// ListPayouts lists the principal's payouts, newest first.
func (s *Service) ListPayouts(ctx context.Context, p *Principal, params *PayoutListParams) (page Page[*Payout], err error) {
	params.ShopID, params.Test = p.Shop.ID, p.Test()
	err = s.store.View(ctx, func(tx Tx) error {
		page, err = tx.PayoutList(ctx, params)
		return err
	})
	return page, err
}
