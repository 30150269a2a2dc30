package paydtest

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

// Body is one JSON request body of an API, for CheckOneReading: a valid
// example and the members the checks work on. Every member of Base, at any
// depth, is given every wrong JSON type, so Base must carry every field the
// route reads.
type Body struct {
	Name, Method, Path string
	// Base is a valid body. Bodies of routes that change something when
	// accepted go to resources that do not exist, so that the checks
	// change nothing.
	Base string
	// Top is a top-level member: it is duplicated, and written with a
	// capital, which is an unknown member.
	Top string
	// Deep is a nested member (a dotted path) to duplicate; its object also
	// gets a member name that is not valid Unicode.
	Deep string
	// Str is a string member to receive a lone surrogate escape; empty
	// when the body has none.
	Str string
}

// kind is the JSON type of a member of a Base.
type kind int

const (
	kString kind = iota
	kNumber
	kBool
	kObject
	kArray
	kTime // a string holding an RFC 3339 date-time
)

// wrongValues lists JSON values of every other kind than k (and, for a
// date-time, strings that are no instant).
func wrongValues(k kind) []string {
	return map[kind][]string{
		kString: {`1`, `true`, `{}`, `[]`},
		kNumber: {`"1"`, `true`, `{}`, `[]`, `1.5`, `1e40`},
		kBool:   {`"true"`, `1`, `{}`, `[]`},
		kObject: {`"x"`, `1`, `true`, `[]`},
		kArray:  {`"x"`, `1`, `true`, `{}`},
		kTime:   {`12345`, `"tomorrow"`, `"2030-02-30T00:00:00Z"`, `true`, `{}`},
	}[k]
}

// fieldsOf returns the kind of every member of body at any depth, by dotted
// path (array elements by index: events.0).
func fieldsOf(t testing.TB, body string) map[string]kind {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("example body %s: %v", body, err)
	}
	out := map[string]kind{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		join := func(k string) string {
			if prefix == "" {
				return k
			}
			return prefix + "." + k
		}
		switch x := v.(type) {
		case map[string]any:
			if prefix != "" {
				out[prefix] = kObject
			}
			for k, e := range x {
				walk(join(k), e)
			}
		case []any:
			out[prefix] = kArray
			for i, e := range x {
				walk(join(strconv.Itoa(i)), e)
			}
		case string:
			out[prefix] = kString
			if _, err := time.Parse(time.RFC3339, x); err == nil {
				out[prefix] = kTime
			}
		case float64:
			out[prefix] = kNumber
		case bool:
			out[prefix] = kBool
		default:
			t.Fatalf("example body %s: %s is null; give every member a value", body, prefix)
		}
	}
	walk("", v)
	return out
}

// decoderText matches what only a JSON decoder writes: its package names,
// Go type names and its own phrasing. A description is for a merchant.
var decoderText = regexp.MustCompile(`json:|jsontext|jsonwire|[Uu]nmarshal|\bGo (value|struct|type)|of type|` +
	`\b(u?int(8|16|32|64)?|float(32|64)|bool|rune|interface|struct)\b|map\[|\[\]|\b(payd|money|time)\.[A-Z]|` +
	`invalid character|looking for|top-level value|surrogate pair ` + "`")

// ExpectRefusal fails the test unless r is 400 invalid_request naming
// param, with a description free of the decoder's text.
func ExpectRefusal(t testing.TB, r *Response, param string) {
	t.Helper()
	r.ExpectError(t, 400, payd.CodeInvalidRequest, param)
	var e struct {
		Description string `json:"description"`
	}
	json.Unmarshal(r.Body, &e)
	if e.Description == "" || decoderText.MatchString(e.Description) {
		t.Fatalf("%s %s: description %q is not written for a merchant\n%s", r.Request.Method, r.Request.URL.Path, e.Description, r.Body)
	}
}

// CheckOneReading sends b, through send, with each member given each
// wrong JSON type, with a duplicated member at the top, at depth and inside
// an unknown member, with Top written in another case, with a lone
// surrogate escape in a string and with member names that are not valid
// Unicode at the top and at depth. Each must be refused naming the member
// (or, for a bad name, the object holding it), never read one way.
func CheckOneReading(t *testing.T, b Body, send func(body string) *Response) {
	t.Helper()
	fields := fieldsOf(t, b.Base)
	paths := make([]string, 0, len(fields))
	for p := range fields {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, field := range paths {
		for _, wrong := range wrongValues(fields[field]) {
			ExpectRefusal(t, send(SetPath(t, b.Base, field, wrong)), field)
		}
	}
	if _, ok := fields[b.Top]; !ok || strings.Contains(b.Top, ".") {
		t.Fatalf("%s: Top %q is not a top-level member of the example", b.Name, b.Top)
	}
	// Duplicates: at the top, at depth, and inside a member no route
	// knows, which a proxy still reads.
	ExpectRefusal(t, send(Duplicate(t, b.Base, b.Top, ValueAt(t, b.Base, b.Top))), b.Top)
	if b.Deep != "" {
		ExpectRefusal(t, send(Duplicate(t, b.Base, b.Deep, `"x"`)), b.Deep)
	}
	// The unknown member is named, or the duplicate inside it where a
	// route reads the body as raw members before its fields.
	dup := send(SetPath(t, b.Base, "extra", `{"k":[{"x":1,"x":2}]}`))
	if dup.ErrorParam() == "extra.k.0.x" {
		ExpectRefusal(t, dup, "extra.k.0.x")
	} else {
		ExpectRefusal(t, dup, "extra")
	}
	// Lone surrogates: in a string value and in member names.
	if b.Str != "" {
		ExpectRefusal(t, send(withEscape(t, b.Base, b.Str, `"c4@@x"`)), b.Str)
	}
	ExpectRefusal(t, send(withEscape(t, b.Base, "extra", `"c4@@x"`)), "extra")
	ExpectRefusal(t, send(strings.Replace(SetPath(t, b.Base, "zz@@", "1"), "@@", `\ud800`, 1)), "zz")
	ExpectRefusal(t, send(strings.Replace(SetPath(t, b.Base, "extra", `{"a":1,"b@@":2}`), "@@", `\udc00`, 1)), "extra")
	if b.Deep != "" {
		parent := b.Deep[:strings.LastIndex(b.Deep, ".")]
		ExpectRefusal(t, send(strings.Replace(SetPath(t, b.Base, parent+".zz@@", "1"), "@@", `\ud800`, 1)), parent)
	}
	// A name in another case is not the member: it is an unknown member,
	// refused under its own name with the member meant suggested.
	variant := strings.ToUpper(b.Top[:1]) + b.Top[1:]
	r := send(rename(t, b.Base, b.Top, variant, ValueAt(t, b.Base, b.Top)))
	ExpectRefusal(t, r, variant)
	if want := "did you mean " + b.Top + "?"; !strings.Contains(string(r.Body), want) {
		t.Errorf("%s: %s refused without %q\n%s", b.Name, variant, want, r.Body)
	}
	// Beside the member itself, the variant is refused too: a
	// case-insensitive parser on the way would read one of the two.
	both := SetPath(t, b.Base, variant, ValueAt(t, b.Base, b.Top))
	ExpectRefusal(t, send(both), variant)
}

// withEscape returns body with the member at path set to raw, whose @@ is
// replaced by a lone surrogate escape (which no JSON encoder writes).
func withEscape(t testing.TB, body, path, raw string) string {
	t.Helper()
	return strings.Replace(SetPath(t, body, path, raw), "@@", `\ud800`, 1)
}

// rename returns body with the top-level member name given as to, with
// value raw; an empty to removes the member.
func rename(t testing.TB, body, name, to, raw string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, name)
	if to != "" {
		m[to] = json.RawMessage(raw)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// SetPath returns body with the member at dotted path set to raw (added
// when the last object has no such member).
func SetPath(t testing.TB, body, path, raw string) string {
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
			n, err := strconv.Atoi(p)
			if err != nil || n < 0 || n >= len(c) {
				t.Fatalf("no element %s in %s", path, body)
			}
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

// Duplicate returns body with the member at dotted path given twice, the
// second time with other, e.g. {"amount":{"value":"1.00","value":"100.00"}}.
func Duplicate(t testing.TB, body, path, other string) string {
	t.Helper()
	marked := SetPath(t, body, path, `"@@DUP@@"`)
	name := path[strings.LastIndex(path, ".")+1:]
	orig := ValueAt(t, body, path)
	out := strings.Replace(marked, `"`+name+`":"@@DUP@@"`, `"`+name+`":`+orig+`,"`+name+`":`+other, 1)
	if out == marked {
		t.Fatalf("cannot duplicate %s in %s", path, body)
	}
	return out
}

// ValueAt returns the JSON of the member at dotted path.
func ValueAt(t testing.TB, body, path string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Split(path, ".") {
		switch c := v.(type) {
		case map[string]any:
			v = c[p]
		case []any:
			n, _ := strconv.Atoi(p)
			v = c[n]
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
