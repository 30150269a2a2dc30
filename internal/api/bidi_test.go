package api_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestBidiControlsRefused: every free text a merchant sends, which payer
// pages, the dashboard or an operator show, refuses the bidirectional text
// controls with 400 invalid_request naming the field; the same request
// with right-to-left letters instead is not refused for that field.
func TestBidiControlsRefused(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		_, _, c := startM5(t, b, nil)
		pay := paidPayment(t, c, "1000.00")
		dispute := openDispute(t, c, pay, map[string]any{"amount": rub("100.00")})["id"].(string)
		file, link := reserve(t, c, dispute, "a.pdf", "application/pdf", 16)
		put(t, link, fileOf(pdfHead, 16), "application/pdf", false).Expect(t, 200)

		// Each case builds its request around one text; ok is the status of
		// the request with a text that is fine.
		cases := []struct {
			name, path, param string
			body              func(text string) map[string]any
			ok                int
		}{
			{"PaymentOrderID", "/v1/payments", "order_id", func(s string) map[string]any {
				return newPayment("10.00", map[string]any{"order_id": s + key()})
			}, 201},
			{"PaymentDescription", "/v1/payments", "description", func(s string) map[string]any {
				return newPayment("10.00", map[string]any{"description": s})
			}, 201},
			{"PaymentCustomerName", "/v1/payments", "customer.full_name", func(s string) map[string]any {
				return newPayment("10.00", map[string]any{"customer": map[string]any{"full_name": s, "email": "payer@example.com"}})
			}, 201},
			{"PaymentMetadataValue", "/v1/payments", "metadata", func(s string) map[string]any {
				return newPayment("10.00", map[string]any{"metadata": map[string]any{"note": s}})
			}, 201},
			{"PaymentMetadataKey", "/v1/payments", "metadata", func(s string) map[string]any {
				return newPayment("10.00", map[string]any{"metadata": map[string]any{s: "x"}})
			}, 201},
			{"RefundReason", "/v1/refunds", "reason", func(s string) map[string]any {
				return map[string]any{"payment_id": pay, "amount": rub("1.00"), "reason": s}
			}, 201},
			{"LinkDescription", "/v1/payment-links", "description", func(s string) map[string]any {
				return newLink(map[string]any{"description": s})
			}, 201},
			{"LinkOrderID", "/v1/payment-links", "order_id", func(s string) map[string]any {
				return newLink(map[string]any{"order_id": s})
			}, 201},
			{"PayoutDescription", "/v1/payouts", "description", func(s string) map[string]any {
				return cardPayout("10.00", map[string]any{"description": s})
			}, 0},
			{"PayoutOrderID", "/v1/payouts", "order_id", func(s string) map[string]any {
				return cardPayout("10.00", map[string]any{"order_id": s})
			}, 0},
			{"WebhookDescription", "/v1/webhook-endpoints", "description", func(s string) map[string]any {
				body := endpointBody("https://example.com/hook")
				body["description"] = s
				return body
			}, 201},
			{"EvidenceFileName", "/v1/disputes/" + dispute + "/evidence/uploads", "file_name", func(s string) map[string]any {
				return map[string]any{"file_name": s + ".pdf", "content_type": "application/pdf", "size_bytes": 16}
			}, 201},
			{"EvidenceComment", "/v1/disputes/" + dispute + "/evidence", "comment", func(s string) map[string]any {
				return map[string]any{"file_ids": []string{file}, "comment": s}
			}, 200},
		}
		controls := []rune{0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				for _, r := range controls {
					text := "12" + string(r) + "43"
					res := c.Post(tc.path, key(), tc.body(text))
					if res.Status != 400 || res.ErrorCode() != string(payd.CodeInvalidRequest) || res.ErrorParam() != tc.param {
						t.Errorf("%s with U+%04X: %d %s %q, want 400 invalid_request %q\n%s",
							tc.param, r, res.Status, res.ErrorCode(), res.ErrorParam(), tc.param, res.Body)
					}
				}
				// Right-to-left letters are text like any other.
				res := c.Post(tc.path, key(), tc.body("חשבון-"+fmt.Sprint(len(tc.name))))
				switch {
				case tc.ok != 0 && res.Status != tc.ok:
					t.Errorf("%s with Hebrew letters: %d, want %d\n%s", tc.param, res.Status, tc.ok, res.Body)
				case res.Status == 400 && strings.HasPrefix(res.ErrorParam(), tc.param):
					t.Errorf("%s with Hebrew letters refused\n%s", tc.param, res.Body)
				}
			})
		}
	})
}
