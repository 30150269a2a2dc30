package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// testSandboxReset: the mark of a reset, and its batches: a batch deletes
// at most its limit of the shop's test objects with their ledger entries,
// takes their sums off the running totals (and drops the totals left
// without postings), and never touches live rows or another shop's.
func testSandboxReset(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("Mark", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		shop := addShop(t, s, addMerchant(t, s, now).ID, now)
		// The mark is read by a test key's idempotency lock, never by a
		// live key's.
		lockErr := func(mode payd.Mode) error {
			t.Helper()
			return s.Tx(ctx, func(tx payd.Tx) error {
				_, locked, err := tx.IdempotencyLockGet(ctx, shop.ID, mode, "k")
				if err == nil && !locked {
					err = fmt.Errorf("IdempotencyLockGet: not locked")
				}
				return err
			})
		}
		if err := lockErr(payd.ModeTest); err != nil {
			t.Fatalf("a new shop: %v", err)
		}
		first := markReset(t, s, shop.ID, now)
		if !first.Equal(now) {
			t.Fatalf("the first mark = %v, want the reset's moment %v", first, now)
		}
		wantErr(t, "a test key's lock on a marked shop", lockErr(payd.ModeTest), payd.ErrSandboxResetting)
		if err := lockErr(payd.ModeLive); err != nil {
			t.Fatalf("a live key's lock on a marked shop: %v", err)
		}
		// A second reset at the same moment (or an earlier one, on
		// another instance's clock) gets a mark of its own, later: it
		// holds the shop from then on, and the first no longer does.
		second := markReset(t, s, shop.ID, now.Add(-time.Second))
		if !second.After(first) {
			t.Fatalf("a second mark at an earlier moment = %v, want after the first %v", second, first)
		}
		if got := resetHeld(t, s, shop.ID, first); got {
			t.Error("the first reset still holds the shop after a second one marked it")
		}
		if got := resetHeld(t, s, shop.ID, second); !got {
			t.Error("the second reset does not hold the shop it marked")
		}
		// Only the mark's own reset removes it.
		var cleared bool
		mustTx(t, s, func(tx payd.Tx) (err error) { cleared, err = tx.ShopSandboxResetClear(ctx, shop.ID, first); return err })
		if cleared || !resetMarked(t, s, shop.ID) {
			t.Fatalf("the first reset removed the second one's mark (%v)", cleared)
		}
		wantErr(t, "a test key's lock while the second reset runs", lockErr(payd.ModeTest), payd.ErrSandboxResetting)
		clearReset(t, s, shop.ID, second)
		if resetMarked(t, s, shop.ID) || resetHeld(t, s, shop.ID, second) {
			t.Fatal("the mark stayed after its reset removed it")
		}
		if err := lockErr(payd.ModeTest); err != nil {
			t.Fatalf("the cleared mark: %v", err)
		}
	})

	// Fence: a change of test data under way (a test key's idempotency
	// lock held) keeps the mark from being set until it ends, and a change
	// that starts while the mark is being set waits for it and then sees
	// it — so a change lands wholly before or wholly after a reset.
	t.Run("Fence", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		shop := addShop(t, s, addMerchant(t, s, now).ID, now)
		// hold runs fn in a transaction and keeps the transaction open
		// until release is closed; held is closed once fn ran.
		hold := func(fn func(tx payd.Tx) error) (held, release chan struct{}, done chan error) {
			held, release, done = make(chan struct{}), make(chan struct{}), make(chan error, 1)
			go func() {
				done <- s.Tx(ctx, func(tx payd.Tx) error {
					if err := fn(tx); err != nil {
						close(held)
						return err
					}
					close(held)
					<-release
					return nil
				})
			}()
			return held, release, done
		}
		// blocked says whether a step has not happened a while after it
		// could have.
		blocked := func(step chan struct{}) bool {
			select {
			case <-step:
				return false
			case <-time.After(300 * time.Millisecond):
				return true
			}
		}

		change, endChange, changeDone := hold(func(tx payd.Tx) error {
			_, _, err := tx.IdempotencyLockGet(ctx, shop.ID, payd.ModeTest, "before")
			return err
		})
		<-change
		mark, endMark, markDone := hold(func(tx payd.Tx) error { _, err := tx.ShopSandboxResetMark(ctx, shop.ID, now); return err })
		if !blocked(mark) {
			t.Fatal("the reset mark was set while a change of test data was under way")
		}
		close(endChange)
		if err := <-changeDone; err != nil {
			t.Fatalf("the change: %v", err)
		}
		<-mark
		later, laterErr := make(chan struct{}), make(chan error, 1)
		go func() {
			laterErr <- s.Tx(ctx, func(tx payd.Tx) error {
				_, _, err := tx.IdempotencyLockGet(ctx, shop.ID, payd.ModeTest, "after")
				return err
			})
			close(later)
		}()
		if !blocked(later) {
			t.Fatal("a change of test data did not wait for the mark being set")
		}
		close(endMark)
		if err := <-markDone; err != nil {
			t.Fatalf("the mark: %v", err)
		}
		wantErr(t, "a change that waited for the mark", <-laterErr, payd.ErrSandboxResetting)

		// A reset's batch holds the fence as a change does: a newer
		// reset's marking waits for the batch under way, so two resets
		// never delete side by side, and the next batch finds the newer
		// mark.
		batch, endBatch, batchDone := hold(func(tx payd.Tx) error {
			held, err := tx.ShopSandboxResetHeld(ctx, shop.ID, now)
			if err == nil && !held {
				err = fmt.Errorf("the reset does not hold the shop it marked")
			}
			return err
		})
		<-batch
		newer, endNewer, newerDone := hold(func(tx payd.Tx) error { _, err := tx.ShopSandboxResetMark(ctx, shop.ID, now); return err })
		if !blocked(newer) {
			t.Fatal("a newer reset marked the shop while a batch of the reset before it was under way")
		}
		close(endBatch)
		if err := <-batchDone; err != nil {
			t.Fatalf("the batch: %v", err)
		}
		<-newer
		close(endNewer)
		if err := <-newerDone; err != nil {
			t.Fatalf("the newer mark: %v", err)
		}
		if resetHeld(t, s, shop.ID, now) {
			t.Error("the first reset still holds the shop after the newer one marked it")
		}
	})

	t.Run("Delete", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m := addMerchant(t, s, now)
		shop, other := addShop(t, s, m.ID, now), addShop(t, s, m.ID, now)
		capture := func(pay *payd.Payment) {
			e := &ledger.Entry{ID: newID(payd.PrefixEntry, now), At: now, Kind: ledger.KindPaymentCaptured, RefType: "payment", RefID: pay.ID,
				Postings: ledger.Move(sacct(pay.Test, money.RUB, ledger.ProviderClearing), macct(m.ID, pay.Test, money.RUB, ledger.Pending, pay.ID), 1000)}
			postEntries(t, s, e)
		}
		var mine []*payd.Payment
		for range 3 {
			p := addPayment(t, s, shop, true, now)
			capture(p)
			mine = append(mine, p)
		}
		live, kept := addPayment(t, s, shop, false, now), addPayment(t, s, other, true, now)
		capture(live)
		capture(kept)
		ev := newEvent(shop.ID, m.ID, true, payd.EventPaymentSucceeded, mine[0].ID, now)
		liveEv := newEvent(shop.ID, m.ID, false, payd.EventPaymentSucceeded, live.ID, now)
		mustTx(t, s, func(tx payd.Tx) error {
			if err := tx.EventInsert(ctx, ev); err != nil {
				return err
			}
			return tx.EventInsert(ctx, liveEv)
		})

		batch := func(kind payd.SandboxKind, limit int) (c payd.SandboxResetCounts, n int64) {
			t.Helper()
			mustTx(t, s, func(tx payd.Tx) (err error) {
				c, n, err = tx.SandboxDelete(ctx, &payd.SandboxDeleteParams{ShopID: shop.ID, MerchantID: m.ID, Kind: kind, Limit: limit})
				return err
			})
			return c, n
		}
		// The day totals follow each batch: the shop's test payments left,
		// the live ones and the other shop's untouched.
		day := now.Truncate(24 * time.Hour)
		counted := func(shopID string, test bool) (n int64) {
			t.Helper()
			mustView(t, s, func(tx payd.Tx) error {
				totals, err := tx.PaymentTotals(ctx, shopID, test, day, day.Add(24*time.Hour))
				for _, pt := range totals {
					n += pt.Count
				}
				return err
			})
			return n
		}
		if c, n := batch(payd.SandboxPayments, 2); n != 2 || c.Payments != 2 || c.LedgerEntries != 2 {
			t.Fatalf("first batch: %d, %+v", n, c)
		}
		if n := counted(shop.ID, true); n != 1 {
			t.Errorf("the day totals count %d test payments after the first batch, want 1", n)
		}
		if c, n := batch(payd.SandboxPayments, 2); n != 1 || c.LedgerEntries != 1 {
			t.Fatalf("last batch: %d, %+v", n, c)
		}
		for _, c := range []struct {
			shop string
			test bool
			want int64
		}{{shop.ID, true, 0}, {shop.ID, false, 1}, {other.ID, true, 1}} {
			if n := counted(c.shop, c.test); n != c.want {
				t.Errorf("the day totals count %d payments of shop %s (test %v) after the reset, want %d", n, c.shop, c.test, c.want)
			}
		}
		if _, n := batch(payd.SandboxPayments, 2); n != 0 {
			t.Fatalf("a batch after the last deleted %d", n)
		}
		if c, n := batch(payd.SandboxEvents, 10); n != 1 || c.Events != 1 {
			t.Fatalf("events: %d, %+v", n, c)
		}
		for _, p := range mine {
			if _, err := getPayment(t, s, p.ID); err != payd.ErrNoRows {
				t.Fatalf("payment %s after the reset: %v", p.ID, err)
			}
		}
		for _, p := range []*payd.Payment{live, kept} {
			if _, err := getPayment(t, s, p.ID); err != nil {
				t.Fatalf("payment %s: %v", p.ID, err)
			}
		}
		mustView(t, s, func(tx payd.Tx) error {
			if _, err := tx.EventGet(ctx, shop.ID, false, liveEv.ID); err != nil {
				t.Errorf("the live event: %v", err)
			}
			for _, c := range []struct {
				a    ledger.Account
				want int64
			}{
				{macct(m.ID, true, money.RUB, ledger.Pending, mine[0].ID), 0},
				{macct(m.ID, true, money.RUB, ledger.Pending, kept.ID), 1000},
				{macct(m.ID, false, money.RUB, ledger.Pending, live.ID), 1000},
				{sacct(true, money.RUB, ledger.ProviderClearing), -1000},
			} {
				if got, err := tx.LedgerAccountBalance(ctx, c.a); err != nil || got != c.want {
					t.Errorf("%s = %d %v, want %d", c.a.Key(), got, err, c.want)
				}
			}
			buckets, err := tx.LedgerBucketByCurrency(ctx, m.ID, true, ledger.Pending)
			if err != nil || buckets[money.RUB] != 1000 {
				t.Errorf("test pending = %v %v, want 1000", buckets, err)
			}
			return nil
		})
		if got := totalMismatches(t, s); len(got) != 0 {
			t.Fatalf("totals after the reset: %+v", got)
		}

		// The other shop's reset empties the contour's pending bucket:
		// its total goes with its last posting, and the live one stays.
		mustTx(t, s, func(tx payd.Tx) error {
			_, _, err := tx.SandboxDelete(ctx, &payd.SandboxDeleteParams{ShopID: other.ID, MerchantID: m.ID, Kind: payd.SandboxPayments, Limit: 10})
			return err
		})
		mustView(t, s, func(tx payd.Tx) error {
			for test, want := range map[bool]int64{true: 0, false: 1000} {
				buckets, err := tx.LedgerBucketByCurrency(ctx, m.ID, test, ledger.Pending)
				if err != nil || buckets[money.RUB] != want {
					t.Errorf("pending (test %v) = %v %v, want %d", test, buckets, err, want)
				}
			}
			return nil
		})
		if got := totalMismatches(t, s); len(got) != 0 {
			t.Fatalf("totals after the other shop's reset: %+v", got)
		}

		// LedgerEntriesDelete leaves a live entry alone, whatever names it.
		var n int64
		mustTx(t, s, func(tx payd.Tx) (err error) {
			n, err = tx.LedgerEntriesDelete(ctx, "payment", []string{live.ID})
			return err
		})
		if n != 0 {
			t.Fatalf("deleted %d live entries", n)
		}
	})
}

func getPayment(t *testing.T, s payd.Store, id string) (p *payd.Payment, err error) {
	t.Helper()
	err = s.View(t.Context(), func(tx payd.Tx) error { p, err = tx.PaymentGet(t.Context(), id); return err })
	return p, err
}

// markReset marks a reset of the shop at the moment at, and returns the
// mark.
func markReset(t *testing.T, s payd.Store, shopID string, at time.Time) (mark time.Time) {
	t.Helper()
	mustTx(t, s, func(tx payd.Tx) (err error) { mark, err = tx.ShopSandboxResetMark(t.Context(), shopID, at); return err })
	return mark
}

// clearReset removes the reset's mark, which must be the shop's.
func clearReset(t *testing.T, s payd.Store, shopID string, mark time.Time) {
	t.Helper()
	var cleared bool
	mustTx(t, s, func(tx payd.Tx) (err error) {
		cleared, err = tx.ShopSandboxResetClear(t.Context(), shopID, mark)
		return err
	})
	if !cleared {
		t.Fatalf("the reset's mark %v was not the shop's", mark)
	}
}

// resetHeld says whether the reset of the mark still holds the shop.
func resetHeld(t *testing.T, s payd.Store, shopID string, mark time.Time) (held bool) {
	t.Helper()
	mustTx(t, s, func(tx payd.Tx) (err error) {
		held, err = tx.ShopSandboxResetHeld(t.Context(), shopID, mark)
		return err
	})
	return held
}

// resetMarked says whether a reset's mark is on the shop.
func resetMarked(t *testing.T, s payd.Store, shopID string) (marked bool) {
	t.Helper()
	mustTx(t, s, func(tx payd.Tx) (err error) { marked, err = tx.ShopSandboxResetMarked(t.Context(), shopID); return err })
	return marked
}
