package api

import (
	"encoding/json"
	"testing"

	"github.com/paydhq/payd/internal/httpapi"
)

// BenchmarkDecodePaymentCreate measures the request decoder on a typical
// payment creation body, beside the standard library's decoder that read
// bodies before (case-insensitive, last duplicate wins).
func BenchmarkDecodePaymentCreate(b *testing.B) {
	body := []byte(`{"amount":{"value":"1500.00","currency":"RUB"},"order_id":"order-10482",` +
		`"description":"Two books and a bookmark","capture":true,"confirmation":{"type":"redirect",` +
		`"return_url":"https://shop.example.com/orders/10482","locale":"ru"},"customer":{"email":"reader@example.com"},` +
		`"expires_at":"2030-01-31T12:00:00Z","metadata":{"cart":"c-77","channel":"web"}}`)
	b.Run("strict", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var in paymentCreateIn
			if err := httpapi.Decode(body, &in, "statement_descriptor", "merchant_display_name"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stdlib-v1", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var in paymentCreateIn
			if err := json.Unmarshal(body, &in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
