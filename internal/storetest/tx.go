package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

func testTx(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("RollbackOnError", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m := &payd.Merchant{ID: newID(payd.PrefixMerchant, now), Name: "M", CreatedAt: now}
		sh := &payd.Shop{ID: newID(payd.PrefixShop, now), MerchantID: m.ID, Region: payd.RegionRU, Name: "S",
			DefaultCurrency: "RUB", CreatedAt: now}
		ev := newEvent(sh.ID, m.ID, true, payd.EventPaymentSucceeded, "pay_1", now)
		idem := &payd.IdempotencyRecord{ShopID: sh.ID, Mode: payd.ModeTest, Key: "k", RequestHash: []byte{1},
			Outcome: payd.OutcomeCreated, Body: []byte("{}"), CreatedAt: now, ExpiresAt: now.Add(payd.IdempotencyTTL)}

		// Every write succeeds and is visible inside the transaction, then
		// fn fails: none of it may stay.
		boom := errors.New("fn failed after writing")
		err := s.Tx(ctx, func(tx payd.Tx) error {
			if err := tx.MerchantInsert(ctx, m); err != nil {
				return err
			}
			if err := tx.ShopInsert(ctx, sh); err != nil {
				return err
			}
			if err := tx.EventInsert(ctx, ev); err != nil {
				return err
			}
			if err := tx.IdempotencyPut(ctx, idem); err != nil {
				return err
			}
			if _, err := tx.ShopGet(ctx, sh.ID); err != nil {
				return errors.Join(errors.New("own write not visible inside the Tx"), err)
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("Tx returned %v, want fn's error", err)
		}
		err = s.View(ctx, func(tx payd.Tx) error {
			_, err := tx.MerchantGet(ctx, m.ID)
			wantErr(t, "MerchantGet after rollback", err, payd.ErrNoRows)
			_, err = tx.ShopGet(ctx, sh.ID)
			wantErr(t, "ShopGet after rollback", err, payd.ErrNoRows)
			_, err = tx.EventGet(ctx, ev.ShopID, ev.Test, ev.ID)
			wantErr(t, "EventGet after rollback", err, payd.ErrNoRows)
			_, err = tx.IdempotencyGet(ctx, idem.ShopID, idem.Mode, idem.Key)
			wantErr(t, "IdempotencyGet after rollback", err, payd.ErrNoRows)
			n, err := tx.ShopCount(ctx)
			if err != nil || n != 0 {
				t.Errorf("ShopCount after rollback = %d, %v; want 0", n, err)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("View: %v", err)
		}

		// A failed statement fails the Tx too, and takes the earlier
		// writes of fn with it.
		mustTx(t, s, func(tx payd.Tx) error { return tx.MerchantInsert(ctx, m) })
		m2 := &payd.Merchant{ID: newID(payd.PrefixMerchant, now), Name: "M2", CreatedAt: now}
		err = s.Tx(ctx, func(tx payd.Tx) error {
			if err := tx.MerchantInsert(ctx, m2); err != nil {
				return err
			}
			return tx.MerchantInsert(ctx, m)
		})
		wantErr(t, "Tx whose insert conflicts", err, payd.ErrConflict)
		err = s.View(ctx, func(tx payd.Tx) error { _, err := tx.MerchantGet(ctx, m2.ID); return err })
		wantErr(t, "MerchantGet of a write before the conflict", err, payd.ErrNoRows)
	})

	t.Run("ViewSeesCommitted", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m := &payd.Merchant{ID: newID(payd.PrefixMerchant, now), Name: "M", SettlementDelayDays: 2, CreatedAt: now}
		mustTx(t, s, func(tx payd.Tx) error { return tx.MerchantInsert(ctx, m) })
		var got *payd.Merchant
		mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.MerchantGet(ctx, m.ID); return err })
		wantDiff(t, "MerchantGet in View after commit", m, got)
		var page payd.Page[*payd.Merchant]
		mustView(t, s, func(tx payd.Tx) (err error) {
			page, err = tx.MerchantList(ctx, &payd.MerchantListParams{})
			return err
		})
		wantDiff(t, "MerchantList in View after commit", payd.Page[*payd.Merchant]{Items: []*payd.Merchant{m}}, page)
	})

	t.Run("ShopGetForUpdateLocks", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		now := ts(time.Now())
		sh := addShop(t, s, addMerchant(t, s, now).ID, now)
		wantLocks(t, s, func(ctx context.Context, tx payd.Tx) error { _, err := tx.ShopGetForUpdate(ctx, sh.ID); return err })
	})

	t.Run("AfterCommit", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		cases := []struct {
			name string
			// fail makes fn fail after registering: an error of its own,
			// or a statement that fails.
			fail   func(tx payd.Tx, m *payd.Merchant) error
			commit bool
		}{
			{"commit", func(payd.Tx, *payd.Merchant) error { return nil }, true},
			{"fn fails", func(payd.Tx, *payd.Merchant) error { return errors.New("fn failed") }, false},
			{"a statement fails", func(tx payd.Tx, m *payd.Merchant) error { return tx.MerchantInsert(ctx, m) }, false},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				m := &payd.Merchant{ID: newID(payd.PrefixMerchant, now), Name: "M", CreatedAt: now}
				var calls []string
				var seen []error
				err := s.Tx(ctx, func(tx payd.Tx) error {
					if err := tx.MerchantInsert(ctx, m); err != nil {
						return err
					}
					for _, name := range []string{"first", "second"} {
						tx.AfterCommit(func() {
							calls = append(calls, name)
							// Another connection already sees the
							// transaction's writes.
							seen = append(seen, s.View(ctx, func(tx payd.Tx) error { _, err := tx.MerchantGet(ctx, m.ID); return err }))
						})
					}
					if len(calls) != 0 {
						return fmt.Errorf("AfterCommit functions ran inside the transaction: %v", calls)
					}
					return tc.fail(tx, m)
				})
				if (err == nil) != tc.commit {
					t.Fatalf("Tx: error %v, want a commit: %v", err, tc.commit)
				}
				if !tc.commit {
					if len(calls) != 0 {
						t.Errorf("AfterCommit functions ran after a rollback: %v", calls)
					}
					return
				}
				slices.Sort(calls)
				wantDiff(t, "AfterCommit calls, each once", []string{"first", "second"}, calls)
				for _, err := range seen {
					if err != nil {
						t.Errorf("MerchantGet from an AfterCommit function: %v; the commit should be visible", err)
					}
				}
			})
		}
	})
}

// wantLocks checks that lock, a ...ForUpdate read, holds its row until the
// transaction ends: while transaction A holds it, B's lock waits, and B
// gives up at a short deadline, which is the proof it was blocked; once A
// ended, B gets it at once. It needs row locks between transactions, so it
// skips the test where the backend has none (SQLite's single writer
// serialises whole transactions instead).
func wantLocks(t *testing.T, s payd.Store, lock func(ctx context.Context, tx payd.Tx) error) {
	t.Helper()
	wantLocksBetween(t, s, lock, lock)
}

// needPostgres skips a case that needs what only PostgreSQL has (what
// names it): SQLite's single writer never lets two transactions meet.
func needPostgres(t *testing.T, s payd.Store, what string) {
	t.Helper()
	if d := dialect(s); d != "postgres" {
		t.Skipf("%s need PostgreSQL; dialect %q", what, d)
	}
}

// wantLocksBetween checks that b waits while a transaction that ran a
// holds the lock (PostgreSQL only), then succeeds once it is free.
func wantLocksBetween(t *testing.T, s payd.Store, lockA, lockB func(ctx context.Context, tx payd.Tx) error) {
	t.Helper()
	needPostgres(t, s, "row locks between transactions")
	ctx := t.Context()
	err := s.Tx(ctx, func(a payd.Tx) error {
		if err := lockA(ctx, a); err != nil {
			return err
		}
		bctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		berr := s.Tx(bctx, func(b payd.Tx) error { return lockB(bctx, b) })
		if berr == nil || bctx.Err() == nil {
			t.Errorf("B's lock ended (error %v) before its deadline while A held the row; want it to wait", berr)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("transaction A: %v", err)
	}
	mustTx(t, s, func(b payd.Tx) error { return lockB(ctx, b) })
}
