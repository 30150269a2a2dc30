package storetest

import (
	"encoding/json"
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

// testPaymentViewGet: one payment's rendering is its View without
// confirmation_url, as written and again after an update, with the shop
// and mode the service checks the reader against; a missing id is
// ErrNoRows.
func testPaymentViewGet(t *testing.T, open func(t *testing.T) payd.Store) {
	s := open(t)
	ctx := t.Context()
	now := ts(time.Now())
	shop := addShop(t, s, addMerchant(t, s, now).ID, now)
	p := newPayment(shop, "view-get", now, now.Add(time.Hour))
	p.Metadata = map[string]string{"<tag>": "&amp; \u2028"}
	mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentInsert(ctx, p) })
	get := func() *payd.PaymentView {
		t.Helper()
		var v *payd.PaymentView
		mustView(t, s, func(tx payd.Tx) (err error) { v, err = tx.PaymentViewGet(ctx, p.ID); return err })
		return v
	}
	want := func() *payd.PaymentView {
		b, err := json.Marshal(p.View(""))
		if err != nil {
			t.Fatal(err)
		}
		return &payd.PaymentView{ID: p.ID, CreatedAt: p.CreatedAt, JSON: string(b), ShopID: p.ShopID, Test: p.Test}
	}
	wantDiff(t, "PaymentViewGet as inserted", want(), get())
	p.Status, p.CapturedAmount = payd.PaymentSucceeded, p.Amount.Minor
	mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentUpdate(ctx, p) })
	wantDiff(t, "PaymentViewGet after an update", want(), get())
	err := s.View(ctx, func(tx payd.Tx) error {
		_, err := tx.PaymentViewGet(ctx, newID(payd.PrefixPayment, now))
		return err
	})
	wantErr(t, "PaymentViewGet of a missing id", err, payd.ErrNoRows)
}
