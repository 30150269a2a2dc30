package httpapi

import (
	"errors"
	"strings"
	"testing"

	"github.com/paydhq/payd"
)

type decodeTarget struct {
	Name   string            `json:"name"`
	Flag   bool              `json:"flag"`
	N      int64             `json:"n"`
	Meta   map[string]string `json:"meta"`
	Nested struct {
		Inner struct {
			V string `json:"v"`
		} `json:"inner"`
	} `json:"nested"`
	Items []struct {
		V string `json:"v"`
	} `json:"items"`
}

// TestDecodeJSONOneReading pins every refusal of DecodeJSON to its
// parameter and description: the texts merchants read, including those
// that depend on the decoder's own messages (isUnicodeFault), so that an
// upgrade of the decoder that changes them fails here.
func TestDecodeJSONOneReading(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, body, param, desc string }{
		{"trailing object", `{"name":"a"} {}`, "", "unexpected data after the JSON object"},
		{"trailing garbage", `{"name":"a"}x`, "", "unexpected data after the JSON object"},
		{"cut short", `{"name":"a"`, "", "invalid JSON: unexpected end of input"},
		{"cut after a name", `{"name":`, "", "invalid JSON: unexpected end of input"},
		{"broken inside", `{"name":"a",}`, "", "invalid JSON at byte 11"},
		{"wrong boolean", `{"flag":"yes"}`, "flag", "flag must be a boolean"},
		{"wrong string", `{"name":1}`, "name", "name must be a string"},
		{"wrong integer", `{"n":1.5}`, "n", "n must be an integer within range"},
		{"duplicate", `{"name":"a","name":"b"}`, "name", "name is given more than once; each member name may appear only once"},
		{"lone surrogate in a value", `{"meta":{"k":"\ud800"}}`, "meta.k", `meta.k must be valid Unicode text: invalid UTF-8 and unpaired surrogate escapes (\ud800-\udfff) are refused`},
		{"invalid UTF-8 in a value", "{\"name\":\"a\xffb\"}", "name", `name must be valid Unicode text: invalid UTF-8 and unpaired surrogate escapes (\ud800-\udfff) are refused`},
		{"lone surrogate in a top-level name", `{"na\ud800me":"a"}`, "na", `the member name beginning "na" must be valid Unicode text: invalid UTF-8 and unpaired surrogate escapes (\ud800-\udfff) are refused`},
		{"lone surrogate opening a top-level name", `{"name":"a","\udc00":1}`, "", `a member name must be valid Unicode text: invalid UTF-8 and unpaired surrogate escapes (\ud800-\udfff) are refused`},
		{"lone surrogate in a nested name", `{"nested":{"inner":{"v":"x","v\ud800":1}}}`, "nested.inner", `the member name beginning "v" in nested.inner must be valid Unicode text: invalid UTF-8 and unpaired surrogate escapes (\ud800-\udfff) are refused`},
		{"lone surrogate in a map key", `{"meta":{"\ud800":"x"}}`, "meta", `a member name in meta must be valid Unicode text: invalid UTF-8 and unpaired surrogate escapes (\ud800-\udfff) are refused`},
		{"invalid UTF-8 in a nested name", "{\"meta\":{\"k\xff\":\"x\"}}", "meta", `the member name beginning "k" in meta must be valid Unicode text: invalid UTF-8 and unpaired surrogate escapes (\ud800-\udfff) are refused`},
		{"name after an array", `{"meta":{"a":"[\"x\"]","b\ud800":"y"}}`, "meta", `the member name beginning "b" in meta must be valid Unicode text: invalid UTF-8 and unpaired surrogate escapes (\ud800-\udfff) are refused`},
		{"name after a nested array", `{"x":[["a"],{"y":[1]}],"b\ud800":1}`, "b", `the member name beginning "b" must be valid Unicode text: invalid UTF-8 and unpaired surrogate escapes (\ud800-\udfff) are refused`},
		{"name with escapes before the fault", `{"meta":{"q\"\\x\ud800":"y"}}`, "meta", `the member name beginning "q\"\\x" in meta must be valid Unicode text: invalid UTF-8 and unpaired surrogate escapes (\ud800-\udfff) are refused`},
		{"null in a string map", `{"meta":{"k":null}}`, "meta.k", "meta.k must be a string: meta holds string values only"},
		{"number in a string map", `{"meta":{"a":"1","k":1}}`, "meta.k", "meta.k must be a string: meta holds string values only"},
		{"object in a string map", `{"meta":{"k":{}}}`, "meta.k", "meta.k must be a string: meta holds string values only"},
		{"unknown refused, a case variant suggested", `{"Name":"a"}`, "Name", "unknown field Name; did you mean name?"},
		{"unknown refused at depth", `{"nested":{"INNER":{"v":"x"}}}`, "nested.INNER", "unknown field nested.INNER; did you mean nested.inner?"},
		{"unknown refused, a slip suggested", `{"flg":true}`, "flg", "unknown field flg; did you mean flag?"},
		{"unknown refused, two slips suggested", `{"nestde":{}}`, "nestde", "unknown field nestde; did you mean nested?"},
		{"unknown refused, nothing close", `{"zzz":1}`, "zzz", "unknown field zzz"},
		{"unknown refused, too far for a short name", `{"nm":"a"}`, "nm", "unknown field nm"},
		{"unknown refused in an array's object", `{"items":[{"V":"x"}]}`, "items.0.V", "unknown field items.0.V; did you mean items.0.v?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v decodeTarget
			err := DecodeJSON([]byte(tc.body), &v, DecodeOptions{RejectUnknown: strings.HasPrefix(tc.name, "unknown")})
			var pe *payd.Error
			if !errors.As(err, &pe) || pe.Code != payd.CodeInvalidRequest {
				t.Fatalf("decode %s: %v, want invalid_request", tc.body, err)
			}
			if pe.Param != tc.param || pe.Message != tc.desc {
				t.Errorf("decode %s:\n got %q %q\nwant %q %q", tc.body, pe.Param, pe.Message, tc.param, tc.desc)
			}
		})
	}
	// Names match exactly at every depth: a name in another case is an
	// unknown member, ignored, however deep.
	var d decodeTarget
	if err := DecodeJSON([]byte(`{"nested":{"Inner":{"V":"x"}},"NAME":"y"}`), &d, DecodeOptions{}); err != nil || d.Nested.Inner.V != "" || d.Name != "" {
		t.Errorf("names in another case were read: %v %+v", err, d)
	}
	// Arrays of strings are values, never names, whatever their position.
	var v struct {
		L []string `json:"l"`
	}
	err := DecodeJSON([]byte(`{"l":["a","\ud800"]}`), &v, DecodeOptions{})
	var pe *payd.Error
	if !errors.As(err, &pe) || pe.Param != "l.1" {
		t.Errorf("lone surrogate in an array element: %v, want parameter l.1", err)
	}
}
