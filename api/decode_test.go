package api

import (
	"errors"
	"strings"
	"testing"

	"github.com/paydhq/payd"
)

type fuzzTarget struct {
	URL    *string          `json:"url"`
	Events []payd.EventType `json:"events"`
	Nested struct {
		N     int               `json:"n"`
		Flag  bool              `json:"flag"`
		Meta  map[string]string `json:"meta"`
		Items []struct {
			V string `json:"v"`
		} `json:"items"`
	} `json:"nested"`
}

func TestDecodeJSONErrorsNameTheField(t *testing.T) {
	t.Parallel()
	tests := []struct{ body, param string }{
		{`{"url": 1}`, "url"},
		{`{"nested": {"n": "x"}}`, "nested.n"},
		{`{"nested": {"items": [{"v": 2}]}}`, "nested.items.v"},
		{`{"nested": {"meta": {"k": 1}}}`, "nested.meta"},
		{`{"nested": []}`, "nested"},
		{`{"url": "x", "secret": "y"}`, "secret"},
	}
	for _, tt := range tests {
		var v fuzzTarget
		err := decodeJSON([]byte(tt.body), &v, "secret")
		var pe *payd.Error
		if !errors.As(err, &pe) || pe.Code != payd.CodeInvalidRequest || pe.Param != tt.param {
			t.Errorf("decode %s: %v; want parameter %q", tt.body, err, tt.param)
		}
	}
	var v fuzzTarget
	if err := decodeJSON([]byte(`  `), &v); err != nil {
		t.Errorf("an empty body must decode as {}: %v", err)
	}
	if err := decodeJSON([]byte(`{"unknown": {"deep": [1, {"x": null}]}, "url": "u"}`), &v); err != nil || *v.URL != "u" {
		t.Errorf("unknown fields must be ignored: %v", err)
	}
	if err := decodeJSON([]byte(strings.Repeat("[", 33)+strings.Repeat("]", 33)), &v); err == nil {
		t.Error("deep nesting accepted")
	}
}

// FuzzDecodeJSON checks the request decoder never panics and that every
// refusal is the contract's invalid_request.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"url":"https://example.com","events":["payment.succeeded"]}`, `{"nested":{"n":1,"items":[{"v":"a"}]}}`,
		`[`, `{"url":`, "\xff", `{"a":` + strings.Repeat("[", 40), `{"nested":{"meta":{"k":"v"}}} x`, `null`, `"str"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var v fuzzTarget
		err := decodeJSON(body, &v, "secret")
		if err == nil {
			return
		}
		var pe *payd.Error
		if !errors.As(err, &pe) || pe.Code != payd.CodeInvalidRequest {
			t.Fatalf("decode %q: %v is not invalid_request", body, err)
		}
	})
}
