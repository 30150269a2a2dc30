package api_test

import (
	"context"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestEventRetention checks that a job removes events after one year
// (Limits: Event retention), on the service clock.
func TestEventRetention(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		s := env.NewShop(payd.RegionRU, "")
		shop, _ := env.Service.GetShop(context.Background(), s.ID)
		old := seedEvents(t, env, shop, true, 1)[0]
		env.Clock.Advance(200 * 24 * time.Hour)
		young := seedEvents(t, env, shop, true, 1)[0]
		c := env.As(s, false)
		// Half a year on: both kept.
		env.AdminDo("POST", "/admin/v1/clock/advance", map[string]any{"seconds": 100 * 86400}).Expect(t, 200)
		env.Settle(t)
		c.Get("/v1/events/"+old.id).Expect(t, 200)
		// Past a year for the first event only.
		env.AdminDo("POST", "/admin/v1/clock/advance", map[string]any{"seconds": 70 * 86400}).Expect(t, 200)
		paydtest.Eventually(t, "an event older than a year to be removed", func() bool {
			return c.Get("/v1/events/"+old.id).Status == 404
		})
		c.Get("/v1/events/"+young.id).Expect(t, 200)
	})
}
