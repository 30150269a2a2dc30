package payd

import (
	"context"
	"fmt"
)

// CheckLedger verifies the money invariants and returns what is wrong (an
// empty list when all hold):
//   - every entry's postings sum to zero;
//   - no merchant account other than available is below zero (pending,
//     reserve, refunds in flight, each payment's part of them);
//   - for every refunded payment: refunded_amount equals its succeeded
//     refunds, pending_refunds_amount its pending ones, the refundable
//     amount is not negative, and the fee returned is at most the fee.
//
// Balance fields are read from the same postings, and payable is clamped
// at zero, so these cover the balance rules too. Tests run it after every
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
		for pid, t := range totals {
			pay, err := tx.PaymentGet(ctx, pid)
			if err != nil {
				return err
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
		return nil
	})
	return problems, err
}
