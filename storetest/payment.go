package storetest

import (
	"crypto/rand"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

func newPayment(shop *payd.Shop, orderID string, created, expires time.Time) *payd.Payment {
	token := make([]byte, 32)
	rand.Read(token)
	return &payd.Payment{ID: newID(payd.PrefixPayment, created), ShopID: shop.ID, MerchantID: shop.MerchantID,
		Region: shop.Region, Test: true, Status: payd.PaymentPending, Amount: money.New(10000, money.RUB),
		OrderID: orderID, CreatedAt: created, ExpiresAt: expires, CheckoutTokenHash: token}
}

func testPayment(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("InsertOrderConflict", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		shop := addShop(t, s, addMerchant(t, s, now).ID, now)
		first := newPayment(shop, "order-1", now, now.Add(time.Hour))
		mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentInsert(ctx, first) })

		// A second payment of the order id is ErrConflict, and the
		// transaction goes on: the caller reads the holder in it.
		var holder *payd.Payment
		mustTx(t, s, func(tx payd.Tx) (err error) {
			err = tx.PaymentInsert(ctx, newPayment(shop, "order-1", now, now.Add(time.Hour)))
			if !errors.Is(err, payd.ErrConflict) {
				return fmt.Errorf("PaymentInsert of a taken order id: %v, want ErrConflict", err)
			}
			holder, err = tx.PaymentGetByOrderID(ctx, shop.ID, true, "order-1")
			return err
		})
		if holder.ID != first.ID {
			t.Errorf("holder of the order id = %s, want %s", holder.ID, first.ID)
		}
		// The same order id in the live contour is another order.
		live := newPayment(shop, "order-1", now, now.Add(time.Hour))
		live.Test = false
		mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentInsert(ctx, live) })
	})

	t.Run("ListExpired", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		shop := addShop(t, s, addMerchant(t, s, now).ID, now)
		var due []payd.PaymentDue
		add := func(order string, expires time.Time, status payd.PaymentStatus) *payd.Payment {
			p := newPayment(shop, order, now.Add(-time.Hour), expires)
			mustTx(t, s, func(tx payd.Tx) error {
				if err := tx.PaymentInsert(ctx, p); err != nil {
					return err
				}
				if status == payd.PaymentPending {
					return nil
				}
				p.Status = status
				return tx.PaymentUpdate(ctx, p)
			})
			return p
		}
		// Two due at the same instant (ordered by id), one earlier, one
		// exactly at now; not due: later, or no longer pending.
		for i, at := range []time.Time{now.Add(-time.Minute), now.Add(-time.Minute), now.Add(-2 * time.Minute), now} {
			p := add(fmt.Sprintf("due-%d", i), at, payd.PaymentPending)
			due = append(due, payd.PaymentDue{ID: p.ID, ExpiresAt: p.ExpiresAt})
		}
		add("later", now.Add(time.Microsecond), payd.PaymentPending)
		add("canceled", now.Add(-time.Hour), payd.PaymentCanceled)
		add("waiting", now.Add(-time.Hour), payd.PaymentWaitingForCapture)
		want := []payd.PaymentDue{due[2], due[0], due[1], due[3]}
		if due[1].ID < due[0].ID {
			want[1], want[2] = due[1], due[0]
		}

		list := func(after payd.PaymentDue, limit int) []payd.PaymentDue {
			var got []payd.PaymentDue
			mustView(t, s, func(tx payd.Tx) (err error) {
				got, err = tx.PaymentListExpired(ctx, &payd.PaymentListExpiredParams{Now: now, After: after, Limit: limit})
				return err
			})
			return got
		}
		wantDiff(t, "PaymentListExpired", want, list(payd.PaymentDue{}, 10))
		// Walking two at a time from the last one seen gives the same.
		var walked []payd.PaymentDue
		var after payd.PaymentDue
		for range 5 {
			page := list(after, 2)
			walked = append(walked, page...)
			if len(page) < 2 {
				break
			}
			after = page[len(page)-1]
		}
		wantDiff(t, "PaymentListExpired two at a time", want, walked)
	})
}
