package dashboard_test

import (
	"fmt"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// BenchmarkPaymentsPage renders the first page of 50 payments, as a
// signed-in user; compare with BenchmarkAPIListPage (make bench has the
// figures at scale).
func BenchmarkPaymentsPage(b *testing.B) {
	_, v := benchShop(b, payd.RoleViewer)
	b.ResetTimer()
	for b.Loop() {
		if p := v.get("/dashboard/test/payments"); p.status != 200 {
			b.Fatal(p.status)
		}
	}
}

func BenchmarkAPIListPage(b *testing.B) {
	env, _ := benchShop(b, payd.RoleViewer)
	c := env.As(benchShopOf[env], false)
	b.ResetTimer()
	for b.Loop() {
		c.Get("/v1/payments?limit=100").Expect(b, 200)
	}
}

var benchShopOf = map[*paydtest.Env]*paydtest.Shop{}

// BenchmarkEventsPage renders the events log's first page: 50 events, each
// with its body.
func BenchmarkEventsPage(b *testing.B) {
	env, v := benchShop(b, payd.RoleDeveloper)
	c := env.As(benchShopOf[env], false)
	ids := c.Get("/v1/payments?limit=100").Expect(b, 200).JSON(b)["items"].([]any)
	for _, p := range ids[:60] {
		id := p.(map[string]any)["id"].(string)
		c.Post("/v1/test/payments/"+id+"/simulate", "bench-decline-"+id, map[string]any{"outcome": "decline"}).Expect(b, 202)
	}
	paydtest.Eventually(b, "60 events", func() bool {
		return len(c.Get("/v1/events?limit=100").Expect(b, 200).JSON(b)["items"].([]any)) >= 60
	})
	b.ResetTimer()
	for b.Loop() {
		if p := v.get("/dashboard/test/developers/events"); p.status != 200 {
			b.Fatal(p.status)
		}
	}
}

func benchShop(b *testing.B, role payd.Role) (*paydtest.Env, *visitor) {
	env := paydtest.Start(b, paydtest.Backends(b)[0], nil)
	shop := env.NewShop(payd.RegionRU, "")
	benchShopOf[env] = shop
	c := env.As(shop, false)
	for i := range 100 {
		body := map[string]any{"amount": map[string]any{"value": fmt.Sprintf("%d.00", i+1), "currency": "RUB"},
			"order_id": fmt.Sprintf("b-%d", i), "confirmation": map[string]any{"type": "qr"}}
		c.Post("/v1/payments", fmt.Sprintf("bench-key-%d", i), body).Expect(b, 201)
	}
	v := newVisitor(b, env)
	v.signIn(newUser(b, env, shop.MerchantID, role))
	return env, v
}
