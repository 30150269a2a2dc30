package operator_test

import (
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestPaymentEvents: an operator lists a payment's events, newest first,
// with their delivery summaries, only that payment's; an unknown payment
// is not_found.
func TestPaymentEvents(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		pay := func(order string) string {
			p := c.Post("/v1/payments", "payment-"+order, map[string]any{"amount": map[string]any{"value": "100.00", "currency": "RUB"},
				"order_id": order, "confirmation": map[string]any{"type": "qr"}}).Expect(t, 201).JSON(t)
			id := p["id"].(string)
			c.Post("/v1/test/payments/"+id+"/simulate", "simulate-"+order, map[string]any{"outcome": "succeed"}).Expect(t, 202)
			c.WaitStatus(id, "succeeded")
			return id
		}
		id, other := pay("one"), pay("two")
		items := env.AdminDo("GET", "/admin/v1/payments/"+id+"/events", nil).Expect(t, 200).JSON(t)["items"].([]any)
		if len(items) == 0 {
			t.Fatal("no events of a paid payment")
		}
		var types []string
		for _, it := range items {
			e := it.(map[string]any)
			types = append(types, e["type"].(string))
			if e["object"] != "event" || e["delivery"] == nil {
				t.Errorf("event %v: want object event with its delivery summary", e)
			}
		}
		if types[0] != string(payd.EventPaymentSucceeded) {
			t.Errorf("events %v: want payment.succeeded first, the newest", types)
		}
		for _, it := range env.AdminDo("GET", "/admin/v1/payments/"+other+"/events", nil).Expect(t, 200).JSON(t)["items"].([]any) {
			for _, mine := range items {
				if it.(map[string]any)["id"] == mine.(map[string]any)["id"] {
					t.Errorf("event %v of one payment listed with another's", it)
				}
			}
		}
		env.AdminDo("GET", "/admin/v1/payments/pay_00000000000000000000000000/events", nil).ExpectError(t, 404, payd.CodeNotFound, "")
	})
}
