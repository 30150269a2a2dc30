package api_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// merchantBodies are the JSON bodies of the merchant API (/v1 and /v1/test,
// with stage M2's dispute bodies) by their operation in the OpenAPI
// document. Bodies whose Top is optional go to resources that do not
// exist, so that their examples change nothing.
func merchantBodies() map[string]paydtest.Body {
	const pay = "pay_00000000000000000000000000"
	const dsp = "dsp_00000000000000000000000000"
	return map[string]paydtest.Body{
		"POST /v1/payments": {
			Path: "/v1/payments",
			Base: `{"amount":{"value":"100.00","currency":"RUB"},"order_id":"o-1","description":"d","capture":true,` +
				`"payment_method":{"type":"bank_card"},"confirmation":{"type":"redirect","return_url":"https://shop.example.com/r","locale":"ru"},` +
				`"customer":{"email":"a@example.com","phone":"+70000000000","full_name":"A B","tax_id":"1","ip":"1.2.3.4"},` +
				`"expires_at":"2030-01-31T12:00:00Z","metadata":{"a":"1"},"client_ip":"1.2.3.4"}`,
			Top: "amount", Deep: "amount.value", Str: "order_id",
		},
		"POST /v1/payments/{payment_id}/capture": {
			Path: "/v1/payments/" + pay + "/capture",
			Base: `{"amount":{"value":"100.00","currency":"RUB"}}`,
			Top:  "amount", Deep: "amount.currency", Str: "amount.value",
		},
		"POST /v1/refunds": {
			Path: "/v1/refunds",
			Base: `{"payment_id":"` + pay + `","amount":{"value":"1.00","currency":"RUB"},"reason":"r","metadata":{"a":"1"}}`,
			Top:  "payment_id", Deep: "metadata.a", Str: "reason",
		},
		"POST /v1/payouts": {
			Path: "/v1/payouts",
			Base: `{"amount":{"value":"10.00","currency":"RUB"},"destination":{"type":"sbp","phone":"+79001234567","bank_id":"100000000111"},` +
				`"description":"d","order_id":"o-1","metadata":{"a":"1"}}`,
			Top: "amount", Deep: "destination.phone", Str: "description",
		},
		"POST /v1/payment-links": {
			Path: "/v1/payment-links",
			Base: `{"description":"d","amount":{"value":"10.00","currency":"RUB"},"min_amount":{"value":"1.00","currency":"RUB"},` +
				`"max_amount":{"value":"100.00","currency":"RUB"},"order_id":"o-1","capture":true,"reusable":false,` +
				`"expires_at":"2030-01-31T12:00:00Z","return_url":"https://shop.example.com/r",` +
				`"customer":{"email":"a@example.com","phone":"+70000000000","full_name":"A B","tax_id":"1","ip":"1.2.3.4"},"metadata":{"a":"1"}}`,
			Top: "description", Deep: "amount.value", Str: "order_id",
		},
		"POST /v1/webhook-endpoints": {
			Path: "/v1/webhook-endpoints",
			Base: `{"url":"https://hooks.example.com/h","events":["payment.succeeded"],"description":"d"}`,
			Top:  "url", Str: "description",
		},
		"PATCH /v1/webhook-endpoints/{endpoint_id}": {
			Path: "/v1/webhook-endpoints/whe_00000000000000000000000000",
			Base: `{"url":"https://hooks.example.com/h","events":["payment.succeeded"],"status":"active","rotate_secret":false,"description":"d"}`,
			Top:  "url", Str: "description",
		},
		"POST /v1/disputes/{dispute_id}/evidence/uploads": {
			Path: "/v1/disputes/" + dsp + "/evidence/uploads",
			Base: `{"file_name":"receipt.pdf","content_type":"application/pdf","size_bytes":1024}`,
			Top:  "file_name", Str: "file_name",
		},
		"POST /v1/disputes/{dispute_id}/evidence": {
			Path: "/v1/disputes/" + dsp + "/evidence",
			Base: `{"file_ids":["evd_00000000000000000000000000"],"comment":"c"}`,
			Top:  "file_ids", Str: "comment",
		},
		"POST /v1/test/payments/{payment_id}/disputes": {
			Path: "/v1/test/payments/" + pay + "/disputes",
			Base: `{"kind":"chargeback","amount":{"value":"1.00","currency":"RUB"},"reason_code":"4837",` +
				`"evidence_deadline_seconds":3600,"bank_fine_amount":{"value":"1.00","currency":"RUB"},"service_fee_amount":{"value":"1.00","currency":"RUB"}}`,
			Top: "amount", Deep: "service_fee_amount.value", Str: "reason_code",
		},
		"POST /v1/test/disputes/{dispute_id}/simulate": {
			Path: "/v1/test/disputes/" + dsp + "/simulate",
			Base: `{"outcome":"won","delay_seconds":0}`,
			Top:  "outcome", Str: "outcome",
		},
		"POST /v1/test/payments/{payment_id}/simulate": {
			Path: "/v1/test/payments/" + pay + "/simulate",
			Base: `{"outcome":"succeed","delay_seconds":0}`,
			Top:  "outcome", Str: "outcome",
		},
	}
}

// TestEveryBodyHasOneReading sends every JSON body of the merchant API (at
// stage M5, with the bodies of every stage) through paydtest.CheckOneReading: each
// field given each wrong JSON type, duplicate member names at the top, at
// depth and inside an unknown member, a name differing only in case, lone
// surrogate escapes in values and names. Each is 400 invalid_request naming
// the member with a description free of the decoder's text, and none
// changes anything. The operator API's bodies are swept the same way in
// internal/operator/onereading_test.go.
func TestEveryBodyHasOneReading(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		// Stage M5 serves the bodies of every stage; v1's are unchanged there.
		env := paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM5})
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false) // the test key: every body, simulate included
		n := 0
		send := func(rb paydtest.Body, body string) *paydtest.Response {
			n++
			return c.Do(rb.Method, rb.Path, body, "Idempotency-Key", fmt.Sprintf("one-reading-%06d", n))
		}
		bodies := merchantBodies()
		checkEveryBodySwept(t, env, bodies)
		for op, rb := range bodies {
			rb.Name, rb.Method = op, op[:strings.Index(op, " ")]
			t.Run(rb.Name, func(t *testing.T) {
				paydtest.CheckOneReading(t, rb, func(body string) *paydtest.Response { return send(rb, body) })
			})
		}
		for _, tc := range []struct{ name, body, param string }{
			{"duplicate amount object", `{"amount":{"value":"100.00","currency":"RUB"},"amount":{"value":"1.00","currency":"RUB"},"order_id":"o","confirmation":{"type":"redirect"}}`, "amount"},
			{"duplicate metadata key", `{"amount":{"value":"100.00","currency":"RUB"},"order_id":"o","confirmation":{"type":"redirect"},"metadata":{"a":"1","a":"2"}}`, "metadata.a"},
			{"duplicate inside an unknown member", `{"amount":{"value":"100.00","currency":"RUB"},"order_id":"o","confirmation":{"type":"redirect"},"extra":{"k":[{"x":1,"x":2}]}}`, "extra"},
			{"read-only field in another case", `{"amount":{"value":"100.00","currency":"RUB"},"order_id":"o","confirmation":{"type":"redirect"},"Statement_Descriptor":"MINE"}`, "statement_descriptor"},
			{"read-only display name in capitals", `{"amount":{"value":"100.00","currency":"RUB"},"order_id":"o","confirmation":{"type":"redirect"},"MERCHANT_DISPLAY_NAME":"Mine"}`, "merchant_display_name"},
			{"invalid UTF-8", "{\"amount\":{\"value\":\"100.00\",\"currency\":\"RUB\"},\"order_id\":\"c4\xffx\",\"confirmation\":{\"type\":\"redirect\"}}", "order_id"},
			{"lone low surrogate in metadata", `{"amount":{"value":"100.00","currency":"RUB"},"order_id":"o","confirmation":{"type":"redirect"},"metadata":{"a":"\udc00"}}`, "metadata.a"},
			{"names differ only in case", `{"AMOUNT":{"value":"100.00","currency":"RUB"},"Order_Id":"o","confirmation":{"type":"redirect"}}`, "AMOUNT"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				paydtest.ExpectRefusal(t, send(paydtest.Body{Method: "POST", Path: "/v1/payments"}, tc.body), tc.param)
			})
		}
		// A correct surrogate pair is a character, not a fault.
		ok := send(paydtest.Body{Method: "POST", Path: "/v1/payments"},
			`{"amount":{"value":"100.00","currency":"RUB"},"order_id":"pair-\ud83d\ude00","confirmation":{"type":"redirect"}}`).Expect(t, 201).JSON(t)
		if ok["order_id"] != "pair-😀" {
			t.Errorf("order_id %q, want pair-😀", ok["order_id"])
		}
		// Nothing refused left a payment, refund or endpoint behind.
		for _, path := range []string{"/v1/payments", "/v1/refunds", "/v1/webhook-endpoints", "/v1/payouts", "/v1/payment-links"} {
			items := c.Get(path).Expect(t, 200).JSON(t)["items"].([]any)
			want := 0
			if path == "/v1/payments" {
				want = 1
			}
			if len(items) != want {
				t.Errorf("%s holds %d items after refused requests, want %d", path, len(items), want)
			}
		}
	})
}

// checkEveryBodySwept holds the sweep to the served OpenAPI document: every
// operation with a request body is in bodies, or is declared ahead of its
// stage and answers 501 (its body is swept once it is served), and every
// operation in bodies is in the document.
func checkEveryBodySwept(t *testing.T, env *paydtest.Env, bodies map[string]paydtest.Body) {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	env.Do("GET", env.API.URL, "/v1/openapi.json", nil, nil).Expect(t, 200).Decode(t, &doc)
	withBody := map[string]bool{}
	for path, ops := range doc.Paths {
		for method, raw := range ops {
			var op struct {
				RequestBody json.RawMessage `json:"requestBody"`
			}
			if json.Unmarshal(raw, &op) != nil || op.RequestBody == nil {
				continue
			}
			withBody[strings.ToUpper(method)+" /v1"+path] = true
		}
	}
	// A path of each operation, with an id of the right kind that names
	// nothing.
	fill := strings.NewReplacer("{payment_id}", "pay_00000000000000000000000000", "{dispute_id}", "dsp_00000000000000000000000000",
		"{endpoint_id}", "whe_00000000000000000000000000", "{link_id}", "pl_00000000000000000000000000",
		"{payout_id}", "po_00000000000000000000000000", "{refund_id}", "rf_00000000000000000000000000", "{event_id}", "evt_00000000000000000000000000")
	c := env.As(env.NewShop(payd.RegionRU, ""), false)
	for op := range withBody {
		if _, ok := bodies[op]; ok {
			continue
		}
		method, path, _ := strings.Cut(op, " ")
		r := c.Do(method, fill.Replace(path), `{}`, "Idempotency-Key", "sweep-probe-"+strings.ReplaceAll(path, "/", "-"))
		if r.Status != 501 || r.ErrorCode() != string(payd.CodeNotImplemented) {
			t.Errorf("%s takes a body and is served (%d %s), but merchantBodies does not sweep it", op, r.Status, r.ErrorCode())
		}
	}
	for op := range bodies {
		if !withBody[op] {
			t.Errorf("merchantBodies sweeps %s, which the OpenAPI document does not give a body", op)
		}
	}
	if len(withBody) == 0 {
		t.Fatal("the OpenAPI document lists no operation with a body")
	}
}
