package api_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

func TestRateLimit(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"requests_per_minute": 5}).Expect(t, 200)
		c := env.As(shop, false)
		for i := 0; i < 5; i++ {
			c.Get("/v1/shop").Expect(t, 200)
		}
		r := c.Get("/v1/shop")
		r.ExpectError(t, 429, payd.CodeTooManyRequests, "")
		secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
		if err != nil || secs < 1 || secs > 60 {
			t.Fatalf("Retry-After = %q", r.Header.Get("Retry-After"))
		}
		// The limit is per key: the shop's live key has its own budget.
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
		env.As(shop, true).Get("/v1/shop").Expect(t, 200)
		// After the advised wait (on the service clock) requests pass again.
		env.Clock.Advance(time.Duration(secs) * time.Second)
		c.Get("/v1/shop").Expect(t, 200)
	})
}
