package storetest

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

func merchantCursor(m *payd.Merchant) payd.Cursor {
	return payd.Cursor{CreatedAt: m.CreatedAt, ID: m.ID}
}

func shopCursor(s *payd.Shop) payd.Cursor { return payd.Cursor{CreatedAt: s.CreatedAt, ID: s.ID} }

// addMerchant inserts a merchant created at the given time.
func addMerchant(t *testing.T, s payd.Store, created time.Time) *payd.Merchant {
	t.Helper()
	m := &payd.Merchant{ID: newID(payd.PrefixMerchant, created), Name: "Merchant", SettlementDelayDays: 1, CreatedAt: created}
	mustTx(t, s, func(tx payd.Tx) error { return tx.MerchantInsert(t.Context(), m) })
	return m
}

// addShop inserts a shop of merchantID created at the given time.
func addShop(t *testing.T, s payd.Store, merchantID string, created time.Time) *payd.Shop {
	t.Helper()
	sh := &payd.Shop{ID: newID(payd.PrefixShop, created), MerchantID: merchantID, Region: payd.RegionRU,
		Name: "Shop", DefaultCurrency: money.RUB, CreatedAt: created}
	mustTx(t, s, func(tx payd.Tx) error { return tx.ShopInsert(t.Context(), sh) })
	return sh
}

// tiedTimes returns n creation times newest-last in id order: the i-th
// time is older than the (i-1)-th, and groups of three share a time. Ids
// are made in increasing order, so ordering by id alone, or by insertion,
// gives a different list than ordering by (created_at, id); the steps are
// one microsecond, so a store that lost precision would tie them too.
func tiedTimes(base time.Time, n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = base.Add(-time.Duration(i/3) * time.Microsecond)
	}
	return out
}

func testMerchant(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("InsertGet", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m := &payd.Merchant{ID: newID(payd.PrefixMerchant, now), Name: "Ромашка", LegalName: "ООО «Ромашка»",
			TaxID: "7701234567", SettlementDelayDays: 3, CreatedAt: now,
			Chargeback: payd.ChargebackRule{RatioBps: 150, WindowDays: 60, MinCount: 5}, RequireSecondFactor: true}
		mustTx(t, s, func(tx payd.Tx) error { return tx.MerchantInsert(ctx, m) })

		var got *payd.Merchant
		mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.MerchantGet(ctx, m.ID); return err })
		wantDiff(t, "MerchantGet", m, got)

		err := s.View(ctx, func(tx payd.Tx) error {
			_, err := tx.MerchantGet(ctx, newID(payd.PrefixMerchant, now))
			return err
		})
		wantErr(t, "MerchantGet of a missing id", err, payd.ErrNoRows)

		dup := *m
		dup.Name, dup.CreatedAt = "Other", now.Add(time.Hour)
		err = s.Tx(ctx, func(tx payd.Tx) error { return tx.MerchantInsert(ctx, &dup) })
		wantErr(t, "MerchantInsert of a taken id", err, payd.ErrConflict)

		mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.MerchantGet(ctx, m.ID); return err })
		wantDiff(t, "MerchantGet after the refused duplicate", m, got)

		mustTx(t, s, func(tx payd.Tx) (err error) { got, err = tx.MerchantGetForUpdate(ctx, m.ID); return err })
		wantDiff(t, "MerchantGetForUpdate", m, got)
		err = s.Tx(ctx, func(tx payd.Tx) error {
			_, err := tx.MerchantGetForUpdate(ctx, newID(payd.PrefixMerchant, now))
			return err
		})
		wantErr(t, "MerchantGetForUpdate of a missing id", err, payd.ErrNoRows)
	})

	// Money checks across a merchant's payments (the available balance)
	// serialise on this lock.
	t.Run("GetForUpdateLocks", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		m := addMerchant(t, s, ts(time.Now()))
		wantLocks(t, s, func(ctx context.Context, tx payd.Tx) error { _, err := tx.MerchantGetForUpdate(ctx, m.ID); return err })
	})

	// MerchantLock takes the same lock, held from the statement after it
	// (on PostgreSQL it goes out with that statement), and each of the
	// two ways waits for the other.
	t.Run("LockLocks", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		m := addMerchant(t, s, ts(time.Now()))
		lockAndRead := func(ctx context.Context, tx payd.Tx) error {
			if err := tx.MerchantLock(ctx, m.ID); err != nil {
				return err
			}
			_, err := tx.MerchantGet(ctx, m.ID)
			return err
		}
		wantLocks(t, s, lockAndRead)
		wantLocksBetween(t, s, lockAndRead, func(ctx context.Context, tx payd.Tx) error {
			_, err := tx.MerchantGetForUpdate(ctx, m.ID)
			return err
		})
	})

	// The refund's balance check: the read after MerchantLock runs once
	// the lock is held, so it sees what the transaction that held the
	// lock committed — a check under the lock counts every movement
	// checked before it.
	t.Run("LockThenReadSeesTheHoldersCommit", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		needPostgres(t, s, "row locks between transactions")
		ctx := t.Context()
		now := ts(time.Now())
		m := addMerchant(t, s, now)
		avail := macct(m.ID, true, money.RUB, ledger.Available, "")
		clearing := sacct(true, money.RUB, ledger.ProviderClearing)
		postEntries(t, s, newEntry(now, ledger.KindPendingReleased, ledger.Move(clearing, avail, 1_000)))
		read := make(chan int64, 1)
		errs := make(chan error, 1)
		mustTx(t, s, func(a payd.Tx) error {
			if _, err := a.MerchantGetForUpdate(ctx, m.ID); err != nil {
				return err
			}
			go func() {
				err := s.Tx(ctx, func(b payd.Tx) error {
					if err := b.MerchantLock(ctx, m.ID); err != nil {
						return err
					}
					got, err := b.LedgerAccountBalance(ctx, avail)
					read <- got
					return err
				})
				errs <- err
			}()
			// B is given time to queue on the lock before A posts.
			time.Sleep(200 * time.Millisecond)
			return a.LedgerPost(ctx, newEntry(now, ledger.KindRefundCreated, ledger.Move(avail, clearing, 400)))
		})
		if err := <-errs; err != nil {
			t.Fatalf("B: %v", err)
		}
		if got := <-read; got != 600 {
			t.Errorf("available read after the lock = %d, want 600 (A's refund of 400 committed while B waited)", got)
		}
	})

	t.Run("List", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()

		var empty payd.Page[*payd.Merchant]
		mustView(t, s, func(tx payd.Tx) (err error) {
			empty, err = tx.MerchantList(ctx, &payd.MerchantListParams{})
			return err
		})
		if len(empty.Items) != 0 || empty.Next != nil {
			t.Errorf("MerchantList of an empty store: %d items, Next %v; want none and nil", len(empty.Items), empty.Next)
		}

		// 23 merchants: more than a default page, not a multiple of the
		// small limits below.
		base := ts(time.Now())
		var all []*payd.Merchant
		for i, created := range tiedTimes(base, 23) {
			all = append(all, &payd.Merchant{ID: newID(payd.PrefixMerchant, base), Name: "M" + strconv.Itoa(i),
				SettlementDelayDays: i % 4, CreatedAt: created})
		}
		mustTx(t, s, func(tx payd.Tx) error {
			for _, i := range rand.Perm(len(all)) {
				if err := tx.MerchantInsert(ctx, all[i]); err != nil {
					return err
				}
			}
			return nil
		})
		want := newestFirst(all, merchantCursor)
		// 0 and 101 fall back to the default page size.
		for _, limit := range []int{0, 1, 2, 5, 20, 23, 100, 101} {
			checkPaging(t, limit, want, merchantCursor, func(p payd.ListParams) (page payd.Page[*payd.Merchant], err error) {
				err = s.View(ctx, func(tx payd.Tx) error {
					page, err = tx.MerchantList(ctx, &payd.MerchantListParams{ListParams: p})
					return err
				})
				return page, err
			})
		}
	})
}
