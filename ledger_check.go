package payd

import (
	"context"
	"fmt"

	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// CheckLedger verifies the money invariants and returns what is wrong (an
// empty list when all hold):
//   - every entry's postings sum to zero;
//   - no merchant account other than available is below zero (pending,
//     reserve, refunds in flight, each payment's part of them);
//   - for every refunded or disputed payment: refunded_amount equals its
//     succeeded refunds, pending_refunds_amount its pending ones,
//     disputed_amount its open disputes, charged_back_amount its lost and
//     expired ones; so captured = refunded + refundable + pending refunds +
//     charged back + disputed holds with a refundable amount that is not
//     negative; and the fee returned is at most the fee;
//   - every dispute's own part of disputed holds its sum while open and
//     nothing once closed, and no other money sits in disputed;
//   - every payout's own part of pending_payouts holds its sum and fee
//     while pending or processing and nothing once final, and no other
//     money sits in pending_payouts;
//   - every running total of an account or a bucket equals the sum of its
//     postings, and every account and bucket with postings has one.
//
// Balance fields are read from the running totals, which the last rule
// ties to the postings, and payable is clamped at zero, so these cover the
// balance rules too. Tests run it after every
// step; operators run it with `payd admin ledger check`.
func (s *Service) CheckLedger(ctx context.Context) ([]string, error) {
	var problems []string
	// One snapshot: a refund settling between two reads must not look
	// like a broken invariant.
	err := s.store.Snapshot(ctx, func(tx Tx) error {
		bad, err := tx.LedgerUnbalanced(ctx)
		if err != nil {
			return err
		}
		for _, id := range bad {
			problems = append(problems, "unbalanced entry "+id)
		}
		drift, err := tx.LedgerTotalMismatches(ctx)
		if err != nil {
			return err
		}
		for _, m := range drift {
			problems = append(problems, m.String())
		}
		neg, err := tx.LedgerNegativeAccounts(ctx)
		if err != nil {
			return err
		}
		for _, k := range neg {
			problems = append(problems, "negative account "+k)
		}
		totals, err := tx.RefundTotals(ctx)
		if err != nil {
			return err
		}
		disputes, err := tx.DisputeAmounts(ctx)
		if err != nil {
			return err
		}
		held, chargedBack := map[string]int64{}, map[string]int64{}
		for _, d := range disputes {
			if totals[d.PaymentID] == nil {
				totals[d.PaymentID] = map[string]int64{}
			}
			switch {
			case !d.Status.Final():
				held[d.PaymentID] += d.Amount.Minor
			case d.Status != DisputeWon:
				chargedBack[d.PaymentID] += d.Amount.Minor
			}
		}
		for pid, t := range totals {
			pay, err := tx.PaymentGet(ctx, pid)
			if err != nil {
				return err
			}
			if pay.DisputedAmount != held[pid] {
				problems = append(problems, fmt.Sprintf("%s: disputed_amount %d, open disputes %d", pid, pay.DisputedAmount, held[pid]))
			}
			if pay.ChargedBackAmount != chargedBack[pid] {
				problems = append(problems, fmt.Sprintf("%s: charged_back_amount %d, lost and expired disputes %d", pid, pay.ChargedBackAmount, chargedBack[pid]))
			}
			if pay.RefundedAmount != t[string(RefundSucceeded)] {
				problems = append(problems, fmt.Sprintf("%s: refunded_amount %d, succeeded refunds %d", pid, pay.RefundedAmount, t[string(RefundSucceeded)]))
			}
			if pay.PendingRefundsAmount != t[string(RefundPending)] {
				problems = append(problems, fmt.Sprintf("%s: pending_refunds_amount %d, pending refunds %d", pid, pay.PendingRefundsAmount, t[string(RefundPending)]))
			}
			if pay.RefundableAmount() < 0 {
				problems = append(problems, fmt.Sprintf("%s: refundable amount %d below zero", pid, pay.RefundableAmount()))
			}
			if pay.FeeRefundedAmount > pay.FeeAmount {
				problems = append(problems, fmt.Sprintf("%s: fee returned %d above the fee %d", pid, pay.FeeRefundedAmount, pay.FeeAmount))
			}
		}
		more, err := checkDisputeHolds(ctx, tx, disputes)
		problems = append(problems, more...)
		if err != nil {
			return err
		}
		more, err = checkPayoutHolds(ctx, tx)
		problems = append(problems, more...)
		return err
	})
	return problems, err
}

// checkDisputeHolds compares each contour's disputed sub-accounts with its
// disputes: an open dispute's part holds its sum, any other part nothing.
func checkDisputeHolds(ctx context.Context, tx Tx, disputes []DisputeAmount) ([]string, error) {
	want, err := holdsWanted(ctx, tx, ledger.Disputed)
	if err != nil {
		return nil, err
	}
	for _, d := range disputes {
		k := LedgerContour{d.MerchantID, d.Test, d.Amount.Currency}
		if want[k] == nil {
			want[k] = map[string]int64{}
		}
		if !d.Status.Final() {
			want[k][d.ID] = d.Amount.Minor
		}
	}
	return compareHolds(ctx, tx, ledger.Disputed, "disputed", want)
}

// compareHolds compares each contour's sub-accounts of bucket b with the
// parts its objects want there, naming every difference.
func compareHolds(ctx context.Context, tx Tx, b ledger.Bucket, name string, want map[LedgerContour]map[string]int64) ([]string, error) {
	var problems []string
	for k, subs := range want {
		got, err := tx.LedgerSubBalances(ctx, k.Owner, k.Test, k.Currency, b)
		if err != nil {
			return nil, err
		}
		for _, sub := range ledger.Keys(merge(subs, got)) {
			if got[sub] != subs[sub] {
				problems = append(problems, fmt.Sprintf("%s: %s part %d, want %d", sub, name, got[sub], subs[sub]))
			}
		}
	}
	return problems, nil
}

// LedgerContour is one owner's accounts of one mode and currency.
type LedgerContour struct {
	Owner    string
	Test     bool
	Currency money.Currency
}

// LedgerTotalMismatch is a running total of the ledger that is not the sum
// of the postings it stands for (docs/money.md, "Running totals").
type LedgerTotalMismatch struct {
	// Account is the account whose total is wrong or, with Bucket set,
	// the bucket (Sub empty) whose total of all sub-accounts is.
	Account ledger.Account
	Bucket  bool
	// Total is what the total holds and Postings what its postings sum
	// to; Stored is false when there is no total, Posted when there are
	// no postings.
	Total, Postings int64
	Stored, Posted  bool
}

// String names the account or bucket and says what is wrong with its
// total.
func (m LedgerTotalMismatch) String() string {
	what := "account " + m.Account.Key()
	if m.Bucket {
		what = "bucket " + m.Account.Key() + " (all sub-accounts)"
	}
	switch {
	case !m.Stored:
		return fmt.Sprintf("running total of %s missing; its postings sum to %d", what, m.Postings)
	case !m.Posted:
		return fmt.Sprintf("running total of %s is %d, and it has no postings", what, m.Total)
	}
	return fmt.Sprintf("running total of %s is %d; its postings sum to %d", what, m.Total, m.Postings)
}

// holdsWanted starts a hold check's expectations with every contour that
// ever held money in bucket b, each wanting nothing: money left there by a
// contour with no open object is then found too.
func holdsWanted(ctx context.Context, tx Tx, b ledger.Bucket) (map[LedgerContour]map[string]int64, error) {
	contours, err := tx.LedgerContours(ctx, b)
	if err != nil {
		return nil, err
	}
	want := map[LedgerContour]map[string]int64{}
	for _, c := range contours {
		want[c] = map[string]int64{}
	}
	return want, nil
}

// merge returns the keys of both maps with zero values, for walking both.
func merge(a, b map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k := range a {
		out[k] = 0
	}
	for k := range b {
		out[k] = 0
	}
	return out
}

// checkPayoutHolds compares each contour's pending_payouts sub-accounts
// with its payouts, and every merchant contour that ever held a payout.
func checkPayoutHolds(ctx context.Context, tx Tx) ([]string, error) {
	payouts, err := tx.PayoutAmounts(ctx)
	if err != nil {
		return nil, err
	}
	want, err := holdsWanted(ctx, tx, ledger.PendingPayouts)
	if err != nil {
		return nil, err
	}
	for _, po := range payouts {
		k := LedgerContour{po.MerchantID, po.Test, po.Amount.Currency}
		if want[k] == nil {
			want[k] = map[string]int64{}
		}
		if !po.Status.Final() {
			want[k][po.ID] = po.Amount.Minor + po.Fee
		}
	}
	return compareHolds(ctx, tx, ledger.PendingPayouts, "pending_payouts", want)
}
