package api_test

import (
	"encoding/json"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestUnknownMembersRefused: a member the operation does not define is 400
// invalid_request naming it, with the closest known member suggested, and
// changes nothing. A typo must not silently make a one-stage payment, and a
// case variant beside the member must not be charged by one reading while
// a case-insensitive parser on the way reads the other.
func TestUnknownMembersRefused(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		_, _, c := startM5(t, b, nil)
		const pay = `"amount":{"value":"100.00","currency":"RUB"},"order_id":"unknown-1","confirmation":{"type":"redirect"}`
		const dest = `"destination":{"type":"card","card_token":"tok_sandbox_4242"}`
		tests := []struct {
			name, path, body, param, desc string
		}{
			{"ErrTypo", "/v1/payments", `{` + pay + `,"captur":false}`, "captur", "unknown field captur; did you mean capture?"},
			{"ErrCaseVariantBeside", "/v1/payments", `{` + pay + `,"Amount":{"value":"1.00","currency":"RUB"}}`, "Amount", "unknown field Amount; did you mean amount?"},
			{"ErrNested", "/v1/payments", `{"amount":{"value":"100.00","currency":"RUB"},"order_id":"unknown-2","confirmation":{"type":"redirect","retrun_url":"https://shop.example.com/"}}`,
				"confirmation.retrun_url", "unknown field confirmation.retrun_url; did you mean confirmation.return_url?"},
			{"ErrNothingClose", "/v1/payments", `{` + pay + `,"loyalty_points":5}`, "loyalty_points", "unknown field loyalty_points"},
			{"ErrPayoutDestinationVariant", "/v1/payouts", `{"amount":{"value":"10.00","currency":"RUB"},` + dest + `,"Destination":{"type":"card","card_token":"tok_other"}}`,
				"Destination", "unknown field Destination; did you mean destination?"},
			{"ErrRefund", "/v1/refunds", `{"payment_id":"pay_00000000000000000000000000","amount":{"value":"1.00","currency":"RUB"},"reasn":"x"}`, "reasn", "unknown field reasn; did you mean reason?"},
			{"ErrBodyOfCancel", "/v1/payments/pay_00000000000000000000000000/cancel", `{"reason":"x"}`, "reason", "unknown field reason"},
			{"ErrMetadataNull", "/v1/payments", `{` + pay + `,"metadata":{"a":"1","k":null}}`, "metadata.k", "metadata.k must be a string: metadata holds string values only"},
			{"ErrMetadataNumber", "/v1/payments", `{` + pay + `,"metadata":{"k":1}}`, "metadata.k", "metadata.k must be a string: metadata holds string values only"},
		}
		for i, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := c.Do("POST", tt.path, tt.body, "Idempotency-Key", "unknown-member-"+string(rune('a'+i))+"-key")
				r.ExpectError(t, 400, payd.CodeInvalidRequest, tt.param)
				var e struct {
					Description string `json:"description"`
				}
				json.Unmarshal(r.Body, &e)
				if e.Description != tt.desc {
					t.Errorf("description %q, want %q", e.Description, tt.desc)
				}
			})
		}
		for _, path := range []string{"/v1/payments", "/v1/payouts", "/v1/refunds"} {
			if items := c.Get(path).Expect(t, 200).JSON(t)["items"].([]any); len(items) != 0 {
				t.Errorf("refused bodies left %d items in %s", len(items), path)
			}
		}
		// Read-only members keep their own message; metadata stays
		// free-form, and what it holds comes back unchanged.
		c.Post("/v1/payments", key(), newPayment("100.00", map[string]any{"statement_descriptor": "MINE"})).
			ExpectError(t, 400, payd.CodeInvalidRequest, "statement_descriptor")
		meta := map[string]any{"any-key": "", "другой": "значение"}
		p := c.Post("/v1/payments", key(), newPayment("100.00", map[string]any{"metadata": meta})).Expect(t, 201).JSON(t)
		got, _ := json.Marshal(p["metadata"])
		want, _ := json.Marshal(meta)
		if string(got) != string(want) {
			t.Errorf("metadata %s, want %s unchanged", got, want)
		}
	})
}
