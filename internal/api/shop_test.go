package api_test

import (
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

func TestShop(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionKZ, "")
		got := env.As(shop, false).Get("/v1/shop").Expect(t, 200).JSON(t)
		if got["id"] != shop.ID || got["region"] != "kz" || got["test"] != true || got["default_currency"] != "KZT" ||
			got["settlement_model"] != "agent" {
			t.Fatalf("shop = %v", got)
		}
		caps := got["capabilities"].(map[string]any)
		if caps["receipts"] != false || caps["payouts"] != false || caps["two_stage"] != true {
			t.Fatalf("capabilities = %v", caps)
		}
		st := got["settlement"].(map[string]any)["status"].(map[string]any)
		if st["payouts_frozen"] != false {
			t.Fatalf("settlement status = %v", st)
		}
	})
}
