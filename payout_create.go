package payd

import (
	"context"
	"errors"
	"fmt"

	"github.com/paydhq/payd/internal/ledger"
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
		return nil, LaterStage(s.stage, StageM5, "payouts arrive in stage M5")
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
	return s.idempotent(ctx, AuditCreatePayout, p, idem, func(tx Tx) (Outcome, any, error) {
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
		po := &Payout{ID: s.ids.NewFor(PrefixPayout, now, merchantID), ShopID: p.Shop.ID, MerchantID: merchantID, Test: p.Test(),
			Status: PayoutPending, Amount: in.Amount, Fee: fee, DestinationType: kind, DestinationMasked: masked,
			Description: in.Description, OrderID: in.OrderID, Metadata: in.Metadata, CreatedAt: now, Provider: pr.Name(),
			Reference: PayoutReference(p.Shop.ID, p.Test(), idem)}
		cctx, done := s.providerCall(ctx, pr.Name(), "accept_payout")
		ref, err := pr.AcceptPayout(cctx, tx, po, in.Destination)
		done(err)
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
