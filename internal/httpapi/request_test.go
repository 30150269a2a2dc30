package httpapi

import (
	"bytes"
	"encoding/json"
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
		{`{"nested": {"items": [{"v": 2}]}}`, "nested.items.0.v"},
		{`{"nested": {"meta": {"k": 1}}}`, "nested.meta.k"},
		{`{"nested": []}`, "nested"},
		{`{"url": "x", "secret": "y"}`, "secret"},
	}
	for _, tt := range tests {
		var v fuzzTarget
		err := Decode([]byte(tt.body), &v, "secret")
		var pe *payd.Error
		if !errors.As(err, &pe) || pe.Code != payd.CodeInvalidRequest || pe.Param != tt.param {
			t.Errorf("decode %s: %v; want parameter %q", tt.body, err, tt.param)
		}
	}
	var v fuzzTarget
	if err := Decode([]byte(`  `), &v); err != nil {
		t.Errorf("an empty body must decode as {}: %v", err)
	}
	var pe *payd.Error
	if err := Decode([]byte(`{"unknown": {"deep": [1, {"x": null}]}, "url": "u"}`), &v); !errors.As(err, &pe) || pe.Param != "unknown" {
		t.Errorf("an unknown member must be refused naming it: %v", err)
	}
	if err := Decode([]byte(strings.Repeat("[", 33)+strings.Repeat("]", 33)), &v); err == nil {
		t.Error("deep nesting accepted")
	}
}

// FuzzDecodeJSON checks the request decoder never panics and that every
// refusal is the contract's invalid_request.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"url":"https://example.com","events":["payment.succeeded"]}`, `{"nested":{"n":1,"items":[{"v":"a"}]}}`,
		`[`, `{"url":`, "\xff", `{"a":` + strings.Repeat("[", 40), `{"nested":{"meta":{"k":"v"}}} x`, `null`, `"str"`,
		`{"u\ud800rl":1}`, `{"nested":{"meta":{"k\udc00":"v"}}}`, "{\"nested\":{\"i\xfftems\":[]}}", `{"url":"u"}x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var v fuzzTarget
		err := Decode(body, &v, "secret")
		if err == nil {
			return
		}
		var pe *payd.Error
		if !errors.As(err, &pe) || pe.Code != payd.CodeInvalidRequest {
			t.Fatalf("decode %q: %v is not invalid_request", body, err)
		}
	})
}

// FuzzDecodeRefusesDuplicateNames feeds random bytes to the decoder and
// checks it never accepts a body in which some object repeats a member name,
// at any depth, as another parser (the standard library's, reading the body
// token by token) sees it.
func FuzzDecodeRefusesDuplicateNames(f *testing.F) {
	for _, s := range []string{
		`{"url":"a","url":"b"}`, `{"nested":{"n":1,"n":2}}`, `{"x":[{"a":1},{"a":1,"a":2}]}`,
		`{"url":"\u0061","u\u0072l":"b"}`, `{"nested":{"meta":{"k":"1","K":"2"}}}`, `{"a":{"b":{"c":1}},"a":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var v fuzzTarget
		if Decode(body, &v) != nil {
			return
		}
		if dup, where := hasDuplicateName(body); dup {
			t.Fatalf("decoder accepted %q with a duplicate member %q", body, where)
		}
	})
}

// hasDuplicateName walks body with encoding/json's tokenizer, which keeps
// every member, and reports a name seen twice in one object.
func hasDuplicateName(body []byte) (bool, string) {
	dec := json.NewDecoder(bytes.NewReader(body))
	type frame struct {
		object  bool
		names   map[string]bool
		wantKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false, ""
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tv := tok.(type) {
		case json.Delim:
			switch tv {
			case '{', '[':
				if top != nil && top.object {
					top.wantKey = true
				}
				stack = append(stack, &frame{object: tv == '{', names: map[string]bool{}, wantKey: tv == '{'})
				continue
			case '}', ']':
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].wantKey = true
				}
				continue
			}
		case string:
			if top != nil && top.object && top.wantKey {
				if top.names[tv] {
					return true, tv
				}
				top.names[tv] = true
				top.wantKey = false
				continue
			}
		}
		if top != nil && top.object {
			top.wantKey = true
		}
	}
}
