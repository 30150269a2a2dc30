package httpapi

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/paydhq/payd"
)

// Request bodies have exactly one reading. Proxies, firewalls, loggers and
// the merchant's own signing code each parse the same bytes; wherever two
// parsers could disagree, the body is refused instead of read one way:
//   - a member name given twice, at any depth (last-wins in some parsers,
//     first-wins in others, so the amount a proxy checks could differ from
//     the one charged);
//   - invalid UTF-8 and escaped lone surrogates (some parsers replace them
//     with U+FFFD, so the stored string would differ from the one sent);
//   - names are matched exactly: `AMOUNT` is not `amount`.
//
// The JSON v2 decoder (github.com/go-json-experiment/json, the module form
// of encoding/json/v2) has all three rules built in and reports where in
// the body it stopped, which becomes the Error's dotted parameter.

// MaxJSONDepth bounds the nesting of a request body; a pathological body
// costs one linear scan before the decoder sees it.
const MaxJSONDepth = 32

// DecodeOptions tunes DecodeJSON for one kind of body.
type DecodeOptions struct {
	// ReadOnly names top-level fields a request must not carry (the
	// contract's read-only fields). A name differing only in case is
	// refused too: a case-insensitive parser on the way would read it as
	// the read-only field.
	ReadOnly []string
	// RejectUnknown refuses members dst has no field for, so that a typo
	// ("captur") is not silently dropped and a case variant ("Amount"
	// beside "amount") cannot be read by a case-insensitive parser on the
	// way as the member payd ignored. Both APIs set it; maps (metadata)
	// stay free-form.
	RejectUnknown bool
}

// DecodeJSON decodes one JSON object into dst under the one-reading rules.
// An empty body decodes as {}. Every refusal is invalid_request, with the
// dotted path of the offending member as its parameter where there is one
// and a description written for the merchant, never the decoder's text.
func DecodeJSON(body []byte, dst any, o DecodeOptions) error {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		body = []byte("{}")
	}
	if body[0] != '{' {
		return payd.Invalid("", "the request body must be a JSON object")
	}
	if err := checkDepth(body); err != nil {
		return err
	}
	if len(o.ReadOnly) > 0 {
		if err := checkReadOnly(body, o.ReadOnly); err != nil {
			return err
		}
	}
	if err := json.Unmarshal(body, dst, json.RejectUnknownMembers(o.RejectUnknown), json.WithUnmarshalers(stringMaps)); err != nil {
		return decodeError(body, err)
	}
	return nil
}

// stringMaps reads every object of string values (metadata) strictly: a
// member that is not a string, null included, is refused naming it. The
// decoder's own reading would store null as "", and metadata is returned
// unchanged (Shared objects: Metadata), so it must hold what was sent.
var stringMaps = json.UnmarshalFromFunc(func(dec *jsontext.Decoder, m *map[string]string) error {
	if dec.PeekKind() != '{' {
		return errors.ErrUnsupported // null and wrong types: the decoder's own reading
	}
	parent := dottedPath(dec.StackPointer())
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	out := map[string]string{}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return err
		}
		k := name.String()
		if dec.PeekKind() != '"' {
			param := k
			if parent != "" {
				param = parent + "." + k
			}
			if dec.PeekKind() == 0 { // the decoder names a broken value itself
				_, err := dec.ReadToken()
				return err
			}
			return payd.Invalid(param, "%s must be a string: %s holds string values only", param, cmp.Or(parent, "the object"))
		}
		v, err := dec.ReadToken()
		if err != nil {
			return err
		}
		out[k] = v.String()
	}
	if _, err := dec.ReadToken(); err != nil { // '}'
		return err
	}
	*m = out
	return nil
})

// checkReadOnly refuses a top-level member whose name is, in any case, one
// of the read-only fields. A body that is not valid JSON is left to the
// decoder, which names the fault.
func checkReadOnly(body []byte, readOnly []string) error {
	dec := jsontext.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil
	}
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil
		}
		name := tok.String()
		for _, f := range readOnly {
			if strings.EqualFold(name, f) {
				return payd.Invalid(f, "%s is set by the service and cannot be supplied in a request", f)
			}
		}
		if err := dec.SkipValue(); err != nil {
			return nil
		}
	}
	return nil
}

// decodeError turns a decoder error on body into invalid_request naming
// the member.
func decodeError(body []byte, err error) error {
	var pe *payd.Error
	var sem *json.SemanticError
	var syn *jsontext.SyntacticError
	switch {
	case errors.As(err, &pe):
		return pe
	case errors.As(err, &syn):
		param := dottedPath(syn.JSONPointer)
		switch {
		case errors.Is(syn.Err, jsontext.ErrDuplicateName):
			return payd.Invalid(param, "%s is given more than once; each member name may appear only once", param)
		case isUnicodeFault(syn.Err):
			if name, ok := memberNameAt(body, syn.ByteOffset); ok {
				return badName(param, name)
			}
			if param == "" {
				return payd.Invalid("", "the request body is not valid UTF-8")
			}
			return payd.Invalid(param, "%s must be valid Unicode text: %s", param, unicodeRule)
		case errors.Is(syn.Err, jsontext.ErrNonStringName):
			return payd.Invalid(param, "invalid JSON: member names must be strings")
		case errors.Is(syn.Err, io.ErrUnexpectedEOF):
			return payd.Invalid("", "invalid JSON: unexpected end of input")
		case endsObject(body, syn.ByteOffset):
			return payd.Invalid("", "unexpected data after the JSON object")
		}
		// A broken body has no field to blame: the position is the help.
		return payd.Invalid("", "invalid JSON at byte %d", syn.ByteOffset)
	case errors.As(err, &sem):
		param := dottedPath(sem.JSONPointer)
		if param == "" {
			return payd.Invalid("", "the request body must be a JSON object")
		}
		var inner *payd.Error
		if errors.As(sem.Err, &inner) {
			return inner
		}
		if errors.Is(sem.Err, json.ErrUnknownName) {
			return unknownMember(param, sem.GoType)
		}
		return payd.Invalid(param, "%s must be %s", param, describeType(sem.GoType))
	}
	return payd.Invalid("", "invalid JSON")
}

// unicodeRule ends every description of a text that is not valid Unicode.
const unicodeRule = "invalid UTF-8 and unpaired surrogate escapes (\\ud800-\\udfff) are refused"

// badName refuses a member name that is not valid Unicode. The name has no
// reading to report, so the parameter is the object holding it, or at the
// top level the part of the name before the fault (what a merchant can
// find in the body).
func badName(parent, readable string) error {
	param, where := parent, ""
	if parent == "" {
		param = readable
	} else {
		where = " in " + parent
	}
	what := "a member name"
	if readable != "" {
		what = fmt.Sprintf("the member name beginning %q", readable)
	}
	return payd.Invalid(param, "%s%s must be valid Unicode text: %s", what, where, unicodeRule)
}

// memberNameAt reports whether byte off of body lies inside a member name,
// and that name's text before off. The decoder accepted everything before
// off, so a plain scan of strings and brackets reads it correctly.
func memberNameAt(body []byte, off int64) (string, bool) {
	if off < 0 || off > int64(len(body)) {
		return "", false
	}
	var open []byte // the enclosing '{' and '['
	wantName := false
	for i := 0; i < len(body) && int64(i) < off; i++ {
		switch c := body[i]; c {
		case '"':
			j := i + 1
			for j < len(body) && body[j] != '"' {
				if body[j] == '\\' {
					j++
				}
				j++
			}
			isName := wantName && len(open) > 0 && open[len(open)-1] == '{'
			if off <= int64(j) {
				if !isName {
					return "", false
				}
				var name string
				if json.Unmarshal(append(append([]byte{}, body[i:off]...), '"'), &name) != nil {
					name = ""
				}
				return name, true
			}
			if isName {
				wantName = false
			}
			i = j
		case '{', '[':
			open = append(open, c)
			wantName = c == '{'
		case '}', ']':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case ',':
			wantName = len(open) > 0 && open[len(open)-1] == '{'
		}
	}
	return "", false
}

// endsObject reports whether body holds one whole JSON value before off:
// the decoder's fault at off is data after the object.
func endsObject(body []byte, off int64) bool {
	return off > 0 && off <= int64(len(body)) && jsontext.Value(bytes.TrimSpace(body[:off])).IsValid()
}

// isUnicodeFault reports the decoder's refusal of invalid UTF-8 or of an
// unpaired surrogate escape. The decoder exports no sentinel for these; its
// messages are pinned by TestDecodeJSONOneReading.
func isUnicodeFault(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "UTF-8") || strings.Contains(msg, "surrogate")
}

// dottedPath writes a JSON Pointer as the contract's dotted parameter:
// /receipt/items/0/vat_code → receipt.items.0.vat_code.
func dottedPath(p jsontext.Pointer) string {
	var parts []string
	for tok := range p.Tokens() {
		parts = append(parts, tok)
	}
	return strings.Join(parts, ".")
}

var timeType = reflect.TypeFor[time.Time]()

// describeType names what a field of Go type t accepts, in the contract's
// terms.
func describeType(t reflect.Type) string {
	if t == nil {
		return "of another JSON type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == timeType {
		return "a date-time string in RFC 3339 form with its offset, such as 2030-01-31T12:00:00Z"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer within range"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Map:
		if t.Elem().Kind() == reflect.String {
			return "an object of string values"
		}
		return "an object"
	case reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "of another JSON type"
}

// checkDepth refuses JSON nested deeper than MaxJSONDepth.
func checkDepth(b []byte) error {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString:
			if c == '\\' {
				escaped = true
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > MaxJSONDepth {
				return payd.Invalid("", "JSON nested deeper than %d levels", MaxJSONDepth)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}
