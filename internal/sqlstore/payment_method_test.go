package sqlstore_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/money"
)

// TestMigration0018Backfill writes payments as a store of migration 0017
// did, without the method column, then migrates: each row gets the
// method of its document (the one used, else the one it is restricted
// to, else none), and the method filter finds them as it finds payments
// written now.
func TestMigration0018Backfill(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := t.Context()
		s := openUnmigrated(t, b)
		if _, err := s.MigrateTo(ctx, 17); err != nil {
			t.Fatalf("migrate to 0017: %v", err)
		}
		ids := payd.NewIDGen()
		now := time.Now().UTC().Truncate(time.Microsecond)
		m := &payd.Merchant{ID: ids.New(payd.PrefixMerchant, now), Name: "m", CreatedAt: now}
		shop := &payd.Shop{ID: ids.New(payd.PrefixShop, now), MerchantID: m.ID, Name: "s", Region: payd.RegionRU, CreatedAt: now}
		// The rows as the store of 0017 wrote them.
		if err := s.Exec(ctx, `INSERT INTO merchants (id, name, created_at) VALUES ($1, $2, $3)`,
			m.ID, m.Name, now.UnixMicro()); err != nil {
			t.Fatal(err)
		}
		if err := s.Exec(ctx, `INSERT INTO shops (id, merchant_id, region, name, default_currency, created_at)
			VALUES ($1, $2, $3, $4, 'RUB', $5)`, shop.ID, m.ID, shop.Region, shop.Name, now.UnixMicro()); err != nil {
			t.Fatal(err)
		}
		pay := func(i int, used, restricted string) *payd.Payment {
			at := now.Add(time.Duration(i) * time.Second)
			p := &payd.Payment{ID: ids.New(payd.PrefixPayment, at), ShopID: shop.ID, MerchantID: m.ID, Region: payd.RegionRU,
				Test: true, Status: payd.PaymentPending, Amount: money.New(100, money.RUB), OrderID: "o-" + string(rune('a'+i)),
				CreatedAt: at, ExpiresAt: at.Add(time.Hour), MethodType: restricted}
			if used != "" {
				p.PaymentMethod = &payd.PaymentMethodData{Type: used}
			}
			return p
		}
		usedSBP := pay(0, payd.MethodSBP, "")
		restrictedCard := pay(1, "", payd.MethodBankCard)
		unchosen := pay(2, "", "")
		usedOverRestricted := pay(3, payd.MethodSBP, payd.MethodSBP)
		for _, p := range []*payd.Payment{usedSBP, restrictedCard, unchosen, usedOverRestricted} {
			doc, _ := json.Marshal(p)
			view, _ := json.Marshal(p.View(""))
			if err := s.Exec(ctx, `INSERT INTO payments (id, shop_id, test, status, order_id, amount, currency, created_at,
				checkout_token_hash, provider, provider_payment_id, doc, expires_at, view, view_version)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, '', '', $9, $10, $11, $12)`,
				p.ID, p.ShopID, p.Test, p.Status, p.OrderID, p.Amount.Minor, p.Amount.Currency, p.CreatedAt.UnixMicro(),
				string(doc), p.ExpiresAt.UnixMicro(), string(view), payd.PaymentViewVersion); err != nil {
				t.Fatalf("insert a payment of 0017: %v", err)
			}
		}

		applied, err := s.Migrate(ctx)
		if err != nil {
			t.Fatalf("migrate: %v", err)
		}
		if len(applied) == 0 || applied[0] != "0018_payment_method_key_use.sql" {
			t.Fatalf("applied %v, want 0018 first", applied)
		}
		byMethod := func(method string) (ids []string) {
			t.Helper()
			var page payd.Page[*payd.PaymentView]
			if err := s.View(ctx, func(tx payd.Tx) (err error) {
				page, err = tx.PaymentViewList(ctx, &payd.PaymentListParams{ShopID: shop.ID, Test: true, Method: method,
					ListParams: payd.ListParams{Limit: 10}})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			for _, v := range page.Items {
				ids = append(ids, v.ID)
			}
			return ids
		}
		for method, want := range map[string][]string{
			payd.MethodSBP:          {usedOverRestricted.ID, usedSBP.ID},
			payd.MethodBankCard:     {restrictedCard.ID},
			payd.MethodInstallments: nil,
		} {
			if d := cmp.Diff(want, byMethod(method)); d != "" {
				t.Errorf("payments by method %s after the migration (-want +got):\n%s", method, d)
			}
		}
	})
}
