package payd

import (
	"context"
	"fmt"
	"time"

	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// account names a merchant bucket of a payment's currency and contour.
func merchantAccount(merchantID string, test bool, c money.Currency, b ledger.Bucket, sub string) ledger.Account {
	return ledger.Account{Owner: merchantID, Test: test, Currency: c, Bucket: b, Sub: sub}
}

func serviceAccount(test bool, c money.Currency, b ledger.Bucket) ledger.Account {
	return ledger.Account{Owner: ledger.ServiceOwner, Test: test, Currency: c, Bucket: b}
}

func (s *Service) post(ctx context.Context, tx Tx, kind ledger.EntryKind, refType, refID string, postings ...[]ledger.Posting) error {
	e := &ledger.Entry{At: s.clock.Now(), Kind: kind, RefType: refType, RefID: refID}
	for _, p := range postings {
		e.Postings = append(e.Postings, p...)
	}
	e.ID = s.ids.NewFor(PrefixEntry, e.At, entryMerchant(e))
	if len(e.Postings) == 0 {
		return nil
	}
	if err := tx.LedgerPost(ctx, e); err != nil {
		return err
	}
	return s.markSettlementDays(ctx, tx, e)
}

// postCapture books a captured payment: the sum comes from the provider;
// the fee goes to the service; the reserve share is held; the rest waits in
// pending for the tariff's hold days. Both holdings are released by jobs,
// each part in its own entry.
func (s *Service) postCapture(ctx context.Context, tx Tx, shop *Shop, pay *Payment, tariff Tariff) error {
	c, now := pay.Amount.Currency, s.clock.Now()
	reserveRule := shop.Settings.ReserveFor(c)
	reserve := pay.CapturedAmount * int64(reserveRule.PercentBps) / 10000
	if reserve > pay.CapturedAmount-pay.FeeAmount {
		reserve = max(0, pay.CapturedAmount-pay.FeeAmount)
	}
	clearing := serviceAccount(pay.Test, c, ledger.ProviderClearing)
	pending := merchantAccount(pay.MerchantID, pay.Test, c, ledger.Pending, pay.ID)
	err := s.post(ctx, tx, ledger.KindPaymentCaptured, "payment", pay.ID,
		ledger.Move(clearing, pending, pay.CapturedAmount),
		ledger.Move(pending, serviceAccount(pay.Test, c, ledger.Fees), pay.FeeAmount),
		ledger.Move(pending, merchantAccount(pay.MerchantID, pay.Test, c, ledger.Reserve, pay.ID), reserve))
	if err != nil {
		return err
	}
	if err := s.jobs.Enqueue(ctx, tx, LedgerReleaseArgs{PaymentID: pay.ID, Bucket: ledger.Pending}, now.Add(tariff.Hold())); err != nil {
		return err
	}
	if reserve > 0 {
		return s.jobs.Enqueue(ctx, tx, LedgerReleaseArgs{PaymentID: pay.ID, Bucket: ledger.Reserve},
			now.Add(time.Duration(reserveRule.Days)*24*time.Hour))
	}
	return nil
}

// ReleaseHeld moves what is left of a payment's part in pending or reserve
// to available; a job runs it when the hold or the reserve's days are over.
func (s *Service) ReleaseHeld(ctx context.Context, args LedgerReleaseArgs) error {
	kind, ok := ledger.ReleasedKind(args.Bucket)
	if !ok {
		return fmt.Errorf("release %s of payment %s: only pending and the reserve are released", args.Bucket, args.PaymentID)
	}
	return s.store.Tx(ctx, func(tx Tx) error {
		pay, err := tx.PaymentGetForUpdate(ctx, args.PaymentID)
		if err != nil {
			return notFoundAs(err, "payment")
		}
		if _, err := tx.MerchantGetForUpdate(ctx, pay.MerchantID); err != nil {
			return err
		}
		from := merchantAccount(pay.MerchantID, pay.Test, pay.Amount.Currency, args.Bucket, pay.ID)
		left, err := tx.LedgerAccountBalance(ctx, from)
		if err != nil {
			return err
		}
		if args.Bucket == ledger.Pending {
			pay.PendingReleased = true
			if err := tx.PaymentUpdate(ctx, pay); err != nil {
				return err
			}
		}
		if left <= 0 {
			return nil
		}
		if err := s.post(ctx, tx, kind, "payment", pay.ID,
			ledger.Move(from, merchantAccount(pay.MerchantID, pay.Test, pay.Amount.Currency, ledger.Available, ""), left)); err != nil {
			return err
		}
		return s.autoFreeze(ctx, tx, pay.MerchantID, pay.Test)
	})
}

// entryMerchant is the merchant whose money an entry moves: every entry
// moves one merchant's money against the service's accounts, and is kept
// with that merchant's other rows.
func entryMerchant(e *ledger.Entry) string {
	for _, p := range e.Postings {
		if p.Account.Owner != ledger.ServiceOwner {
			return p.Account.Owner
		}
	}
	return ""
}
