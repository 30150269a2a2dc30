package storetest

import (
	"crypto/rand"
	"encoding/json"
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

	// A payment inserted "at commit" is stored as PaymentInsert stores it;
	// a taken order id fails the whole transaction, at the call or at the
	// commit, with ErrOrderIDTaken, and keeps nothing of it.
	t.Run("InsertAtCommit", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		shop := addShop(t, s, addMerchant(t, s, now).ID, now)
		first := newPayment(shop, "order-1", now, now.Add(time.Hour))
		mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentInsertAtCommit(ctx, first) })
		var got *payd.Payment
		err := s.View(ctx, func(tx payd.Tx) (err error) {
			got, err = tx.PaymentGet(ctx, first.ID)
			return err
		})
		if err != nil {
			t.Fatalf("PaymentGet of a payment inserted at commit: %v", err)
		}
		want, _ := json.Marshal(first)
		gotDoc, _ := json.Marshal(got)
		wantDiff(t, "PaymentGet of a payment inserted at commit", string(want), string(gotDoc))

		record := &payd.IdempotencyRecord{ShopID: shop.ID, Mode: payd.ModeTest, Key: "k", RequestHash: []byte{1},
			Outcome: payd.OutcomeCreated, Body: []byte(`{}`), CreatedAt: now, ExpiresAt: now.Add(payd.IdempotencyTTL)}
		err = s.Tx(ctx, func(tx payd.Tx) error {
			if _, _, err := tx.IdempotencyLockGet(ctx, shop.ID, payd.ModeTest, "k"); err != nil {
				return err
			}
			if err := tx.PaymentInsertAtCommit(ctx, newPayment(shop, "order-1", now, now.Add(time.Hour))); err != nil {
				return err
			}
			return tx.IdempotencyPut(ctx, record)
		})
		wantErr(t, "a transaction inserting a taken order id at commit", err, payd.ErrOrderIDTaken)
		err = s.View(ctx, func(tx payd.Tx) error {
			_, err := tx.IdempotencyGet(ctx, shop.ID, payd.ModeTest, "k")
			return err
		})
		wantErr(t, "IdempotencyGet of the refused transaction's record", err, payd.ErrNoRows)
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

		wantDueWalk(t, "PaymentListExpired", want, func(after payd.PaymentDue, limit int) (got []payd.PaymentDue) {
			mustView(t, s, func(tx payd.Tx) (err error) {
				got, err = tx.PaymentListExpired(ctx, &payd.PaymentListExpiredParams{Now: now, After: after, Limit: limit})
				return err
			})
			return got
		})
	})

	t.Run("ViewList", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		shop := addShop(t, s, addMerchant(t, s, now).ID, now)
		// Five payments a second apart, two of them changed after their
		// insert: the kept rendering follows every write.
		var pays []*payd.Payment
		for i := range 5 {
			p := newPayment(shop, fmt.Sprintf("view-%d", i), now.Add(time.Duration(i)*time.Second), now.Add(time.Hour))
			p.Metadata = map[string]string{"n": fmt.Sprint(i)}
			mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentInsert(ctx, p) })
			pays = append(pays, p)
		}
		for _, p := range []*payd.Payment{pays[1], pays[3]} {
			p.Status, p.CapturedAmount, p.FeeFixed, p.FeeAmount = payd.PaymentSucceeded, p.Amount.Minor, true, 70
			mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentUpdate(ctx, p) })
		}
		render := func(p *payd.Payment) string {
			b, err := json.Marshal(p.View(""))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		walk := func(params payd.PaymentListParams) (ids, views []string) {
			params.ShopID, params.Test, params.Limit = shop.ID, true, 2
			for range 5 {
				var page payd.Page[*payd.PaymentView]
				mustView(t, s, func(tx payd.Tx) (err error) {
					page, err = tx.PaymentViewList(ctx, &params)
					return err
				})
				for _, v := range page.Items {
					ids, views = append(ids, v.ID), append(views, string(v.JSON))
				}
				if page.Next == nil {
					break
				}
				params.After = page.Next
			}
			return ids, views
		}
		ids, views := walk(payd.PaymentListParams{})
		var wantIDs, wantViews []string
		for i := len(pays) - 1; i >= 0; i-- {
			wantIDs, wantViews = append(wantIDs, pays[i].ID), append(wantViews, render(pays[i]))
		}
		wantDiff(t, "PaymentViewList ids", wantIDs, ids)
		wantDiff(t, "PaymentViewList renderings", wantViews, views)
		ids, _ = walk(payd.PaymentListParams{Status: payd.PaymentSucceeded})
		wantDiff(t, "PaymentViewList succeeded", []string{pays[3].ID, pays[1].ID}, ids)
		ids, views = walk(payd.PaymentListParams{OrderID: "view-2"})
		wantDiff(t, "PaymentViewList by order id", []string{pays[2].ID}, ids)
		wantDiff(t, "PaymentViewList by order id, rendering", []string{render(pays[2])}, views)
	})
}
