package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

// testPaymentViewsStale: payments written now carry the running rendering
// version and are never stale; the stale walk is in id order after its
// position, bounded by its limit. Stale rows are made by the stores' own
// tests (internal/sqlstore/view_test.go), since no Tx method writes an older
// version.
func testPaymentViewsStale(t *testing.T, open func(t *testing.T) payd.Store) {
	s := open(t)
	ctx := t.Context()
	now := ts(time.Now())
	shop := addShop(t, s, addMerchant(t, s, now).ID, now)
	var ids []string
	for i := range 3 {
		p := newPayment(shop, "view-"+string(rune('a'+i)), now, now.Add(time.Hour))
		mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentInsert(ctx, p) })
		ids = append(ids, p.ID)
	}
	slices.Sort(ids)
	var stale []string
	mustView(t, s, func(tx payd.Tx) (err error) { stale, err = tx.PaymentViewsStale(ctx, "", 10); return err })
	wantDiff(t, "PaymentViewsStale of payments written now", []string(nil), stale)
	mustView(t, s, func(tx payd.Tx) (err error) { stale, err = tx.PaymentViewsStale(ctx, ids[0], 1); return err })
	wantDiff(t, "PaymentViewsStale after a position", []string(nil), stale)
}
