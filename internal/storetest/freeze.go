package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

func testFreeze(t *testing.T, open func(t *testing.T) payd.Store) {
	// Decisions on a contour's freeze serialise on its lock, held from the
	// statement after FreezeLock; another contour's lock is another lock.
	t.Run("LockLocks", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		m := addMerchant(t, s, ts(time.Now()))
		lockAndRead := func(test bool) func(ctx context.Context, tx payd.Tx) error {
			return func(ctx context.Context, tx payd.Tx) error {
				if err := tx.FreezeLock(ctx, m.ID, test); err != nil {
					return err
				}
				_, err := tx.FreezeGet(ctx, m.ID, test)
				return err
			}
		}
		wantLocks(t, s, lockAndRead(true))
		if dialect(s) == "postgres" {
			mustTx(t, s, func(a payd.Tx) error {
				if err := lockAndRead(true)(t.Context(), a); err != nil {
					return err
				}
				// Bounded: were the two contours one lock, B would wait
				// for A, which waits for B.
				bctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				defer cancel()
				return s.Tx(bctx, func(b payd.Tx) error { return lockAndRead(false)(bctx, b) })
			})
		}
	})

	t.Run("PutGet", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m, other := addMerchant(t, s, now), addMerchant(t, s, now)
		get := func(merchantID string, test bool) (f *payd.Freeze) {
			t.Helper()
			mustView(t, s, func(tx payd.Tx) (err error) { f, err = tx.FreezeGet(ctx, merchantID, test); return err })
			return f
		}
		// A contour never frozen reads as not frozen, not as missing.
		wantDiff(t, "FreezeGet of a contour never frozen", &payd.Freeze{MerchantID: m.ID, Test: true}, get(m.ID, true))

		frozen := &payd.Freeze{MerchantID: m.ID, Test: true, Frozen: true, Reason: "available below zero", FrozenAt: ptr(now)}
		mustTx(t, s, func(tx payd.Tx) error { return tx.FreezePut(ctx, frozen) })
		wantDiff(t, "FreezeGet after FreezePut", frozen, get(m.ID, true))
		// Each contour has its own freeze; other merchants have theirs.
		wantDiff(t, "FreezeGet of the live contour", &payd.Freeze{MerchantID: m.ID, Test: false}, get(m.ID, false))
		wantDiff(t, "FreezeGet of another merchant", &payd.Freeze{MerchantID: other.ID, Test: true}, get(other.ID, true))

		// A second put replaces the first, every field of it.
		lifted := &payd.Freeze{MerchantID: m.ID, Test: true, Frozen: false, Reason: "", UnfrozenAt: ptr(now.Add(time.Hour))}
		mustTx(t, s, func(tx payd.Tx) error { return tx.FreezePut(ctx, lifted) })
		wantDiff(t, "FreezeGet after a second FreezePut", lifted, get(m.ID, true))

		// Frozen again in the same transaction that reads it.
		again := &payd.Freeze{MerchantID: m.ID, Test: true, Frozen: true, Reason: "operator", FrozenAt: ptr(now.Add(2 * time.Hour)),
			UnfrozenAt: ptr(now.Add(time.Hour))}
		mustTx(t, s, func(tx payd.Tx) error {
			if err := tx.FreezePut(ctx, again); err != nil {
				return err
			}
			f, err := tx.FreezeGet(ctx, m.ID, true)
			if err != nil {
				return err
			}
			wantDiff(t, "FreezeGet inside the transaction that put it", again, f)
			return nil
		})
		wantDiff(t, "FreezeGet of the live contour after the test one changed", &payd.Freeze{MerchantID: m.ID, Test: false}, get(m.ID, false))
	})
}
