package sqlstore_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
	"github.com/paydhq/payd/paydtest"
)

// TestPaymentViewListRendersOlderRows: a payment written before renderings
// were kept (view is NULL) is listed rendered from its document, exactly as
// one written now.
func TestPaymentViewListRendersOlderRows(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := t.Context()
		s := openUnmigrated(t, b)
		if _, err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		ids := payd.NewIDGen()
		now := time.Now().UTC().Truncate(time.Microsecond)
		m := &payd.Merchant{ID: ids.New(payd.PrefixMerchant, now), Name: "m", CreatedAt: now}
		shop := &payd.Shop{ID: ids.New(payd.PrefixShop, now), MerchantID: m.ID, Name: "s", Region: payd.RegionRU, CreatedAt: now}
		pay := &payd.Payment{ID: ids.New(payd.PrefixPayment, now), ShopID: shop.ID, MerchantID: m.ID, Region: payd.RegionRU,
			Test: true, Status: payd.PaymentPending, Amount: money.New(12345, money.RUB), OrderID: "old-1",
			Metadata: map[string]string{"k": "v"}, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
		err := s.Tx(ctx, func(tx payd.Tx) error {
			if err := tx.MerchantInsert(ctx, m); err != nil {
				return err
			}
			if err := tx.ShopInsert(ctx, shop); err != nil {
				return err
			}
			return tx.PaymentInsert(ctx, pay)
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Exec(ctx, `UPDATE payments SET view = NULL`); err != nil {
			t.Fatal(err)
		}
		var page payd.Page[*payd.PaymentView]
		if err := s.View(ctx, func(tx payd.Tx) (err error) {
			page, err = tx.PaymentViewList(ctx, &payd.PaymentListParams{ShopID: shop.ID, Test: true})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(pay.View(""))
		if len(page.Items) != 1 || string(page.Items[0].JSON) != string(want) {
			t.Fatalf("listed %v, want the one payment rendered as %s", page.Items, want)
		}
	})
}
