package storetest

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

func newPayout(shop *payd.Shop, created time.Time) *payd.Payout {
	return &payd.Payout{ID: newID(payd.PrefixPayout, created), ShopID: shop.ID, MerchantID: shop.MerchantID, Test: true,
		Status: payd.PayoutPending, Amount: money.New(150000, money.RUB), Fee: 750, DestinationType: payd.DestinationCard,
		DestinationMasked: "card ****4242", OrderID: "payout-" + newID("", created), Metadata: map[string]string{"batch": "7"},
		CreatedAt: created, Provider: "sandbox_payouts", ProviderPayoutID: "sbxpo_succeed_1"}
}

func payoutCursor(po *payd.Payout) payd.Cursor {
	return payd.Cursor{CreatedAt: po.CreatedAt, ID: po.ID}
}

func testPayout(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("InsertGetUpdate", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		shop := addShop(t, s, addMerchant(t, s, now).ID, now)
		po := newPayout(shop, now)
		po.Description = "Weekly payout"
		mustTx(t, s, func(tx payd.Tx) error { return tx.PayoutInsert(ctx, po) })
		get := func(what string, fn func(tx payd.Tx) (*payd.Payout, error)) { t.Helper(); wantRead(t, s, what, po, fn) }
		get("PayoutGet", func(tx payd.Tx) (*payd.Payout, error) { return tx.PayoutGet(ctx, po.ID) })
		get("PayoutGetForUpdate", func(tx payd.Tx) (*payd.Payout, error) { return tx.PayoutGetForUpdate(ctx, po.ID) })
		wantErr(t, "PayoutGet of a missing id", s.View(ctx, func(tx payd.Tx) error {
			_, err := tx.PayoutGet(ctx, newID(payd.PrefixPayout, now))
			return err
		}), payd.ErrNoRows)

		done := now.Add(10 * time.Second)
		po.Status, po.SucceededAt, po.Checks = payd.PayoutSucceeded, &done, 2
		mustTx(t, s, func(tx payd.Tx) error { return tx.PayoutUpdate(ctx, po) })
		get("PayoutGet after PayoutUpdate", func(tx payd.Tx) (*payd.Payout, error) { return tx.PayoutGet(ctx, po.ID) })
		missing := newPayout(shop, now)
		wantErr(t, "PayoutUpdate of a missing payout", s.Tx(ctx, func(tx payd.Tx) error { return tx.PayoutUpdate(ctx, missing) }), payd.ErrNoRows)

		var amounts []payd.PayoutAmount
		mustView(t, s, func(tx payd.Tx) (err error) { amounts, err = tx.PayoutAmounts(ctx); return err })
		wantDiff(t, "PayoutAmounts", []payd.PayoutAmount{{ID: po.ID, MerchantID: po.MerchantID, Test: true,
			Status: payd.PayoutSucceeded, Amount: po.Amount, Fee: po.Fee}}, amounts)
	})

	t.Run("List", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		base := ts(time.Now())
		m := addMerchant(t, s, base)
		shop := addShop(t, s, m.ID, base)
		// Noise: a payout of another shop of the same merchant, and a live
		// one of this shop.
		sibling := addShop(t, s, m.ID, base)
		live := newPayout(shop, base)
		live.Test = false

		var all []*payd.Payout
		statuses := []payd.PayoutStatus{payd.PayoutPending, payd.PayoutProcessing, payd.PayoutSucceeded, payd.PayoutCanceled}
		for i, created := range tiedTimes(base, 23) {
			po := newPayout(shop, created)
			po.Status = statuses[i%4]
			if i%5 == 0 {
				po.OrderID = "batch-5"
			}
			all = append(all, po)
		}
		mustTx(t, s, func(tx payd.Tx) error {
			for _, i := range rand.Perm(len(all)) {
				if err := tx.PayoutInsert(ctx, all[i]); err != nil {
					return err
				}
			}
			if err := tx.PayoutInsert(ctx, live); err != nil {
				return err
			}
			return tx.PayoutInsert(ctx, newPayout(sibling, base))
		})
		list := func(p payd.PayoutListParams) func(payd.ListParams) (payd.Page[*payd.Payout], error) {
			return func(lp payd.ListParams) (page payd.Page[*payd.Payout], err error) {
				p.ListParams, p.ShopID, p.Test = lp, shop.ID, true
				err = s.View(ctx, func(tx payd.Tx) error {
					page, err = tx.PayoutList(ctx, &p)
					return err
				})
				return page, err
			}
		}
		filter := func(keep func(*payd.Payout) bool) []*payd.Payout { return newestWhere(all, payoutCursor, keep) }
		for _, limit := range []int{0, 1, 5, 23, 100} {
			checkPaging(t, limit, filter(func(*payd.Payout) bool { return true }), payoutCursor, list(payd.PayoutListParams{}))
		}
		checkPaging(t, 2, filter(func(po *payd.Payout) bool { return po.Status == payd.PayoutCanceled }), payoutCursor,
			list(payd.PayoutListParams{Status: payd.PayoutCanceled}))
		checkPaging(t, 2, filter(func(po *payd.Payout) bool { return po.OrderID == "batch-5" }), payoutCursor,
			list(payd.PayoutListParams{OrderID: "batch-5"}))
		gte, lt := base.Add(-6*time.Microsecond), base.Add(-2*time.Microsecond)
		checkPaging(t, 2, filter(func(po *payd.Payout) bool { return !po.CreatedAt.Before(gte) && po.CreatedAt.Before(lt) }), payoutCursor,
			list(payd.PayoutListParams{Created: payd.TimeRange{GTE: &gte, LT: &lt}}))

		var livePage payd.Page[*payd.Payout]
		mustView(t, s, func(tx payd.Tx) (err error) {
			livePage, err = tx.PayoutList(ctx, &payd.PayoutListParams{ShopID: shop.ID, Test: false})
			return err
		})
		wantDiff(t, "live list", []*payd.Payout{live}, livePage.Items)
	})
}
