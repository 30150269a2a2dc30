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
	_, v := benchShop(b)
	b.ResetTimer()
	for b.Loop() {
		if p := v.get("/dashboard/test/payments"); p.status != 200 {
			b.Fatal(p.status)
		}
	}
}

func BenchmarkAPIListPage(b *testing.B) {
	env, _ := benchShop(b)
	c := env.As(benchShopOf[env], false)
	b.ResetTimer()
	for b.Loop() {
		c.Get("/v1/payments?limit=100").Expect(b, 200)
	}
}

var benchShopOf = map[*paydtest.Env]*paydtest.Shop{}

func benchShop(b *testing.B) (*paydtest.Env, *visitor) {
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
	v.signIn(newUser(b, env, shop.MerchantID, payd.RoleViewer))
	return env, v
}
