package openapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paydhq/payd/openapi"
	"github.com/paydhq/payd/openapi/openapitest"
)

const (
	paymentID = "pay_01JABCDEFGHJKMNPQRSTVWXYZ0"
	refundID  = "rf_01JABCDEFGHJKMNPQRSTVWXYZ0"
	eventID   = "evt_01JABCDEFGHJKMNPQRSTVWXYZ0"
	disputeID = "dsp_01JABCDEFGHJKMNPQRSTVWXYZ0"
	webhookID = "whe_01JABCDEFGHJKMNPQRSTVWXYZ0"
	requestID = "req-7f3c2a"
)

func validPayment() map[string]any {
	return map[string]any{
		"id":                    paymentID,
		"status":                "succeeded",
		"amount":                map[string]any{"value": "1500.00", "currency": "RUB"},
		"order_id":              "order-42",
		"created_at":            "2026-03-01T10:00:00Z",
		"test":                  true,
		"paid":                  true,
		"refundable":            true,
		"captured_amount":       map[string]any{"value": "1500.00", "currency": "RUB"},
		"refunded_amount":       map[string]any{"value": "0.00", "currency": "RUB"},
		"refundable_amount":     map[string]any{"value": "1500.00", "currency": "RUB"},
		"merchant_display_name": "Coffee Shop",
		"statement_descriptor":  "COFFEE SHOP",
		"capture":               true,
		"confirmation": map[string]any{
			"type":             "redirect",
			"confirmation_url": "https://checkout.example.com/c/tok_123",
			"return_url":       "https://shop.example.com/back",
			"expires_at":       "2026-03-02T10:00:00Z",
		},
		"payment_method": map[string]any{
			"type":  "bank_card",
			"card":  map[string]any{"first6": "220000", "last4": "0004", "brand": "mir"},
			"saved": false,
		},
		"authorization_details": map[string]any{
			"rrn":            "123456789012",
			"auth_code":      "A1B2C3",
			"three_d_secure": map[string]any{"applied": true, "challenge_completed": true},
		},
		"metadata":    map[string]any{"cart": "17"},
		"expires_at":  "2026-03-02T10:00:00Z",
		"captured_at": "2026-03-01T10:01:00.123Z",
	}
}

func validError(code string) map[string]any {
	return map[string]any{
		"type":        "error",
		"code":        code,
		"description": "something is wrong",
		"request_id":  requestID,
	}
}

func jsonHeader(extra ...string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Request-Id", requestID)
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	return h
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func req(method, path string) *http.Request {
	return httptest.NewRequest(method, path, nil)
}

// check runs one validation and compares the outcome with wantOK. When a
// rejection is expected, every substring in wantErr must appear in the error,
// (ignoring case), which shows the response was rejected for the intended
// reason and not for an unrelated mistake in the fixture.
func check(t *testing.T, v *openapitest.Validator, r *http.Request, status int, h http.Header, body []byte, wantOK bool, wantErr ...string) {
	t.Helper()
	err := v.ValidateResponse(r, status, h, body)
	if wantOK {
		if err != nil {
			t.Fatalf("expected the response to be accepted, got:\n%v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("expected the response to be rejected, but it was accepted")
	}
	t.Logf("rejected as expected:\n%v", err)
	for _, s := range wantErr {
		if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(s)) {
			t.Fatalf("error does not mention %q:\n%v", s, err)
		}
	}
}

func TestValidatorAcceptsCorrectPayment(t *testing.T) {
	v := openapitest.New(t)
	body := mustJSON(t, validPayment())
	check(t, v, req("POST", "/v1/payments"), 201, jsonHeader(), body, true)
	check(t, v, req("POST", "/v1/payments"), 200, jsonHeader(), body, true)
	check(t, v, req("GET", "/v1/payments/"+paymentID), 200, jsonHeader(), body, true)
	check(t, v, req("POST", "/v1/payments/"+paymentID+"/capture"), 200, jsonHeader(), body, true)
	check(t, v, req("POST", "/v1/payments/"+paymentID+"/cancel"), 200, jsonHeader(), body, true)

	// Only the required fields.
	minimal := validPayment()
	for _, k := range []string{"statement_descriptor", "capture", "confirmation", "payment_method", "authorization_details", "metadata", "expires_at", "captured_at"} {
		delete(minimal, k)
	}
	check(t, v, req("GET", "/v1/payments/"+paymentID), 200, jsonHeader(), mustJSON(t, minimal), true)
}

func TestValidatorRejectsMalformedAmountValue(t *testing.T) {
	v := openapitest.New(t)
	p := validPayment()
	p["amount"] = map[string]any{"value": "1.5", "currency": "RUB"}
	check(t, v, req("POST", "/v1/payments"), 201, jsonHeader(), mustJSON(t, p), false, "amount", "1.5")

	// A JSON number instead of the decimal string.
	p["amount"] = map[string]any{"value": 1500.00, "currency": "RUB"}
	check(t, v, req("POST", "/v1/payments"), 201, jsonHeader(), mustJSON(t, p), false, "amount")

	// Unknown currency.
	p["amount"] = map[string]any{"value": "1500.00", "currency": "GBP"}
	check(t, v, req("POST", "/v1/payments"), 201, jsonHeader(), mustJSON(t, p), false, "currency")
}

func TestValidatorRejectsPaymentWithoutMerchantDisplayName(t *testing.T) {
	v := openapitest.New(t)
	p := validPayment()
	delete(p, "merchant_display_name")
	check(t, v, req("GET", "/v1/payments/"+paymentID), 200, jsonHeader(), mustJSON(t, p), false, "merchant_display_name")
}

func TestValidatorRejectsUnknownErrorCode(t *testing.T) {
	v := openapitest.New(t)
	r := req("GET", "/v1/payments/"+paymentID)
	check(t, v, r, 404, jsonHeader(), mustJSON(t, validError("not_found")), true)
	check(t, v, r, 404, jsonHeader(), mustJSON(t, validError("payment_missing")), false, "$.code", "must be one of")

	// A known code that the spec pairs with another status.
	check(t, v, r, 404, jsonHeader(), mustJSON(t, validError("invalid_request")), false, "$.code", "must be 'not_found'")

	// type must be the constant "error".
	e := validError("not_found")
	e["type"] = "failure"
	check(t, v, r, 404, jsonHeader(), mustJSON(t, e), false, "type")
}

func TestValidatorRejectsUndocumentedStatus(t *testing.T) {
	v := openapitest.New(t)
	body := mustJSON(t, validPayment())
	// GET answers 200, never 201.
	check(t, v, req("GET", "/v1/payments/"+paymentID), 201, jsonHeader(), body, false, "status 201 is not documented")
	// A current-stage operation never answers 501 ...
	check(t, v, req("GET", "/v1/payments"), 501, jsonHeader(), mustJSON(t, validError("not_implemented")), false, "status 501 is not documented")
	// ... while a later-stage one does.
	check(t, v, req("GET", "/v1/disputes"), 501, jsonHeader(), mustJSON(t, validError("not_implemented")), true)
	check(t, v, req("POST", "/v1/payments"), 418, jsonHeader(), mustJSON(t, validError("invalid_request")), false, "status 418 is not documented")
}

func TestValidatorRejectsMissingRequestID(t *testing.T) {
	v := openapitest.New(t)
	h := jsonHeader()
	h.Del("X-Request-Id")
	check(t, v, req("GET", "/v1/payments/"+paymentID), 200, h, mustJSON(t, validPayment()), false, "X-Request-Id")

	// Also on responses without a body.
	check(t, v, req("DELETE", "/v1/webhook-endpoints/"+webhookID), 204, http.Header{}, nil, false, "X-Request-Id")
	check(t, v, req("DELETE", "/v1/webhook-endpoints/"+webhookID), 204, http.Header{"X-Request-Id": {requestID}}, nil, true)
}

func TestValidatorRetryAfter(t *testing.T) {
	v := openapitest.New(t)
	r := req("POST", "/v1/payments")
	check(t, v, r, 429, jsonHeader(), mustJSON(t, validError("too_many_requests")), false, "Retry-After")
	check(t, v, r, 429, jsonHeader("Retry-After", "5"), mustJSON(t, validError("too_many_requests")), true)
	check(t, v, r, 503, jsonHeader("Retry-After", "30"), mustJSON(t, validError("provider_unavailable")), true)
	check(t, v, r, 503, jsonHeader("Retry-After", "soon"), mustJSON(t, validError("provider_unavailable")), false, "Retry-After")
}

func TestValidatorErrorRequestIDMustMatchHeader(t *testing.T) {
	v := openapitest.New(t)
	e := validError("invalid_request")
	e["parameter"] = "amount.value"
	check(t, v, req("POST", "/v1/payments"), 400, jsonHeader(), mustJSON(t, e), true)
	e["request_id"] = "another-id"
	check(t, v, req("POST", "/v1/payments"), 400, jsonHeader(), mustJSON(t, e), false, "request_id")
}

func TestValidatorNullAndAbsentFields(t *testing.T) {
	v := openapitest.New(t)
	r := req("GET", "/v1/payments")
	page := func(next any) map[string]any {
		m := map[string]any{"items": []any{validPayment()}}
		if next != "absent" {
			m["next_cursor"] = next
		}
		return m
	}
	check(t, v, r, 200, jsonHeader(), mustJSON(t, page(nil)), true)
	check(t, v, r, 200, jsonHeader(), mustJSON(t, page("c2Vjb25k")), true)
	check(t, v, r, 200, jsonHeader(), mustJSON(t, page("absent")), false, "next_cursor")
	check(t, v, r, 200, jsonHeader(), mustJSON(t, page(42)), false, "next_cursor")

	// Optional fields are omitted, never null.
	p := validPayment()
	p["description"] = nil
	check(t, v, req("GET", "/v1/payments/"+paymentID), 200, jsonHeader(), mustJSON(t, p), false, "description")
}

func TestValidatorChecksFormats(t *testing.T) {
	v := openapitest.New(t)
	p := validPayment()
	p["created_at"] = "1 March 2026"
	check(t, v, req("GET", "/v1/payments/"+paymentID), 200, jsonHeader(), mustJSON(t, p), false, "created_at")

	p = validPayment()
	p["id"] = "pay_123"
	check(t, v, req("GET", "/v1/payments/"+paymentID), 200, jsonHeader(), mustJSON(t, p), false, "id")
}

func TestValidatorEventObjectTypes(t *testing.T) {
	v := openapitest.New(t)
	r := req("GET", "/v1/events/"+eventID)
	event := func(objectType string, object any) map[string]any {
		return map[string]any{
			"id":         eventID,
			"type":       "payment.succeeded",
			"created_at": "2026-03-01T10:01:00Z",
			"test":       true,
			"data":       map[string]any{"object_type": objectType, "object": object},
		}
	}
	check(t, v, r, 200, jsonHeader(), mustJSON(t, event("payment", validPayment())), true)

	status := map[string]any{
		"payouts_frozen":        true,
		"frozen_reason":         "negative_balance",
		"frozen_at":             "2026-03-01T00:00:00Z",
		"settlement_delay_days": 1,
	}
	e := event("settlement_status", status)
	e["type"] = "settlement.frozen"
	check(t, v, r, 200, jsonHeader(), mustJSON(t, e), true)

	// The object must match the schema its object_type names.
	check(t, v, r, 200, jsonHeader(), mustJSON(t, event("refund", validPayment())), false, "$.data.object", "payment_id")
	check(t, v, r, 200, jsonHeader(), mustJSON(t, event("coupon", validPayment())), false, "$.data.object_type")
	bad := validPayment()
	delete(bad, "paid")
	check(t, v, r, 200, jsonHeader(), mustJSON(t, event("payment", bad)), false, "paid")

	// resend answers 202 with the event and its delivery summary.
	withDelivery := event("payment", validPayment())
	withDelivery["delivery"] = map[string]any{"status": "pending", "attempts": 0}
	check(t, v, req("POST", "/v1/events/"+eventID+"/resend"), 202, jsonHeader(), mustJSON(t, withDelivery), true)
}

func TestValidatorBodylessResponses(t *testing.T) {
	v := openapitest.New(t)
	h := http.Header{"X-Request-Id": {requestID}}
	check(t, v, req("POST", "/v1/test/payments/"+paymentID+"/simulate"), 202, h, nil, true)
	check(t, v, req("DELETE", "/v1/webhook-endpoints/"+webhookID), 204, h, []byte(`{}`), false, "without a body")
}

func TestValidatorContentType(t *testing.T) {
	v := openapitest.New(t)
	h := jsonHeader()
	h.Set("Content-Type", "text/plain")
	check(t, v, req("GET", "/v1/payments/"+paymentID), 200, h, mustJSON(t, validPayment()), false, "text/plain")

	h.Del("Content-Type")
	check(t, v, req("GET", "/v1/payments/"+paymentID), 200, h, mustJSON(t, validPayment()), false, "content type")

	// A documented body must be present and must be JSON.
	check(t, v, req("GET", "/v1/payments/"+paymentID), 200, jsonHeader(), nil, false, "missing")
	check(t, v, req("GET", "/v1/payments/"+paymentID), 200, jsonHeader(), []byte(`{"id":`), false, "decode")
}

func TestValidatorWebhookSecret(t *testing.T) {
	v := openapitest.New(t)
	endpoint := map[string]any{
		"id":         webhookID,
		"url":        "https://shop.example.com/hooks",
		"events":     []any{"payment.succeeded", "refund.succeeded"},
		"status":     "active",
		"created_at": "2026-03-01T10:00:00Z",
	}
	// GET and PATCH without rotation: no secret.
	check(t, v, req("GET", "/v1/webhook-endpoints/"+webhookID), 200, jsonHeader(), mustJSON(t, endpoint), true)
	check(t, v, req("PATCH", "/v1/webhook-endpoints/"+webhookID), 200, jsonHeader(), mustJSON(t, endpoint), true)
	// Creation must show the secret.
	check(t, v, req("POST", "/v1/webhook-endpoints"), 201, jsonHeader(), mustJSON(t, endpoint), false, "secret")
	endpoint["secret"] = "whsec_abc"
	check(t, v, req("POST", "/v1/webhook-endpoints"), 201, jsonHeader(), mustJSON(t, endpoint), true)
	check(t, v, req("GET", "/v1/webhook-endpoints"), 200, jsonHeader(), mustJSON(t, map[string]any{"items": []any{}}), true)
}

func TestValidatorShopAndBalance(t *testing.T) {
	v := openapitest.New(t)
	shop := map[string]any{
		"id":               "sh_01JABCDEFGHJKMNPQRSTVWXYZ0",
		"name":             "Coffee Shop",
		"region":           "ru",
		"test":             true,
		"default_currency": "RUB",
		"settlement_model": "agent",
		"receipt_mode":     "agent",
		"settlement": map[string]any{
			"reserve": []any{map[string]any{"currency": "RUB", "percent_bps": 1000, "days": 30}},
			"status":  map[string]any{"payouts_frozen": false, "settlement_delay_days": 1},
		},
		"capabilities": map[string]any{
			"two_stage": true, "partial_capture": true, "partial_refund": true,
			"receipts": false, "payouts": false, "authorize_request_webhook": false,
		},
	}
	check(t, v, req("GET", "/v1/shop"), 200, jsonHeader(), mustJSON(t, shop), true)
	delete(shop["capabilities"].(map[string]any), "receipts")
	check(t, v, req("GET", "/v1/shop"), 200, jsonHeader(), mustJSON(t, shop), false, "receipts")

	amount := func(v string) map[string]any { return map[string]any{"value": v, "currency": "RUB"} }
	balance := map[string]any{
		"currency": "RUB", "available": amount("-120.50"), "pending": amount("0.00"),
		"reserve": amount("0.00"), "deposit": amount("0.00"), "pending_refunds": amount("0.00"),
		"disputed": amount("0.00"), "payable": amount("0.00"), "test": true,
	}
	check(t, v, req("GET", "/v1/balance"), 200, jsonHeader(), mustJSON(t, map[string]any{"items": []any{balance}}), true)
	// Only available is signed.
	balance["payable"] = amount("-1.00")
	check(t, v, req("GET", "/v1/balance"), 200, jsonHeader(), mustJSON(t, map[string]any{"items": []any{balance}}), false, "payable")
}

func TestValidatorLaterStageShapes(t *testing.T) {
	v := openapitest.New(t)
	dispute := map[string]any{
		"id": disputeID, "payment_id": paymentID, "kind": "chargeback", "status": "evidence_required",
		"amount": map[string]any{"value": "100.00", "currency": "RUB"}, "created_at": "2026-03-01T10:00:00Z", "test": false,
		"evidence": []any{map[string]any{
			"file_id": "evd_01JABCDEFGHJKMNPQRSTVWXYZ0", "file_name": "receipt.pdf",
			"content_type": "application/pdf", "size_bytes": 1024, "uploaded_at": "2026-03-02T10:00:00Z",
		}},
	}
	check(t, v, req("GET", "/v1/disputes/"+disputeID), 200, jsonHeader(), mustJSON(t, dispute), true)
	dispute["status"] = "pending"
	check(t, v, req("GET", "/v1/disputes/"+disputeID), 200, jsonHeader(), mustJSON(t, dispute), false, "status")

	payout := map[string]any{
		"id": "po_01JABCDEFGHJKMNPQRSTVWXYZ0", "status": "processing",
		"amount": map[string]any{"value": "100.00", "currency": "KZT"}, "created_at": "2026-03-01T10:00:00Z", "test": true,
	}
	check(t, v, req("POST", "/v1/payouts"), 201, jsonHeader(), mustJSON(t, payout), true)
	check(t, v, req("POST", "/v1/payment-links"), 501, jsonHeader(), mustJSON(t, validError("not_implemented")), true)
}

func TestValidatorRouting(t *testing.T) {
	v := openapitest.New(t)
	body := mustJSON(t, validPayment())
	check(t, v, req("GET", "/payments/"+paymentID), 200, jsonHeader(), body, false, "does not begin with /v1")
	check(t, v, req("GET", "/v1/coupons"), 200, jsonHeader(), body, false, "no documented path")
	check(t, v, req("PUT", "/v1/payments/"+paymentID), 200, jsonHeader(), body, false, "not documented")
	// The document describes its own endpoint.
	check(t, v, req("GET", "/v1/openapi.json"), 200, jsonHeader(), openapi.JSON(), true)

	// Unknown routes and wrong methods answer with the Error object.
	if err := v.ValidateErrorResponse(404, jsonHeader(), mustJSON(t, validError("not_found"))); err != nil {
		t.Fatalf("valid error rejected: %v", err)
	}
	if err := v.ValidateErrorResponse(404, jsonHeader(), []byte(`{"error":"not found"}`)); err == nil {
		t.Fatal("non-Error body accepted")
	}

	ops := v.Operations()
	if len(ops) != len(specOperations) {
		t.Fatalf("Operations() returned %d operations, want %d", len(ops), len(specOperations))
	}
	for _, op := range ops {
		if _, ok := specOperations[op.Method+" "+op.Path]; !ok || op.OperationID == "" {
			t.Errorf("unexpected operation %+v", op)
		}
	}
}

func TestValidatorRecorderAndHTTPResponse(t *testing.T) {
	v := openapitest.New(t)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", requestID)
		w.WriteHeader(http.StatusOK)
		_ = json.NewEncoder(w).Encode(validPayment())
	})
	r := req("GET", "/v1/payments/"+paymentID)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	if err := v.ValidateRecorder(r, rec); err != nil {
		t.Fatal(err)
	}
	resp := rec.Result()
	if err := v.ValidateHTTPResponse(r, resp); err != nil {
		t.Fatal(err)
	}
	var again map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&again); err != nil || again["id"] != paymentID {
		t.Fatalf("body not restored after validation: %v", err)
	}
}

// TestValidatorConcurrentUse shares one Validator between goroutines, as
// parallel tests of the server packages will; run with -race to check it.
func TestValidatorConcurrentUse(t *testing.T) {
	v := openapitest.New(t)
	body := mustJSON(t, validPayment())
	errs := make(chan error, 8)
	for i := 0; i < cap(errs); i++ {
		go func() {
			errs <- v.ValidateResponse(req("GET", "/v1/payments/"+paymentID), 200, jsonHeader(), body)
		}()
	}
	for i := 0; i < cap(errs); i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
