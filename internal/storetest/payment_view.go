package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
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

// testPaymentViewsAtOnce: reads made at once, which a store may answer
// together, each get their own payment, of their own shop, and a missing
// id ErrNoRows, whichever reads go with them.
func testPaymentViewsAtOnce(t *testing.T, open func(t *testing.T) payd.Store) {
	s := open(t)
	ctx := t.Context()
	now := ts(time.Now())
	want := map[string]*payd.Payment{}
	var ids []string
	for m := range 3 {
		shop := addShop(t, s, addMerchant(t, s, now).ID, now)
		for i := range 10 {
			p := newPayment(shop, fmt.Sprintf("at-once-%d-%d", m, i), now, now.Add(time.Hour))
			mustTx(t, s, func(tx payd.Tx) error { return tx.PaymentInsert(ctx, p) })
			want[p.ID] = p
			ids = append(ids, p.ID)
		}
	}
	for range 10 {
		ids = append(ids, newID(payd.PrefixPayment, now))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*len(ids))
	for range 8 {
		for _, id := range ids {
			wg.Go(func() {
				var v *payd.PaymentView
				err := s.View(ctx, func(tx payd.Tx) (err error) { v, err = tx.PaymentViewGet(ctx, id); return err })
				p := want[id]
				switch {
				case p == nil && !errors.Is(err, payd.ErrNoRows):
					errs <- fmt.Errorf("read of missing %s: %v, %v", id, v, err)
				case p == nil:
				case err != nil:
					errs <- fmt.Errorf("read of %s: %w", id, err)
				case v.ID != id || v.ShopID != p.ShopID || v.Test != p.Test:
					errs <- fmt.Errorf("read of %s gave %s of shop %s, want shop %s", id, v.ID, v.ShopID, p.ShopID)
				default:
					if b, _ := json.Marshal(p.View("")); v.JSON != string(b) {
						errs <- fmt.Errorf("read of %s rendered %s, want %s", id, v.JSON, b)
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
