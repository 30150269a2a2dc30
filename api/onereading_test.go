package api_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/paydtest"
)

// jsonKind is what a request field accepts; wrongValues lists JSON values
// of every other kind (and, for date-times, strings that are no instant).
type jsonKind int

const (
	kString jsonKind = iota
	kInt
	kBool
	kObject
	kArray
	kTime
)

func wrongValues(k jsonKind) []string {
	all := map[jsonKind][]string{
		kString: {`1`, `true`, `{}`, `[]`},
		kInt:    {`"1"`, `true`, `{}`, `[]`, `1.5`, `1e40`},
		kBool:   {`"true"`, `1`, `{}`, `[]`},
		kObject: {`"x"`, `1`, `true`, `[]`},
		kArray:  {`"x"`, `1`, `true`, `{}`},
		kTime:   {`12345`, `"tomorrow"`, `"2030-02-30T00:00:00Z"`, `true`, `{}`},
	}
	return all[k]
}

// requestBody is one JSON body of the API: a valid example and the type of
// each of its fields by dotted path.
type requestBody struct {
	name, method, path string
	base               string
	fields             map[string]jsonKind
	deep               string // a dotted path of a nested member to duplicate
	str                string // a dotted path of a string member
	required           string // a required top-level member
}

func merchantBodies() []requestBody {
	const pay = "pay_00000000000000000000000000"
	const dsp = "dsp_00000000000000000000000000"
	return []requestBody{
		{
			name: "payment create", method: "POST", path: "/v1/payments",
			base: `{"amount":{"value":"100.00","currency":"RUB"},"order_id":"o-1","description":"d","capture":true,` +
				`"payment_method":{"type":"bank_card"},"confirmation":{"type":"redirect","return_url":"https://shop.example.com/r","locale":"ru"},` +
				`"customer":{"email":"a@example.com","phone":"+70000000000","full_name":"A B","tax_id":"1","ip":"1.2.3.4"},` +
				`"expires_at":"2030-01-31T12:00:00Z","metadata":{"a":"1"},"client_ip":"1.2.3.4"}`,
			fields: map[string]jsonKind{
				"amount": kObject, "amount.value": kString, "amount.currency": kString, "order_id": kString,
				"description": kString, "capture": kBool, "payment_method": kObject, "payment_method.type": kString,
				"confirmation": kObject, "confirmation.type": kString, "confirmation.return_url": kString,
				"confirmation.locale": kString, "customer": kObject, "customer.email": kString, "customer.phone": kString,
				"customer.full_name": kString, "customer.tax_id": kString, "customer.ip": kString,
				"expires_at": kTime, "metadata": kObject, "metadata.a": kString, "client_ip": kString,
			},
			deep: "amount.value", str: "order_id", required: "amount",
		},
		{
			name: "capture", method: "POST", path: "/v1/payments/" + pay + "/capture",
			base:   `{"amount":{"value":"100.00","currency":"RUB"}}`,
			fields: map[string]jsonKind{"amount": kObject, "amount.value": kString, "amount.currency": kString},
			deep:   "amount.currency", str: "amount.value",
		},
		{
			name: "refund create", method: "POST", path: "/v1/refunds",
			base: `{"payment_id":"` + pay + `","amount":{"value":"1.00","currency":"RUB"},"reason":"r","metadata":{"a":"1"}}`,
			fields: map[string]jsonKind{
				"payment_id": kString, "amount": kObject, "amount.value": kString, "amount.currency": kString,
				"reason": kString, "metadata": kObject, "metadata.a": kString,
			},
			deep: "metadata.a", str: "reason", required: "payment_id",
		},
		{
			name: "payout create", method: "POST", path: "/v1/payouts",
			base: `{"amount":{"value":"10.00","currency":"RUB"},"destination":{"type":"sbp","phone":"+79001234567","bank_id":"100000000111"},` +
				`"description":"d","order_id":"o-1","metadata":{"a":"1"}}`,
			fields: map[string]jsonKind{
				"amount": kObject, "amount.value": kString, "amount.currency": kString, "destination": kObject,
				"destination.type": kString, "destination.phone": kString, "destination.bank_id": kString,
				"description": kString, "order_id": kString, "metadata": kObject, "metadata.a": kString,
			},
			deep: "destination.phone", str: "description", required: "amount",
		},
		{
			name: "webhook endpoint create", method: "POST", path: "/v1/webhook-endpoints",
			base:   `{"url":"https://hooks.example.com/h","events":["payment.succeeded"],"description":"d"}`,
			fields: map[string]jsonKind{"url": kString, "events": kArray, "events.0": kString, "description": kString},
			str:    "description", required: "url",
		},
		{
			name: "webhook endpoint patch", method: "PATCH", path: "/v1/webhook-endpoints/whe_00000000000000000000000000",
			base: `{"url":"https://hooks.example.com/h","events":["payment.succeeded"],"status":"active","rotate_secret":false,"description":"d"}`,
			fields: map[string]jsonKind{
				"url": kString, "events": kArray, "events.0": kString, "status": kString,
				"rotate_secret": kBool, "description": kString,
			},
			str: "description",
		},
		{
			name: "evidence upload", method: "POST", path: "/v1/disputes/" + dsp + "/evidence/uploads",
			base:   `{"file_name":"receipt.pdf","content_type":"application/pdf","size_bytes":1024}`,
			fields: map[string]jsonKind{"file_name": kString, "content_type": kString, "size_bytes": kInt},
			str:    "file_name", required: "file_name",
		},
		{
			name: "evidence attach", method: "POST", path: "/v1/disputes/" + dsp + "/evidence",
			base:   `{"file_ids":["evd_00000000000000000000000000"],"comment":"c"}`,
			fields: map[string]jsonKind{"file_ids": kArray, "file_ids.0": kString, "comment": kString},
			str:    "comment", required: "file_ids",
		},
		{
			name: "sandbox dispute", method: "POST", path: "/v1/test/payments/" + pay + "/disputes",
			base: `{"kind":"chargeback","amount":{"value":"1.00","currency":"RUB"},"reason_code":"4837",` +
				`"evidence_deadline_seconds":3600,"bank_fine_amount":{"value":"1.00","currency":"RUB"},"service_fee_amount":{"value":"1.00","currency":"RUB"}}`,
			fields: map[string]jsonKind{
				"kind": kString, "amount": kObject, "amount.value": kString, "amount.currency": kString, "reason_code": kString,
				"evidence_deadline_seconds": kInt, "bank_fine_amount": kObject, "bank_fine_amount.value": kString,
				"service_fee_amount": kObject, "service_fee_amount.currency": kString,
			},
			deep: "amount.value", str: "reason_code",
		},
		{
			name: "dispute simulate", method: "POST", path: "/v1/test/disputes/" + dsp + "/simulate",
			base:   `{"outcome":"won","delay_seconds":0}`,
			fields: map[string]jsonKind{"outcome": kString, "delay_seconds": kInt},
			str:    "outcome", required: "outcome",
		},
		{
			name: "simulate", method: "POST", path: "/v1/test/payments/" + pay + "/simulate",
			base:   `{"outcome":"succeed","delay_seconds":0}`,
			fields: map[string]jsonKind{"outcome": kString, "delay_seconds": kInt},
			str:    "outcome", required: "outcome",
		},
	}
}

// setPath returns body with the member at dotted path replaced by raw.
func setPath(t *testing.T, body, path, raw string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(path, ".")
	cur := v
	for i, p := range parts {
		last := i == len(parts)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[p] = json.RawMessage(raw)
			}
			cur = c[p]
		case []any:
			var n int
			fmt.Sscan(p, &n)
			if last {
				c[n] = json.RawMessage(raw)
			}
			cur = c[n]
		default:
			t.Fatalf("no member %s in %s", path, body)
		}
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// duplicate returns body with the member at dotted path given twice, the
// second time with other, e.g. {"amount":{"value":"1.00","value":"100.00"}}.
func duplicate(t *testing.T, body, path, other string) string {
	t.Helper()
	marked := setPath(t, body, path, `"@@DUP@@"`)
	name := path[strings.LastIndex(path, ".")+1:]
	orig := valueAt(t, body, path)
	return strings.Replace(marked, `"`+name+`":"@@DUP@@"`, `"`+name+`":`+orig+`,"`+name+`":`+other, 1)
}

func valueAt(t *testing.T, body, path string) string {
	t.Helper()
	var v any
	json.Unmarshal([]byte(body), &v)
	for _, p := range strings.Split(path, ".") {
		v = v.(map[string]any)[p]
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestEveryBodyHasOneReading sends every JSON body of the merchant API (at
// stage M5, with the dispute and payout bodies) with
// each field given each wrong JSON type, with duplicate member names at the
// top and at depth, with a name differing only in case, and with a lone
// surrogate escape: each is 400 invalid_request naming the member, and none
// changes anything.
func TestEveryBodyHasOneReading(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		// Stage M5 serves the dispute and payout bodies too; v1's are
		// unchanged there.
		env := paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM5})
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false) // the test key: every body, simulate included
		n := 0
		send := func(rb requestBody, body string) *paydtest.Response {
			n++
			return c.Do(rb.method, rb.path, body, "Idempotency-Key", fmt.Sprintf("one-reading-%06d", n))
		}
		for _, rb := range merchantBodies() {
			t.Run(rb.name, func(t *testing.T) {
				for field, kind := range rb.fields {
					for _, wrong := range wrongValues(kind) {
						body := setPath(t, rb.base, field, wrong)
						send(rb, body).ExpectError(t, 400, payd.CodeInvalidRequest, field)
					}
				}
				top := rb.required
				if top == "" {
					top = rb.str
				}
				if !strings.Contains(top, ".") {
					send(rb, duplicate(t, rb.base, top, valueAt(t, rb.base, top))).ExpectError(t, 400, payd.CodeInvalidRequest, top)
				}
				if rb.deep != "" {
					send(rb, duplicate(t, rb.base, rb.deep, `"x"`)).ExpectError(t, 400, payd.CodeInvalidRequest, rb.deep)
				}
				lone := strings.Replace(setPath(t, rb.base, rb.str, `"c4@@"`), "@@", `\ud800x`, 1)
				send(rb, lone).ExpectError(t, 400, payd.CodeInvalidRequest, rb.str)
				if rb.required != "" {
					upper := strings.Replace(rb.base, `"`+rb.required+`":`, `"`+strings.ToUpper(rb.required)+`":`, 1)
					send(rb, upper).ExpectError(t, 400, payd.CodeInvalidRequest, rb.required)
				}
			})
		}
		for _, tc := range []struct{ name, body, param string }{
			{"duplicate amount object", `{"amount":{"value":"100.00","currency":"RUB"},"amount":{"value":"1.00","currency":"RUB"},"order_id":"o","confirmation":{"type":"redirect"}}`, "amount"},
			{"duplicate metadata key", `{"amount":{"value":"100.00","currency":"RUB"},"order_id":"o","confirmation":{"type":"redirect"},"metadata":{"a":"1","a":"2"}}`, "metadata.a"},
			{"duplicate inside an unknown member", `{"amount":{"value":"100.00","currency":"RUB"},"order_id":"o","confirmation":{"type":"redirect"},"extra":{"k":[{"x":1,"x":2}]}}`, "extra.k.0.x"},
			{"read-only field in another case", `{"amount":{"value":"100.00","currency":"RUB"},"order_id":"o","confirmation":{"type":"redirect"},"Statement_Descriptor":"MINE"}`, "statement_descriptor"},
			{"read-only display name in capitals", `{"amount":{"value":"100.00","currency":"RUB"},"order_id":"o","confirmation":{"type":"redirect"},"MERCHANT_DISPLAY_NAME":"Mine"}`, "merchant_display_name"},
			{"invalid UTF-8", "{\"amount\":{\"value\":\"100.00\",\"currency\":\"RUB\"},\"order_id\":\"c4\xffx\",\"confirmation\":{\"type\":\"redirect\"}}", "order_id"},
			{"lone low surrogate in metadata", `{"amount":{"value":"100.00","currency":"RUB"},"order_id":"o","confirmation":{"type":"redirect"},"metadata":{"a":"\udc00"}}`, "metadata.a"},
			{"names differ only in case", `{"AMOUNT":{"value":"100.00","currency":"RUB"},"Order_Id":"o","confirmation":{"type":"redirect"}}`, "amount"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				send(requestBody{method: "POST", path: "/v1/payments"}, tc.body).ExpectError(t, 400, payd.CodeInvalidRequest, tc.param)
			})
		}
		// A correct surrogate pair is a character, not a fault.
		ok := send(requestBody{method: "POST", path: "/v1/payments"},
			`{"amount":{"value":"100.00","currency":"RUB"},"order_id":"pair-\ud83d\ude00","confirmation":{"type":"redirect"}}`).Expect(t, 201).JSON(t)
		if ok["order_id"] != "pair-😀" {
			t.Errorf("order_id %q, want pair-😀", ok["order_id"])
		}
		// Nothing refused left a payment, refund or endpoint behind.
		for _, path := range []string{"/v1/payments", "/v1/refunds", "/v1/webhook-endpoints", "/v1/payouts"} {
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

// TestOperatorBodiesHaveOneReading: the operator API reads its bodies under
// the same rules, and its settings patch refuses names in another case as
// unknown rather than reading them as the setting.
func TestOperatorBodiesHaveOneReading(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	shop := env.NewShop(payd.RegionRU, "")
	for _, tc := range []struct{ name, method, path, body, param string }{
		{"duplicate merchant name", "POST", "/admin/v1/merchants", `{"name":"A","name":"B"}`, "name"},
		{"lone surrogate in a merchant name", "POST", "/admin/v1/merchants", `{"name":"A\ud800"}`, "name"},
		{"duplicate setting", "PATCH", "/admin/v1/shops/" + shop.ID, `{"display_name":"A","display_name":"B"}`, "display_name"},
		{"setting in another case", "PATCH", "/admin/v1/shops/" + shop.ID, `{"Authorize_Request_Webhook":true}`, "Authorize_Request_Webhook"},
		{"setting of the wrong type", "PATCH", "/admin/v1/shops/" + shop.ID, `{"authorize_request_webhook":"yes"}`, "authorize_request_webhook"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env.AdminDo(tc.method, tc.path, tc.body).ExpectError(t, 400, payd.CodeInvalidRequest, tc.param)
		})
	}
	var got struct {
		Capabilities struct {
			AuthorizeRequestWebhook bool `json:"authorize_request_webhook"`
		} `json:"capabilities"`
	}
	env.As(shop, false).Get("/v1/shop").Expect(t, 200).Decode(t, &got)
	if got.Capabilities.AuthorizeRequestWebhook {
		t.Error("a refused settings patch changed the shop")
	}
}
