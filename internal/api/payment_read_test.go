package api_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestPaymentGetAgreesWithList: GET /payments/{id} sends the payment's
// stored rendering; at each step of a payment's life (created, paid,
// partly refunded) it is the same object, byte for byte, as the payment's
// item in GET /payments, and it says where the payment now is. A stored
// rendering left behind by a change would show here as an old status or
// amount.
func TestPaymentGetAgreesWithList(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		created := c.Post("/v1/payments", key(), newPayment("300.00", map[string]any{"order_id": "agree-1",
			"confirmation": map[string]any{"type": "qr"}})).Expect(t, 201).JSON(t)
		id := created["id"].(string)
		check := func(step, status, refunded string) {
			t.Helper()
			got := bytes.TrimSuffix(c.Get("/v1/payments/"+id).Expect(t, 200).Body, []byte("\n"))
			var list struct{ Items []json.RawMessage }
			c.Get("/v1/payments?order_id=agree-1").Expect(t, 200).Decode(t, &list)
			if len(list.Items) != 1 || !bytes.Equal(list.Items[0], got) {
				t.Fatalf("%s: GET sent\n%s\nthe list %s", step, got, list.Items)
			}
			var p struct {
				Status         string
				RefundedAmount struct{ Value string } `json:"refunded_amount"`
			}
			if err := json.Unmarshal(got, &p); err != nil || p.Status != status || p.RefundedAmount.Value != refunded {
				t.Fatalf("%s: GET sent %s, want status %s and refunded %s", step, got, status, refunded)
			}
		}
		check("created", "pending", "0.00")
		c.Post("/v1/test/payments/"+id+"/simulate", key(), map[string]any{"outcome": "succeed"}).Expect(t, 202)
		c.WaitStatus(id, "succeeded")
		check("paid", "succeeded", "0.00")
		r := c.Post("/v1/refunds", key(), map[string]any{"payment_id": id, "amount": map[string]any{"value": "100.00", "currency": "RUB"}}).
			Expect(t, 201).JSON(t)
		paydtest.Eventually(t, "the refund", func() bool {
			return c.Get("/v1/refunds/"+r["id"].(string)).Expect(t, 200).JSON(t)["status"] == "succeeded"
		})
		check("refunded", "succeeded", "100.00")
	})
}
