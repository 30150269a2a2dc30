package api_test

import (
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

func TestUnknownRoutesAndMethods(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		c.Get("/v1/no-such-thing").ExpectError(t, 404, payd.CodeNotFound, "")
		c.Get("/v2/shop").ExpectError(t, 404, payd.CodeNotFound, "")
		env.Do("GET", env.API.URL, "/nowhere", nil, nil).ExpectError(t, 404, payd.CodeNotFound, "")
		r := c.Do("DELETE", "/v1/shop", nil)
		r.ExpectError(t, 405, payd.CodeInvalidRequest, "")
		if r.Header.Get("Allow") != "GET" {
			t.Fatalf("Allow = %q, want GET", r.Header.Get("Allow"))
		}
		r = c.Do("PUT", "/v1/webhook-endpoints/whe_00000000000000000000000000", nil)
		if r.Status != 405 || !strings.Contains(r.Header.Get("Allow"), "PATCH") || !strings.Contains(r.Header.Get("Allow"), "DELETE") {
			t.Fatalf("PUT on an endpoint: %d Allow=%q", r.Status, r.Header.Get("Allow"))
		}
		// Another shop's object and a missing one answer alike.
		c.Get("/v1/events/evt_00000000000000000000000000").ExpectError(t, 404, payd.CodeNotFound, "")
	})
}

// TestLaterStagesAnswer501 checks every declared operation of a later stage:
// it exists, needs credentials, and answers 501 naming its stage.
func TestLaterStagesAnswer501(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		const id = "00000000000000000000000000"
		tests := []struct{ method, path, stage string }{
			{"GET", "/v1/disputes", "M2"},
			{"GET", "/v1/disputes/dsp_" + id, "M2"},
			{"POST", "/v1/disputes/dsp_" + id + "/evidence/uploads", "M2"},
			{"POST", "/v1/disputes/dsp_" + id + "/evidence", "M2"},
			{"POST", "/v1/test/payments/pay_" + id + "/disputes", "M2"},
			{"POST", "/v1/test/disputes/dsp_" + id + "/simulate", "M2"},
			{"POST", "/v1/payment-links", "M5"},
			{"GET", "/v1/payment-links", "M5"},
			{"GET", "/v1/payment-links/pl_" + id, "M5"},
			{"POST", "/v1/payment-links/pl_" + id + "/deactivate", "M5"},
			{"POST", "/v1/payouts", "M5"},
			{"GET", "/v1/payouts", "M5"},
			{"GET", "/v1/payouts/po_" + id, "M5"},
		}
		for _, tt := range tests {
			r := c.Do(tt.method, tt.path, map[string]any{}, "Idempotency-Key", "stage-key-1")
			r.ExpectError(t, 501, payd.CodeNotImplemented, "")
			if !strings.Contains(r.JSON(t)["description"].(string), tt.stage) {
				t.Errorf("%s %s: description %q does not name stage %s", tt.method, tt.path, r.JSON(t)["description"], tt.stage)
			}
			// Authentication comes first: never a silent 404 or an open 501.
			env.Do(tt.method, env.API.URL, tt.path, nil, nil).ExpectError(t, 401, payd.CodeInvalidCredentials, "")
		}
	})
}

func TestBadInputIsRefusedCleanly(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		tests := []struct {
			name, body, param string
		}{
			{"invalid JSON", `{"url": `, ""},
			{"not an object", `["https://example.com"]`, ""},
			{"trailing data", `{"url":"https://example.com/h","events":["payment.succeeded"]} {}`, ""},
			{"deep JSON", `{"url":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`, ""},
			{"non-UTF-8", "{\"url\":\"https://example.com/\xff\",\"events\":[\"payment.succeeded\"]}", "url"},
			{"wrong type", `{"url": 42, "events": ["payment.succeeded"]}`, "url"},
			{"wrong element type", `{"url": "https://example.com/h", "events": [1]}`, "events.0"},
			{"missing url", `{"events": ["payment.succeeded"]}`, "url"},
			{"missing events", `{"url": "https://example.com/h"}`, "events"},
			{"empty events", `{"url": "https://example.com/h", "events": []}`, "events"},
			{"unknown event", `{"url": "https://example.com/h", "events": ["payment.paid"]}`, "events.0"},
			{"duplicate event", `{"url": "https://example.com/h", "events": ["payment.succeeded","payment.succeeded"]}`, "events.1"},
			{"long description", `{"url": "https://example.com/h", "events": ["payment.succeeded"], "description": "` + strings.Repeat("d", 129) + `"}`, "description"},
			{"read-only secret", `{"url": "https://example.com/h", "events": ["payment.succeeded"], "secret": "mine"}`, "secret"},
			{"http url", `{"url": "http://example.com/h", "events": ["payment.succeeded"]}`, "url"},
			{"private url", `{"url": "https://10.0.0.1/h", "events": ["payment.succeeded"]}`, "url"},
			{"body too large", `{"url": "https://example.com/h", "events": ["payment.succeeded"], "description": "` + strings.Repeat("x", 2<<20) + `"}`, ""},
		}
		for i, tt := range tests {
			r := c.Post("/v1/webhook-endpoints", "bad-input-"+string(rune('a'+i))+"-key", tt.body)
			if r.Status != 400 || r.ErrorCode() != string(payd.CodeInvalidRequest) {
				t.Errorf("%s: %d %s", tt.name, r.Status, r.Body)
				continue
			}
			paydtest.ExpectRefusal(t, r, tt.param)
		}
		// An unknown member is refused naming it; without it the body passes.
		paydtest.ExpectRefusal(t, c.Post("/v1/webhook-endpoints", "unknown-fields-1",
			`{"url": "https://example.com/h", "events": ["payment.succeeded"], "colour": "blue", "nested": {"a": [1,2]}}`), "colour")
		c.Post("/v1/webhook-endpoints", "unknown-fields-2",
			`{"url": "https://example.com/h", "events": ["payment.succeeded"]}`).Expect(t, 201)
		// Nothing of the refused requests was stored.
		if n := len(c.Get("/v1/webhook-endpoints").Expect(t, 200).JSON(t)["items"].([]any)); n != 1 {
			t.Fatalf("%d endpoints stored, want 1", n)
		}
		// Headers past the limit get the contract's error too.
		r := c.Do("GET", "/v1/shop", nil, "X-Padding", strings.Repeat("p", 40<<10))
		r.ExpectError(t, 400, payd.CodeInvalidRequest, "")
		// The service is still up.
		c.Get("/v1/shop").Expect(t, 200)
	})
}

func TestHealth(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		for _, path := range []string{"/healthz", "/readyz"} {
			r := env.Do("GET", env.API.URL, path, nil, nil).Expect(t, 200)
			if r.Header.Get("X-Request-Id") == "" {
				t.Fatalf("%s without X-Request-Id", path)
			}
		}
		// The contract document is public.
		r := env.Do("GET", env.API.URL, "/v1/openapi.json", nil, nil).Expect(t, 200)
		if !strings.Contains(string(r.Body), `"openapi"`) {
			t.Fatalf("openapi.json: %.100s", r.Body)
		}
	})
}
