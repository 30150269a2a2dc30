package api_test

import (
	"strconv"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestEventFeed: GET /v1/test/events answers test keys only (403 for a
// live key, as every test endpoint), refuses a bad after_sequence or limit
// naming the parameter, lists a new event after the position read before
// it, and a resend puts the same event again at a higher sequence.
func TestEventFeed(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
		env.As(shop, true).Get("/v1/test/events").ExpectError(t, 403, payd.CodeForbidden, "")
		c.Get("/v1/test/events?after_sequence=-1").ExpectError(t, 400, payd.CodeInvalidRequest, "after_sequence")
		c.Get("/v1/test/events?limit=0").ExpectError(t, 400, payd.CodeInvalidRequest, "limit")

		start := c.Get("/v1/test/events").Expect(t, 200).JSON(t)["last_sequence"].(float64)
		pay := paidQR(t, c)
		var ev map[string]any
		paydtest.Eventually(t, "the payment's event in the feed", func() bool {
			for _, it := range c.Get("/v1/test/events?after_sequence="+ftoa(start)).Expect(t, 200).JSON(t)["items"].([]any) {
				if m := it.(map[string]any); m["type"] == "payment.succeeded" {
					ev = m
					return true
				}
			}
			return false
		})
		if ev["sequence"].(float64) <= start {
			t.Fatalf("event sequence %v not after %v", ev["sequence"], start)
		}
		id := ev["id"].(string)
		if got := c.Get("/v1/events?object_id="+pay).Expect(t, 200).JSON(t)["items"].([]any); len(got) == 0 {
			t.Fatal("the payment's event is not in the events list")
		}
		c.Post("/v1/events/"+id+"/resend", key(), nil).Expect(t, 202)
		after := ftoa(ev["sequence"].(float64))
		paydtest.Eventually(t, "the resent event at a higher sequence", func() bool {
			for _, it := range c.Get("/v1/test/events?after_sequence="+after).Expect(t, 200).JSON(t)["items"].([]any) {
				if m := it.(map[string]any); m["id"] == id && m["sequence"].(float64) > ev["sequence"].(float64) {
					return true
				}
			}
			return false
		})
	})
}

func ftoa(f float64) string { return strconv.FormatInt(int64(f), 10) }
