package storetest

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

func newRefund(pay *payd.Payment, amount int64, created time.Time) *payd.Refund {
	return &payd.Refund{ID: newID(payd.PrefixRefund, created), ShopID: pay.ShopID, MerchantID: pay.MerchantID,
		PaymentID: pay.ID, Test: pay.Test, Status: payd.RefundPending, Amount: money.New(amount, pay.Amount.Currency),
		OrderID: pay.OrderID, CreatedAt: created}
}

func refundCursor(r *payd.Refund) payd.Cursor { return payd.Cursor{CreatedAt: r.CreatedAt, ID: r.ID} }

// addPayment inserts a succeeded payment of shop.
func addPayment(t *testing.T, s payd.Store, shop *payd.Shop, test bool, created time.Time) *payd.Payment {
	t.Helper()
	pay := newPayment(shop, "order-"+newID("", created), created, created.Add(time.Hour))
	pay.Status, pay.Test = payd.PaymentSucceeded, test
	mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentInsert(t.Context(), pay) })
	return pay
}

func testRefund(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("InsertGetUpdate", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		shop := addShop(t, s, addMerchant(t, s, now).ID, now)
		pay := addPayment(t, s, shop, true, now)
		r := newRefund(pay, 4250, now)
		r.Reason, r.Metadata, r.FromPending, r.FeeReturned = "Товар не подошёл", map[string]string{"ticket": "77"}, 1250, 35
		mustTx(t, s, func(tx payd.Tx) error { return tx.RefundInsert(ctx, r) })

		get := func(what string, fn func(tx payd.Tx) (*payd.Refund, error)) { t.Helper(); wantRead(t, s, what, r, fn) }
		get("RefundGet", func(tx payd.Tx) (*payd.Refund, error) { return tx.RefundGet(ctx, r.ID) })
		get("RefundGetForUpdate", func(tx payd.Tx) (*payd.Refund, error) { return tx.RefundGetForUpdate(ctx, r.ID) })

		missing := newID(payd.PrefixRefund, now)
		wantErr(t, "RefundGet of a missing id", s.View(ctx, func(tx payd.Tx) error {
			_, err := tx.RefundGet(ctx, missing)
			return err
		}), payd.ErrNoRows)
		wantErr(t, "RefundGetForUpdate of a missing id", s.Tx(ctx, func(tx payd.Tx) error {
			_, err := tx.RefundGetForUpdate(ctx, missing)
			return err
		}), payd.ErrNoRows)
		dup := newRefund(pay, 1, now)
		dup.ID = r.ID
		wantErr(t, "RefundInsert of a taken id", s.Tx(ctx, func(tx payd.Tx) error { return tx.RefundInsert(ctx, dup) }), payd.ErrConflict)
		get("RefundGet after the refused duplicate", func(tx payd.Tx) (*payd.Refund, error) { return tx.RefundGet(ctx, r.ID) })
		// On PostgreSQL a refund's row goes out with the next statement
		// or the COMMIT: a duplicate found there still fails the whole
		// transaction, and takes the writes before it along.
		fresh := newRefund(pay, 2, now)
		wantErr(t, "a transaction whose second refund has a taken id", s.Tx(ctx, func(tx payd.Tx) error {
			if err := tx.RefundInsert(ctx, fresh); err != nil {
				return err
			}
			if err := tx.RefundInsert(ctx, dup); err != nil {
				return err
			}
			_, err := tx.RefundGet(ctx, fresh.ID)
			return err
		}), payd.ErrConflict)
		wantErr(t, "RefundGet of the refund written before the duplicate", s.View(ctx, func(tx payd.Tx) error {
			_, err := tx.RefundGet(ctx, fresh.ID)
			return err
		}), payd.ErrNoRows)

		// The read-modify-write of the service: lock, change, write.
		done := now.Add(time.Minute)
		mustTx(t, s, func(tx payd.Tx) error {
			locked, err := tx.RefundGetForUpdate(ctx, r.ID)
			if err != nil {
				return err
			}
			locked.Status, locked.SucceededAt = payd.RefundSucceeded, &done
			r = locked
			return tx.RefundUpdate(ctx, locked)
		})
		get("RefundGet after RefundUpdate", func(tx payd.Tx) (*payd.Refund, error) { return tx.RefundGet(ctx, r.ID) })

		// A canceled refund keeps why.
		c := newRefund(pay, 100, now)
		mustTx(t, s, func(tx payd.Tx) error { return tx.RefundInsert(ctx, c) })
		c.Status, c.Cancellation = payd.RefundCanceled, &payd.CancellationDetails{Party: "provider", Reason: "rejected", ProviderCode: "05"}
		mustTx(t, s, func(tx payd.Tx) error { return tx.RefundUpdate(ctx, c) })
		var gotC *payd.Refund
		mustView(t, s, func(tx payd.Tx) (err error) { gotC, err = tx.RefundGet(ctx, c.ID); return err })
		wantDiff(t, "RefundGet of a canceled refund", c, gotC)

		ghost := newRefund(pay, 1, now)
		wantErr(t, "RefundUpdate of a missing refund", s.Tx(ctx, func(tx payd.Tx) error { return tx.RefundUpdate(ctx, ghost) }), payd.ErrNoRows)
	})

	t.Run("GetForUpdateLocks", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		now := ts(time.Now())
		shop := addShop(t, s, addMerchant(t, s, now).ID, now)
		r := newRefund(addPayment(t, s, shop, true, now), 100, now)
		mustTx(t, s, func(tx payd.Tx) error { return tx.RefundInsert(t.Context(), r) })
		wantLocks(t, s, func(ctx context.Context, tx payd.Tx) error { _, err := tx.RefundGetForUpdate(ctx, r.ID); return err })
	})

	t.Run("List", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		base := ts(time.Now())
		m := addMerchant(t, s, base)
		shop := addShop(t, s, m.ID, base)
		pay, other := addPayment(t, s, shop, true, base), addPayment(t, s, shop, true, base)
		// Noise: a refund of another shop of the merchant, and a live one
		// of this shop.
		siblingPay := addPayment(t, s, addShop(t, s, m.ID, base), true, base)
		livePay := addPayment(t, s, shop, false, base)
		live := newRefund(livePay, 10, base)

		statuses := []payd.RefundStatus{payd.RefundPending, payd.RefundSucceeded, payd.RefundCanceled}
		var all []*payd.Refund
		for i, created := range tiedTimes(base, 23) {
			p := pay
			if i%2 == 1 {
				p = other
			}
			r := newRefund(p, int64(100+i), created)
			r.Status = statuses[i%3]
			all = append(all, r)
		}
		mustTx(t, s, func(tx payd.Tx) error {
			for _, i := range rand.Perm(len(all)) {
				if err := tx.RefundInsert(ctx, all[i]); err != nil {
					return err
				}
			}
			if err := tx.RefundInsert(ctx, live); err != nil {
				return err
			}
			return tx.RefundInsert(ctx, newRefund(siblingPay, 10, base))
		})
		list := func(p payd.RefundListParams) func(payd.ListParams) (payd.Page[*payd.Refund], error) {
			return func(lp payd.ListParams) (page payd.Page[*payd.Refund], err error) {
				p.ListParams, p.ShopID, p.Test = lp, shop.ID, true
				err = s.View(ctx, func(tx payd.Tx) error {
					page, err = tx.RefundList(ctx, &p)
					return err
				})
				return page, err
			}
		}
		filter := func(keep func(*payd.Refund) bool) []*payd.Refund { return newestWhere(all, refundCursor, keep) }
		for _, limit := range []int{0, 1, 5, 23, 100} {
			checkPaging(t, limit, filter(func(*payd.Refund) bool { return true }), refundCursor, list(payd.RefundListParams{}))
		}
		checkPaging(t, 3, filter(func(r *payd.Refund) bool { return r.PaymentID == other.ID }), refundCursor,
			list(payd.RefundListParams{PaymentID: other.ID}))
		checkPaging(t, 2, filter(func(r *payd.Refund) bool { return r.Status == payd.RefundCanceled }), refundCursor,
			list(payd.RefundListParams{Status: payd.RefundCanceled}))
		checkPaging(t, 2, filter(func(r *payd.Refund) bool { return r.PaymentID == pay.ID && r.Status == payd.RefundSucceeded }), refundCursor,
			list(payd.RefundListParams{PaymentID: pay.ID, Status: payd.RefundSucceeded}))
		// A payment of the live contour has no refunds in the test one.
		checkPaging(t, 2, nil, refundCursor, list(payd.RefundListParams{PaymentID: livePay.ID}))

		// An update moves a refund between status filters.
		moved := all[0]
		moved.Status = payd.RefundCanceled
		mustTx(t, s, func(tx payd.Tx) error { return tx.RefundUpdate(ctx, moved) })
		checkPaging(t, 2, filter(func(r *payd.Refund) bool { return r.Status == payd.RefundCanceled }), refundCursor,
			list(payd.RefundListParams{Status: payd.RefundCanceled}))
		checkPaging(t, 2, filter(func(r *payd.Refund) bool { return r.Status == payd.RefundPending }), refundCursor,
			list(payd.RefundListParams{Status: payd.RefundPending}))

		var livePage payd.Page[*payd.Refund]
		mustView(t, s, func(tx payd.Tx) (err error) {
			livePage, err = tx.RefundList(ctx, &payd.RefundListParams{ShopID: shop.ID, Test: false})
			return err
		})
		wantDiff(t, "live list", []*payd.Refund{live}, livePage.Items)
	})

	// RefundTotals feeds the ledger check: per payment and status, the
	// exact sum in minor units of every refund, whatever its shop or
	// contour, following each refund's latest status.
	t.Run("Totals", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		var empty map[string]map[string]int64
		mustView(t, s, func(tx payd.Tx) (err error) { empty, err = tx.RefundTotals(ctx); return err })
		if len(empty) != 0 {
			t.Errorf("RefundTotals of an empty store = %v, want none", empty)
		}

		m := addMerchant(t, s, now)
		shop, other := addShop(t, s, m.ID, now), addShop(t, s, m.ID, now)
		a, b, c := addPayment(t, s, shop, true, now), addPayment(t, s, other, false, now), addPayment(t, s, shop, true, now)
		// Sums past 2^53: a total that went through a float would lose
		// its last digit.
		const big = money.MaxMinor
		add := func(pay *payd.Payment, amount int64, status payd.RefundStatus) *payd.Refund {
			r := newRefund(pay, amount, now)
			r.Status = status
			mustTx(t, s, func(tx payd.Tx) error { return tx.RefundInsert(ctx, r) })
			return r
		}
		add(a, 1000, payd.RefundSucceeded)
		add(a, 250, payd.RefundSucceeded)
		add(a, 300, payd.RefundPending)
		add(a, 99, payd.RefundCanceled)
		settled := add(a, 1, payd.RefundPending)
		add(b, 1, payd.RefundPending)
		for range 11 {
			add(c, big, payd.RefundSucceeded)
		}
		// A pending refund that settles counts as succeeded only.
		settled.Status = payd.RefundSucceeded
		mustTx(t, s, func(tx payd.Tx) error { return tx.RefundUpdate(ctx, settled) })

		var got map[string]map[string]int64
		mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.RefundTotals(ctx); return err })
		wantDiff(t, "RefundTotals", map[string]map[string]int64{
			a.ID: {"succeeded": 1251, "pending": 300, "canceled": 99},
			b.ID: {"pending": 1},
			c.ID: {"succeeded": 11 * big},
		}, got)
	})
}
