package payd

import (
	"context"
	"time"

	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// BalanceJSON is the contract's Balance object.
type BalanceJSON struct {
	Currency       money.Currency `json:"currency"`
	Available      money.Signed   `json:"available"`
	Pending        money.Amount   `json:"pending"`
	Reserve        money.Amount   `json:"reserve"`
	Deposit        money.Amount   `json:"deposit"`
	PendingRefunds money.Amount   `json:"pending_refunds"`
	Disputed       money.Amount   `json:"disputed"`
	Payable        money.Amount   `json:"payable"`
	Test           bool           `json:"test"`
	// PendingPayouts is what payouts not yet decided took from available
	// (their sums and fees); a compatible addition (docs/payouts.md).
	PendingPayouts money.Amount `json:"pending_payouts"`
}

// Balance is the merchant's balance in the principal's contour, one record
// per currency that ever moved, read from the ledger.
func (s *Service) Balance(ctx context.Context, p *Principal) ([]BalanceJSON, error) {
	var byCur map[money.Currency]map[ledger.Bucket]int64
	var f *Freeze
	err := s.store.View(ctx, func(tx Tx) (err error) {
		if f, err = tx.FreezeGet(ctx, p.Shop.MerchantID, p.Test()); err != nil {
			return err
		}
		byCur, err = tx.LedgerBuckets(ctx, p.Shop.MerchantID, p.Test())
		return err
	})
	if err != nil {
		return nil, err
	}
	out := []BalanceJSON{}
	for _, c := range money.Currencies() {
		b, ok := byCur[c]
		if !ok {
			continue
		}
		amt := func(bucket ledger.Bucket) money.Amount { return money.New(max(0, b[bucket]), c) }
		payable := max(0, b[ledger.Available])
		if f.Frozen {
			payable = 0
		}
		out = append(out, BalanceJSON{Currency: c, Available: money.Signed{Minor: b[ledger.Available], Currency: c},
			Pending: amt(ledger.Pending), Reserve: amt(ledger.Reserve), Deposit: amt(ledger.Deposit),
			PendingRefunds: amt(ledger.PendingRefunds), Disputed: amt(ledger.Disputed),
			Payable: money.New(payable, c), Test: p.Test(), PendingPayouts: amt(ledger.PendingPayouts)})
	}
	return out, nil
}

// TrialBalance returns every bucket of a merchant's contour per currency,
// straight from the ledger, for operators.
func (s *Service) TrialBalance(ctx context.Context, merchantID string, test bool) (out map[money.Currency]map[ledger.Bucket]int64, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		if _, err := tx.MerchantGet(ctx, merchantID); err != nil {
			return notFoundAs(err, "merchant")
		}
		out, err = tx.LedgerBuckets(ctx, merchantID, test)
		return err
	})
	return out, err
}

// LedgerEntries returns the entries that moved a merchant's money in a
// contour and currency in [from, to), for operators (read-only).
func (s *Service) LedgerEntries(ctx context.Context, merchantID string, test bool, c money.Currency, from, to time.Time) ([]*ledger.Entry, error) {
	if !c.Valid() {
		return nil, Invalid("currency", "currency must be one of RUB, KZT, USD, EUR")
	}
	if !from.Before(to) || to.Sub(from) > 93*24*time.Hour {
		return nil, Invalid("to", "the range must be positive and at most 93 days")
	}
	return read(ctx, s, "read ledger entries", func(tx Tx) ([]*ledger.Entry, error) { return tx.LedgerEntriesOf(ctx, merchantID, test, c, from, to) })
}

// FoldLedgerTotals folds the running totals' spare slots, those left by
// postings that ran at once, back into one per total, so that a balance
// read sums as few rows as the moment's concurrency needs; a periodic job
// runs it (docs/money.md, "Slots"). It looks only at the totals postings
// opened a slot of since the last fold, foldBatch a transaction, and stops
// at its budget (ErrWorkLeft).
func (s *Service) FoldLedgerTotals(ctx context.Context) (int, error) {
	started := time.Now()
	var total int
	for {
		var n int
		var more bool
		err := s.store.Tx(ctx, func(tx Tx) (err error) {
			n, more, err = tx.LedgerTotalsFold(ctx, foldBatch)
			return err
		})
		total += n
		if err != nil || !more {
			return total, err
		}
		if time.Since(started) >= workBudget {
			return total, ErrWorkLeft
		}
	}
}

// foldBatch is how many totals one transaction of the fold looks at.
const foldBatch = 500
