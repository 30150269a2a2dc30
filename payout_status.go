package payd

import (
	"context"
	"errors"
	"time"

	"github.com/paydhq/payd/internal/ledger"
)

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
		cctx, done := s.providerCall(ctx, pr.Name(), "payout_status")
		res, err := pr.PayoutStatus(cctx, tx, po)
		done(err)
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
