package main

import (
	"context"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestWalk runs the program's walk against a sandbox service: it must
// succeed as the README promises, and leave a paid payment with a refund.
func TestWalk(t *testing.T) {
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	shop := env.NewShop(payd.RegionRU, "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := walk(ctx, env.API.URL+"/v1", shop.ID, shop.TestKey); err != nil {
		t.Fatal(err)
	}
	c := env.As(shop, false)
	var refunds struct {
		Items []struct {
			PaymentID string `json:"payment_id"`
			Amount    struct{ Value string }
		}
	}
	c.Get("/v1/refunds").Expect(t, 200).Decode(t, &refunds)
	if len(refunds.Items) != 1 || refunds.Items[0].Amount.Value != "500.00" {
		t.Fatalf("refunds after the walk: %+v", refunds.Items)
	}
	if p := c.Get("/v1/payments/"+refunds.Items[0].PaymentID).Expect(t, 200).JSON(t); p["status"] != "succeeded" {
		t.Fatalf("the walk's payment: %v", p["status"])
	}
}

func TestSandboxShopFromTheEnvironment(t *testing.T) {
	t.Setenv("PAYD_SHOP_ID", "sh_X")
	t.Setenv("PAYD_SECRET_KEY", "test_ru_Y")
	t.Setenv("PAYD_API_URL", "")
	api, shop, key, err := sandboxShop()
	if err != nil || api != "http://127.0.0.1:8080/v1" || shop != "sh_X" || key != "test_ru_Y" {
		t.Fatalf("sandboxShop() = %q, %q, %q, %v", api, shop, key, err)
	}
}
