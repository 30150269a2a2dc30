package storetest

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

func testShop(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("InsertGetUpdate", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m := addMerchant(t, s, now)

		// Every field set, so that a column dropped on write or read shows.
		sh := &payd.Shop{
			ID: newID(payd.PrefixShop, now), MerchantID: m.ID, Region: payd.RegionKZ, Name: "Магазин «Ёлка»",
			DefaultCurrency: money.KZT, ActivatedAt: ptr(now.Add(-time.Hour)), Blocked: true, PaymentsSuspended: true,
			Settings: payd.ShopSettings{
				RequestsPerMinute: 900, PaymentsPerMinute: 45,
				IPAllowlist: []string{"203.0.113.7", "2001:db8::/32"},
				DisplayName: "Ёлка", StatementName: "ELKA SHOP",
				PaymentLifetimeSeconds: 3600, MethodsDisabled: []string{"sbp", "card"},
				AuthorizeRequestWebhook: true, AuthorizeRequestDefaultAllow: true,
			},
			CreatedAt: now,
		}
		mustTx(t, s, func(tx payd.Tx) error { return tx.ShopInsert(ctx, sh) })
		var got *payd.Shop
		mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.ShopGet(ctx, sh.ID); return err })
		wantDiff(t, "ShopGet after insert", sh, got)

		// Update the mutable fields through the read-modify-write the
		// service does: ShopGetForUpdate then ShopUpdate in one Tx.
		upd := &payd.Shop{
			ID: sh.ID, MerchantID: sh.MerchantID, Region: sh.Region, Name: "Renamed", DefaultCurrency: money.USD,
			ActivatedAt: nil, Blocked: false, PaymentsSuspended: false,
			Settings:  payd.ShopSettings{IPAllowlist: []string{"10.0.0.0/8"}, StatementName: "RENAMED"},
			CreatedAt: sh.CreatedAt,
		}
		var locked *payd.Shop
		mustTx(t, s, func(tx payd.Tx) (err error) {
			if locked, err = tx.ShopGetForUpdate(ctx, sh.ID); err != nil {
				return err
			}
			return tx.ShopUpdate(ctx, upd)
		})
		wantDiff(t, "ShopGetForUpdate", sh, locked)
		mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.ShopGet(ctx, sh.ID); return err })
		wantDiff(t, "ShopGet after update clearing ActivatedAt", upd, got)

		// Activation and zeroed settings round-trip too.
		upd.ActivatedAt, upd.Settings, upd.Blocked = ptr(now.Add(time.Minute)), payd.ShopSettings{}, true
		mustTx(t, s, func(tx payd.Tx) error { return tx.ShopUpdate(ctx, upd) })
		mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.ShopGet(ctx, sh.ID); return err })
		wantDiff(t, "ShopGet after update setting ActivatedAt", upd, got)

		// A write inside the Tx is visible to ShopGetForUpdate in it.
		mustTx(t, s, func(tx payd.Tx) error {
			upd.Name = "Inside"
			if err := tx.ShopUpdate(ctx, upd); err != nil {
				return err
			}
			locked, err := tx.ShopGetForUpdate(ctx, sh.ID)
			if err != nil {
				return err
			}
			wantDiff(t, "ShopGetForUpdate after an update in the same Tx", upd, locked)
			return nil
		})

		missing := newID(payd.PrefixShop, now)
		err := s.View(ctx, func(tx payd.Tx) error { _, err := tx.ShopGet(ctx, missing); return err })
		wantErr(t, "ShopGet of a missing id", err, payd.ErrNoRows)
		err = s.Tx(ctx, func(tx payd.Tx) error { _, err := tx.ShopGetForUpdate(ctx, missing); return err })
		wantErr(t, "ShopGetForUpdate of a missing id", err, payd.ErrNoRows)
		ghost := *upd
		ghost.ID = missing
		err = s.Tx(ctx, func(tx payd.Tx) error { return tx.ShopUpdate(ctx, &ghost) })
		wantErr(t, "ShopUpdate of a missing id", err, payd.ErrNoRows)
		dup := *sh
		dup.Name = "Duplicate"
		err = s.Tx(ctx, func(tx payd.Tx) error { return tx.ShopInsert(ctx, &dup) })
		wantErr(t, "ShopInsert of a taken id", err, payd.ErrConflict)
		mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.ShopGet(ctx, sh.ID); return err })
		wantDiff(t, "ShopGet after the refused duplicate", upd, got)
	})

	t.Run("ListCount", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		var n int
		mustView(t, s, func(tx payd.Tx) (err error) { n, err = tx.ShopCount(ctx); return err })
		if n != 0 {
			t.Errorf("ShopCount of an empty store = %d, want 0", n)
		}

		base := ts(time.Now())
		m1, m2, m3 := addMerchant(t, s, base), addMerchant(t, s, base), addMerchant(t, s, base)
		var all, of1, of2 []*payd.Shop
		for i, created := range tiedTimes(base, 13) {
			sh := &payd.Shop{ID: newID(payd.PrefixShop, base), MerchantID: m1.ID, Region: payd.RegionRU,
				Name: "S", DefaultCurrency: money.RUB, CreatedAt: created}
			// Merchants interleave in time, so a filter applied after the
			// limit, or a cursor from the unfiltered list, would show.
			if i%3 == 1 {
				sh.MerchantID = m2.ID
				of2 = append(of2, sh)
			} else {
				of1 = append(of1, sh)
			}
			all = append(all, sh)
		}
		mustTx(t, s, func(tx payd.Tx) error {
			for _, i := range rand.Perm(len(all)) {
				if err := tx.ShopInsert(ctx, all[i]); err != nil {
					return err
				}
			}
			return nil
		})

		mustView(t, s, func(tx payd.Tx) (err error) { n, err = tx.ShopCount(ctx); return err })
		if n != len(all) {
			t.Errorf("ShopCount = %d, want %d", n, len(all))
		}

		list := func(merchantID string) func(p payd.ListParams) (payd.Page[*payd.Shop], error) {
			return func(p payd.ListParams) (page payd.Page[*payd.Shop], err error) {
				err = s.View(ctx, func(tx payd.Tx) error {
					page, err = tx.ShopList(ctx, &payd.ShopListParams{ListParams: p, MerchantID: merchantID})
					return err
				})
				return page, err
			}
		}
		for _, limit := range []int{0, 1, 2, 4, 13} {
			checkPaging(t, limit, newestFirst(all, shopCursor), shopCursor, list(""))
			checkPaging(t, limit, newestFirst(of1, shopCursor), shopCursor, list(m1.ID))
			checkPaging(t, limit, newestFirst(of2, shopCursor), shopCursor, list(m2.ID))
			checkPaging(t, limit, nil, shopCursor, list(m3.ID))
		}

		// ShopListByMerchant promises no order; compare as sets by id.
		byID := func(a, b *payd.Shop) int { return strings.Compare(a.ID, b.ID) }
		for _, c := range []struct {
			m    *payd.Merchant
			want []*payd.Shop
		}{{m1, of1}, {m2, of2}, {m3, nil}} {
			var got []*payd.Shop
			mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.ShopListByMerchant(ctx, c.m.ID); return err })
			want := slices.SortedFunc(slices.Values(c.want), byID)
			slices.SortFunc(got, byID)
			if len(want) == 0 && len(got) == 0 {
				continue
			}
			wantDiff(t, "ShopListByMerchant", want, got)
		}
	})
}
