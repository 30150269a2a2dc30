package api_test

import (
	"context"
	"net/netip"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestKeyStateMetric: every request that presents an API key is counted
// by the key's state, so an operator hears of merchants still calling
// with an older key in its rotation's overlap (it stops working at the
// overlap's end) and of those refused because a rotation ended theirs.
func TestKeyStateMetric(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		count := func(st payd.KeyState) float64 {
			return env.Metric("payd_api_key_authentications_total", "server", "merchant", "state", string(st))
		}
		want := func(active, expiring, expired float64) {
			t.Helper()
			for st, n := range map[payd.KeyState]float64{payd.KeyActive: active, payd.KeyExpiring: expiring, payd.KeyExpired: expired} {
				if got := count(st); got != n {
					t.Errorf("requests counted with a key %s = %v, want %v", st, got, n)
				}
			}
		}
		want(0, 0, 0)
		c.Get("/v1/payments").Expect(t, 200)
		want(1, 0, 0)

		ctx := context.Background()
		p, err := env.Service.Authenticate(ctx, shop.ID, shop.TestKey, netip.MustParseAddr("127.0.0.1"))
		if err != nil {
			t.Fatal(err)
		}
		_, fresh, err := env.Service.RotateKey(ctx, p, p.KeyID)
		if err != nil {
			t.Fatal(err)
		}
		c.Get("/v1/payments").Expect(t, 200)
		want(1, 1, 0)
		c.WithKey(fresh).Get("/v1/payments").Expect(t, 200)
		want(2, 1, 0)

		env.Clock.Advance(payd.KeyOverlap)
		c.Get("/v1/payments").ExpectError(t, 401, payd.CodeInvalidCredentials, "")
		want(2, 1, 1)
		// A secret that is no key of the shop is a failed authentication,
		// not a key in any state.
		c.WithKey(payd.NewSecret(payd.ModeTest, payd.RegionRU)).Get("/v1/payments").ExpectError(t, 401, payd.CodeInvalidCredentials, "")
		want(2, 1, 1)
	})
}
