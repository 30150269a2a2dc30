package storetest

import (
	"testing"
	"time"

	"github.com/paydhq/payd"
)

func testKey(t *testing.T, open func(t *testing.T) payd.Store) {
	// newKey is a key of shop and mode created at created; its hash holds
	// bytes that are not valid UTF-8, which a text column would mangle.
	newKey := func(shopID string, mode payd.Mode, created time.Time) *payd.APIKey {
		return &payd.APIKey{ID: newID(payd.PrefixKey, created), ShopID: shopID, Mode: mode,
			Hint: "test_ru_…ab12", Hash: []byte{0x00, 0xff, 0xfe, 0x80, 'k', 0x00}, CreatedAt: created}
	}
	listKeys := func(t *testing.T, s payd.Store, shopID string) (got []*payd.APIKey) {
		t.Helper()
		mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.KeyListByShop(t.Context(), shopID); return err })
		return got
	}

	// keyPair inserts two keys of mode of a new shop: the one a case
	// changes and a bystander that must stay as it was.
	keyPair := func(t *testing.T, s payd.Store, mode payd.Mode, now time.Time) (k, bystander *payd.APIKey) {
		t.Helper()
		sh := addShop(t, s, addMerchant(t, s, now).ID, now)
		k, bystander = newKey(sh.ID, mode, now), newKey(sh.ID, mode, now)
		mustTx(t, s, func(tx payd.Tx) error {
			if err := tx.KeyInsert(t.Context(), k); err != nil {
				return err
			}
			return tx.KeyInsert(t.Context(), bystander)
		})
		return k, bystander
	}

	t.Run("InsertGetList", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m := addMerchant(t, s, now)
		sh, other := addShop(t, s, m.ID, now), addShop(t, s, m.ID, now)

		k1 := newKey(sh.ID, payd.ModeLive, now.Add(-2*time.Hour))
		k1.Hash = payd.HashSecret("live_ru_secret")
		k2 := newKey(sh.ID, payd.ModeTest, now.Add(-time.Hour))
		k2.ExpiresAt, k2.RevokedAt = ptr(now.Add(time.Hour)), ptr(now.Add(-time.Minute))
		k3 := newKey(sh.ID, payd.ModeLive, now)
		k4 := newKey(other.ID, payd.ModeLive, now)
		mustTx(t, s, func(tx payd.Tx) error {
			for _, k := range []*payd.APIKey{k2, k4, k1, k3} {
				if err := tx.KeyInsert(ctx, k); err != nil {
					return err
				}
			}
			return nil
		})

		for _, k := range []*payd.APIKey{k1, k2, k3, k4} {
			var got *payd.APIKey
			mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.KeyGet(ctx, k.ID); return err })
			wantDiff(t, "KeyGet", k, got)
		}
		err := s.View(ctx, func(tx payd.Tx) error { _, err := tx.KeyGet(ctx, newID(payd.PrefixKey, now)); return err })
		wantErr(t, "KeyGet of a missing id", err, payd.ErrNoRows)

		// Keys are listed newest first, only the shop's own.
		wantDiff(t, "KeyListByShop", []*payd.APIKey{k3, k2, k1}, listKeys(t, s, sh.ID))
		wantDiff(t, "KeyListByShop of the other shop", []*payd.APIKey{k4}, listKeys(t, s, other.ID))
		if got := listKeys(t, s, newID(payd.PrefixShop, now)); len(got) != 0 {
			t.Errorf("KeyListByShop of an unknown shop: %d keys, want none", len(got))
		}

		dup := newKey(sh.ID, payd.ModeLive, now)
		dup.ID = k1.ID
		err = s.Tx(ctx, func(tx payd.Tx) error { return tx.KeyInsert(ctx, dup) })
		wantErr(t, "KeyInsert of a taken id", err, payd.ErrConflict)
	})

	t.Run("ExpireOthers", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		at := now.Add(payd.KeyOverlap)
		m := addMerchant(t, s, now)
		sh, other := addShop(t, s, m.ID, now), addShop(t, s, m.ID, now)

		fresh := newKey(sh.ID, payd.ModeLive, now) // the newly issued key, excepted
		noExpiry := newKey(sh.ID, payd.ModeLive, now.Add(-time.Hour))
		later := newKey(sh.ID, payd.ModeLive, now.Add(-time.Hour))
		later.ExpiresAt = ptr(at.Add(time.Hour))
		earlier := newKey(sh.ID, payd.ModeLive, now.Add(-time.Hour))
		earlier.ExpiresAt = ptr(now.Add(time.Hour))
		expired := newKey(sh.ID, payd.ModeLive, now.Add(-48*time.Hour))
		expired.ExpiresAt = ptr(now.Add(-24 * time.Hour))
		same := newKey(sh.ID, payd.ModeLive, now.Add(-time.Hour))
		same.ExpiresAt = ptr(at)
		revoked := newKey(sh.ID, payd.ModeLive, now.Add(-time.Hour))
		revoked.RevokedAt = ptr(now.Add(-time.Minute))
		testMode := newKey(sh.ID, payd.ModeTest, now.Add(-time.Hour))
		otherShop := newKey(other.ID, payd.ModeLive, now.Add(-time.Hour))
		keys := []*payd.APIKey{fresh, noExpiry, later, earlier, expired, same, revoked, testMode, otherShop}
		mustTx(t, s, func(tx payd.Tx) error {
			for _, k := range keys {
				if err := tx.KeyInsert(ctx, k); err != nil {
					return err
				}
			}
			return tx.KeyExpireOthers(ctx, sh.ID, payd.ModeLive, fresh.ID, at)
		})

		// Only the usable live keys of sh other than fresh get the expiry,
		// and a key already expiring before at keeps its expiry: issuing a
		// key must never extend an older one.
		noExpiry.ExpiresAt, later.ExpiresAt = ptr(at), ptr(at)
		for _, k := range keys {
			var got *payd.APIKey
			mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.KeyGet(ctx, k.ID); return err })
			wantDiff(t, "key after KeyExpireOthers", k, got)
		}

		// A second rotation with a later at moves nothing later.
		mustTx(t, s, func(tx payd.Tx) error {
			return tx.KeyExpireOthers(ctx, sh.ID, payd.ModeLive, fresh.ID, at.Add(time.Hour))
		})
		for _, k := range keys {
			var got *payd.APIKey
			mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.KeyGet(ctx, k.ID); return err })
			wantDiff(t, "key after a second KeyExpireOthers with a later time", k, got)
		}
	})

	t.Run("Expire", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		k, bystander := keyPair(t, s, payd.ModeLive, now)

		err := s.Tx(ctx, func(tx payd.Tx) error { return tx.KeyExpire(ctx, newID(payd.PrefixKey, now), now) })
		wantErr(t, "KeyExpire of a missing id", err, payd.ErrNoRows)

		first := now.Add(time.Minute)
		mustTx(t, s, func(tx payd.Tx) error { return tx.KeyExpire(ctx, k.ID, first) })
		// A later expiry never replaces an earlier one.
		mustTx(t, s, func(tx payd.Tx) error { return tx.KeyExpire(ctx, k.ID, first.Add(time.Hour)) })
		k.ExpiresAt = ptr(first)
		for _, want := range []*payd.APIKey{k, bystander} {
			var got *payd.APIKey
			mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.KeyGet(ctx, want.ID); return err })
			wantDiff(t, "key after KeyExpire", want, got)
		}
	})

	t.Run("Revoke", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		k, bystander := keyPair(t, s, payd.ModeLive, now)

		err := s.Tx(ctx, func(tx payd.Tx) error { return tx.KeyRevoke(ctx, newID(payd.PrefixKey, now), now) })
		wantErr(t, "KeyRevoke of a missing id", err, payd.ErrNoRows)

		first := now.Add(time.Minute)
		mustTx(t, s, func(tx payd.Tx) error { return tx.KeyRevoke(ctx, k.ID, first) })
		// Revoking again succeeds but keeps the first time: the record of
		// when a key stopped working must not move.
		mustTx(t, s, func(tx payd.Tx) error { return tx.KeyRevoke(ctx, k.ID, first.Add(time.Hour)) })
		k.RevokedAt = ptr(first)
		for _, want := range []*payd.APIKey{k, bystander} {
			var got *payd.APIKey
			mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.KeyGet(ctx, want.ID); return err })
			wantDiff(t, "key after KeyRevoke", want, got)
		}
	})

	t.Run("Touch", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		k, bystander := keyPair(t, s, payd.ModeTest, now)
		used := now.Add(time.Hour)
		mustTx(t, s, func(tx payd.Tx) error { return tx.KeyTouch(ctx, k.ID, used) })
		// An earlier use recorded late (another instance's) does not move
		// the last use back.
		mustTx(t, s, func(tx payd.Tx) error { return tx.KeyTouch(ctx, k.ID, used.Add(-time.Minute)) })
		k.LastUsedAt = ptr(used)
		for _, want := range []*payd.APIKey{k, bystander} {
			var got *payd.APIKey
			mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.KeyGet(ctx, want.ID); return err })
			wantDiff(t, "key after KeyTouch", want, got)
		}
		later := used.Add(time.Minute)
		mustTx(t, s, func(tx payd.Tx) error { return tx.KeyTouch(ctx, k.ID, later) })
		var got *payd.APIKey
		mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.KeyGet(ctx, k.ID); return err })
		if got.LastUsedAt == nil || !got.LastUsedAt.Equal(later) {
			t.Fatalf("last use after a later KeyTouch = %v, want %v", got.LastUsedAt, later)
		}
	})
}
