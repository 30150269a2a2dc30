package storetest

import (
	"context"
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
			if i == 0 {
				p.MethodType = payd.MethodSBP // restricted when created, not yet paid
			}
			mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentInsert(ctx, p) })
			pays = append(pays, p)
		}
		for i, p := range []*payd.Payment{pays[1], pays[3]} {
			p.Status, p.CapturedAmount, p.FeeFixed, p.FeeAmount = payd.PaymentSucceeded, p.Amount.Minor, true, 70
			p.PaymentMethod = &payd.PaymentMethodData{Type: []string{payd.MethodSBP, payd.MethodBankCard}[i]}
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
					ids, views = append(ids, v.ID), append(views, v.JSON)
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
		// The method filter matches the method used, else the one a
		// payment is restricted to; a payment whose payer has not chosen
		// matches none.
		for _, c := range []struct {
			params payd.PaymentListParams
			want   []string
		}{
			{payd.PaymentListParams{Method: payd.MethodSBP}, []string{pays[1].ID, pays[0].ID}},
			{payd.PaymentListParams{Method: payd.MethodBankCard}, []string{pays[3].ID}},
			{payd.PaymentListParams{Method: payd.MethodInstallments}, nil},
			{payd.PaymentListParams{Method: payd.MethodSBP, Status: payd.PaymentSucceeded}, []string{pays[1].ID}},
			{payd.PaymentListParams{Method: payd.MethodSBP, OrderID: "view-0"}, []string{pays[0].ID}},
		} {
			ids, _ = walk(c.params)
			wantDiff(t, fmt.Sprintf("PaymentViewList by method %+v", c.params), c.want, ids)
		}
	})

	t.Run("Lookups", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		shop := addShop(t, s, addMerchant(t, s, now).ID, now)
		p, other := newPayment(shop, "order-1", now, now.Add(time.Hour)), newPayment(shop, "order-2", now, now.Add(time.Hour))
		p.Metadata, p.Description = map[string]string{"cart": "42"}, "Заказ №1"
		mustTx(t, s, func(tx payd.Tx) error {
			if err := tx.PaymentInsert(ctx, p); err != nil {
				return err
			}
			return tx.PaymentInsert(ctx, other)
		})
		get := func(what string, want *payd.Payment, fn func(tx payd.Tx) (*payd.Payment, error)) {
			t.Helper()
			var got *payd.Payment
			mustTx(t, s, func(tx payd.Tx) (err error) { got, err = fn(tx); return err })
			wantPayment(t, what, want, got)
		}
		get("PaymentGetForUpdate", p, func(tx payd.Tx) (*payd.Payment, error) { return tx.PaymentGetForUpdate(ctx, p.ID) })
		// A token names its payment; one made before tokens did is found
		// by its hash alone.
		get("PaymentGetByCheckoutToken", p, func(tx payd.Tx) (*payd.Payment, error) {
			return tx.PaymentGetByCheckoutToken(ctx, p.CheckoutTokenHash, p.ID)
		})
		get("PaymentGetByCheckoutToken of the other payment", other, func(tx payd.Tx) (*payd.Payment, error) {
			return tx.PaymentGetByCheckoutToken(ctx, other.CheckoutTokenHash, other.ID)
		})
		get("PaymentGetByCheckoutToken of a token that names no payment", p, func(tx payd.Tx) (*payd.Payment, error) {
			return tx.PaymentGetByCheckoutToken(ctx, p.CheckoutTokenHash, "")
		})

		// The attempt's provider id is set by an update, and moved by the
		// next one when the cascade goes on to another provider.
		p.Provider, p.ProviderPaymentID = "sandbox", "sbx_1"
		mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentUpdate(ctx, p) })
		get("PaymentGetByProviderID", p, func(tx payd.Tx) (*payd.Payment, error) {
			return tx.PaymentGetByProviderID(ctx, "sandbox", "sbx_1")
		})
		p.Provider, p.ProviderPaymentID = "sandbox_backup", "sbx_2"
		mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentUpdate(ctx, p) })
		get("PaymentGetByProviderID after the cascade moved on", p, func(tx payd.Tx) (*payd.Payment, error) {
			return tx.PaymentGetByProviderID(ctx, "sandbox_backup", "sbx_2")
		})

		for name, fn := range map[string]func(tx payd.Tx) error{
			"PaymentGetForUpdate of a missing id": func(tx payd.Tx) error {
				_, err := tx.PaymentGetForUpdate(ctx, newID(payd.PrefixPayment, now))
				return err
			},
			"PaymentGetByCheckoutToken of an unknown token": func(tx payd.Tx) error {
				_, err := tx.PaymentGetByCheckoutToken(ctx, make([]byte, 32), "")
				return err
			},
			"PaymentGetByCheckoutToken of an unknown token naming a payment": func(tx payd.Tx) error {
				_, err := tx.PaymentGetByCheckoutToken(ctx, make([]byte, 32), p.ID)
				return err
			},
			"PaymentGetByCheckoutToken of a token naming another payment": func(tx payd.Tx) error {
				_, err := tx.PaymentGetByCheckoutToken(ctx, p.CheckoutTokenHash, other.ID)
				return err
			},
			"PaymentGetByProviderID of the former attempt": func(tx payd.Tx) error {
				_, err := tx.PaymentGetByProviderID(ctx, "sandbox", "sbx_1")
				return err
			},
			"PaymentGetByProviderID of another provider": func(tx payd.Tx) error {
				_, err := tx.PaymentGetByProviderID(ctx, "sandbox", "sbx_2")
				return err
			},
		} {
			wantErr(t, name, s.Tx(ctx, fn), payd.ErrNoRows)
		}
	})

	t.Run("GetForUpdateLocks", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		now := ts(time.Now())
		shop := addShop(t, s, addMerchant(t, s, now).ID, now)
		p := newPayment(shop, "order-1", now, now.Add(time.Hour))
		mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentInsert(t.Context(), p) })
		wantLocks(t, s, func(ctx context.Context, tx payd.Tx) error { _, err := tx.PaymentGetForUpdate(ctx, p.ID); return err })
	})

	// PaymentStats backs the shop's turnover, average-ticket and
	// per-minute limits: the count and exact sum of one shop's payments of
	// one contour and currency (any currency when empty) created at or
	// after since, canceled ones left out.
	t.Run("Stats", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		since := ts(time.Now())
		shop, sibling := addShop(t, s, addMerchant(t, s, since).ID, since), addShop(t, s, addMerchant(t, s, since).ID, since)
		n := 0
		add := func(sh *payd.Shop, test bool, created time.Time, amount int64, c money.Currency, status payd.PaymentStatus) {
			n++
			p := newPayment(sh, fmt.Sprintf("stats-%d", n), created, created.Add(time.Hour))
			p.Test, p.Amount = test, money.New(amount, c)
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
		}
		add(shop, true, since, 10_000, money.RUB, payd.PaymentPending) // exactly at since
		add(shop, true, since.Add(time.Minute), 2_550, money.RUB, payd.PaymentSucceeded)
		add(shop, true, since.Add(time.Minute), 99, money.RUB, payd.PaymentWaitingForCapture)
		add(shop, true, since.Add(2*time.Minute), money.MaxMinor, money.RUB, payd.PaymentSucceeded)
		add(shop, true, since.Add(2*time.Minute), 700, money.USD, payd.PaymentSucceeded)
		// Out: canceled, created a microsecond before since, of the live
		// contour, of another shop.
		add(shop, true, since.Add(time.Minute), 1_000_000, money.RUB, payd.PaymentCanceled)
		add(shop, true, since.Add(-time.Microsecond), 3_000, money.RUB, payd.PaymentSucceeded)
		add(shop, false, since.Add(time.Minute), 5_000, money.RUB, payd.PaymentSucceeded)
		add(sibling, true, since.Add(time.Minute), 7_000, money.RUB, payd.PaymentSucceeded)

		for _, c := range []struct {
			test     bool
			currency string
			since    time.Time
			n        int
			sum      int64
		}{
			{true, "RUB", since, 4, 10_000 + 2_550 + 99 + money.MaxMinor},
			{true, "USD", since, 1, 700},
			{true, "KZT", since, 0, 0},
			{true, "RUB", since.Add(time.Minute), 3, 2_550 + 99 + money.MaxMinor},
			{true, "RUB", since.Add(-time.Microsecond), 5, 10_000 + 2_550 + 99 + money.MaxMinor + 3_000},
			{false, "RUB", since, 1, 5_000},
			{true, "RUB", since.Add(time.Hour), 0, 0},
		} {
			var gotN int
			var gotSum int64
			mustView(t, s, func(tx payd.Tx) (err error) {
				gotN, gotSum, err = tx.PaymentStats(ctx, shop.ID, c.test, c.currency, c.since)
				return err
			})
			if gotN != c.n || gotSum != c.sum {
				t.Errorf("PaymentStats(test %v, %q, since %s) = %d, %d; want %d, %d",
					c.test, c.currency, c.since.Sub(since), gotN, gotSum, c.n, c.sum)
			}
		}
		// Any currency: the per-minute limit counts them all (their sum
		// mixes currencies; nothing reads it).
		var all int
		mustView(t, s, func(tx payd.Tx) (err error) { all, _, err = tx.PaymentStats(ctx, shop.ID, true, "", since); return err })
		if all != 5 {
			t.Errorf("PaymentStats of any currency counted %d payments, want 5", all)
		}
	})

	// Totals group one shop's payments of one mode created on the UTC days
	// [from, to) by status and currency, in that order: the dashboard's
	// home page and the daily and monthly limits. They follow every
	// creation and change of status, and a transaction that rolls back
	// leaves them as they were.
	t.Run("Totals", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		from := ts(time.Now()).Truncate(24 * time.Hour)
		to := from.Add(24 * time.Hour)
		shop, sibling := addShop(t, s, addMerchant(t, s, from).ID, from), addShop(t, s, addMerchant(t, s, from).ID, from)
		n := 0
		add := func(sh *payd.Shop, test bool, created time.Time, amount int64, c money.Currency, status payd.PaymentStatus) *payd.Payment {
			n++
			p := newPayment(sh, fmt.Sprintf("totals-%d", n), created, created.Add(time.Hour))
			p.Test, p.Amount, p.Status = test, money.New(amount, c), status
			mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentInsert(ctx, p) })
			return p
		}
		totals := func(test bool, from, to time.Time) (got []payd.PaymentTotal) {
			t.Helper()
			mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.PaymentTotals(ctx, shop.ID, test, from, to); return err })
			return got
		}
		add(shop, true, from, 10_000, money.RUB, payd.PaymentSucceeded)
		add(shop, true, from.Add(time.Hour), 2_550, money.RUB, payd.PaymentSucceeded)
		add(shop, true, from.Add(time.Hour), 99, money.RUB, payd.PaymentCanceled)
		add(shop, true, to.Add(-time.Microsecond), 700, money.USD, payd.PaymentSucceeded)
		// Out: at to, before from, live, another shop.
		add(shop, true, to, 1, money.RUB, payd.PaymentSucceeded)
		add(shop, true, from.Add(-time.Microsecond), 2, money.RUB, payd.PaymentSucceeded)
		add(shop, false, from.Add(time.Hour), 3, money.RUB, payd.PaymentSucceeded)
		add(sibling, true, from.Add(time.Hour), 4, money.RUB, payd.PaymentSucceeded)

		wantDiff(t, "PaymentTotals", []payd.PaymentTotal{
			{Status: payd.PaymentCanceled, Currency: "RUB", Count: 1, Sum: 99},
			{Status: payd.PaymentSucceeded, Currency: "RUB", Count: 2, Sum: 12_550},
			{Status: payd.PaymentSucceeded, Currency: "USD", Count: 1, Sum: 700},
		}, totals(true, from, to))
		wantDiff(t, "PaymentTotals live", []payd.PaymentTotal{{Status: payd.PaymentSucceeded, Currency: "RUB", Count: 1, Sum: 3}},
			totals(false, from, to))
		wantDiff(t, "PaymentTotals of three days", []payd.PaymentTotal{
			{Status: payd.PaymentCanceled, Currency: "RUB", Count: 1, Sum: 99},
			{Status: payd.PaymentSucceeded, Currency: "RUB", Count: 4, Sum: 12_553},
			{Status: payd.PaymentSucceeded, Currency: "USD", Count: 1, Sum: 700},
		}, totals(true, from.Add(-24*time.Hour), to.Add(24*time.Hour)))

		// A payment moves from its status's total to the next one's, read
		// under its lock or not; a status no payment has any more is
		// left out.
		p := add(shop, true, from.Add(2*time.Hour), 500, money.RUB, payd.PaymentPending)
		wantDiff(t, "PaymentTotals with a pending payment", []payd.PaymentTotal{
			{Status: payd.PaymentCanceled, Currency: "RUB", Count: 1, Sum: 99},
			{Status: payd.PaymentPending, Currency: "RUB", Count: 1, Sum: 500},
			{Status: payd.PaymentSucceeded, Currency: "RUB", Count: 2, Sum: 12_550},
			{Status: payd.PaymentSucceeded, Currency: "USD", Count: 1, Sum: 700},
		}, totals(true, from, to))
		mustTx(t, s, func(tx payd.Tx) error {
			locked, err := tx.PaymentGetForUpdate(ctx, p.ID)
			if err != nil {
				return err
			}
			locked.Status = payd.PaymentWaitingForCapture
			if err := tx.PaymentUpdate(ctx, locked); err != nil {
				return err
			}
			locked.Status = payd.PaymentSucceeded
			return tx.PaymentUpdate(ctx, locked)
		})
		// Changed and rolled back: nothing moves.
		err := s.Tx(ctx, func(tx payd.Tx) error {
			p.Status = payd.PaymentCanceled
			if err := tx.PaymentUpdate(ctx, p); err != nil {
				return err
			}
			return errors.New("rolled back")
		})
		if err == nil {
			t.Fatal("a transaction that failed committed")
		}
		p.Status = payd.PaymentSucceeded
		mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentUpdate(ctx, p) })
		wantDiff(t, "PaymentTotals after the payment succeeded", []payd.PaymentTotal{
			{Status: payd.PaymentCanceled, Currency: "RUB", Count: 1, Sum: 99},
			{Status: payd.PaymentSucceeded, Currency: "RUB", Count: 3, Sum: 13_050},
			{Status: payd.PaymentSucceeded, Currency: "USD", Count: 1, Sum: 700},
		}, totals(true, from, to))

		// The totals count by days: a period that does not start and end
		// at UTC midnights is refused rather than answered wrong.
		mustView(t, s, func(tx payd.Tx) error {
			if _, err := tx.PaymentTotals(ctx, shop.ID, true, from.Add(time.Hour), to); err == nil {
				t.Error("PaymentTotals from 01:00 answered; want an error")
			}
			return nil
		})
	})

	// Payments created at once in one shop, and moved on at once, come out
	// exact in the totals: each transaction adds to a slot of its own.
	t.Run("TotalsConcurrent", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		day := ts(time.Now()).Truncate(24 * time.Hour)
		shop := addShop(t, s, addMerchant(t, s, day).ID, day)
		const workers, each = 8, 10
		eachWorker(t, workers, each, func(w, i int) error {
			p := newPayment(shop, fmt.Sprintf("w%d-%d", w, i), day.Add(time.Duration(w*each+i)*time.Second), day.Add(time.Hour))
			p.Amount = money.New(int64(100+i), money.RUB)
			if err := s.Tx(ctx, func(tx payd.Tx) error { return tx.PaymentInsert(ctx, p) }); err != nil || i%2 == 1 {
				return err
			}
			return s.Tx(ctx, func(tx payd.Tx) error {
				locked, err := tx.PaymentGetForUpdate(ctx, p.ID)
				if err != nil {
					return err
				}
				locked.Status = payd.PaymentSucceeded
				return tx.PaymentUpdate(ctx, locked)
			})
		})
		var got []payd.PaymentTotal
		mustView(t, s, func(tx payd.Tx) (err error) {
			got, err = tx.PaymentTotals(ctx, shop.ID, true, day, day.Add(24*time.Hour))
			return err
		})
		// Per worker: i = 0..9, amounts 100+i; the even ones succeeded.
		wantDiff(t, "PaymentTotals after concurrent creations", []payd.PaymentTotal{
			{Status: payd.PaymentPending, Currency: "RUB", Count: workers * each / 2, Sum: workers * (101 + 103 + 105 + 107 + 109)},
			{Status: payd.PaymentSucceeded, Currency: "RUB", Count: workers * each / 2, Sum: workers * (100 + 102 + 104 + 106 + 108)},
		}, got)
	})
}

// wantPayment compares payments by their documents: Payment has unexported
// fields, which cmp does not look into.
func wantPayment(t *testing.T, what string, want, got *payd.Payment) {
	t.Helper()
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	wantDiff(t, what, string(w), string(g))
}
