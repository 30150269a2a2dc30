package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/paydhq/payd"
)

// Request body limits. Receipts with many items are the largest bodies the
// contract knows; 1 MiB leaves room for them and keeps a flood cheap.
const (
	maxBodyBytes = 1 << 20
	maxJSONDepth = 32
)

var errPanic = errors.New("handler panic")

func invalidf(param, format string, args ...any) *payd.Error {
	return payd.Invalid(param, format, args...)
}

// readBody reads the whole body within maxBodyBytes.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, invalidf("", "request body exceeds %d bytes", maxBodyBytes)
		}
		return nil, invalidf("", "could not read the request body")
	}
	return body, nil
}

// decodeJSON decodes a request body into dst. Unknown fields are ignored
// (Versioning, rule 3); fields in readOnly are refused because the contract
// says a request must not carry them. An empty body decodes as {}.
func decodeJSON(body []byte, dst any, readOnly ...string) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		trimmed = []byte("{}")
	}
	if !utf8.Valid(trimmed) {
		return invalidf("", "the request body is not valid UTF-8")
	}
	if trimmed[0] != '{' {
		return invalidf("", "the request body must be a JSON object")
	}
	if err := checkDepth(trimmed); err != nil {
		return err
	}
	if len(readOnly) > 0 {
		var top map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &top); err == nil {
			for _, f := range readOnly {
				if _, ok := top[f]; ok {
					return invalidf(f, "%s is set by the service and cannot be supplied in a request", f)
				}
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return invalidf("", "unexpected data after the JSON object")
	}
	return nil
}

// jsonError turns a decoding error into invalid_request naming the field.
func jsonError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var pe *payd.Error
	switch {
	case errors.As(err, &pe):
		return pe
	case errors.As(err, &syntax):
		return invalidf("", "invalid JSON at byte %d: %v", syntax.Offset, syntax)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return invalidf("", "the request body must be a JSON object")
		}
		return invalidf(typ.Field, "%s must be %s, not a JSON %s", typ.Field, describeType(typ.Type.Kind().String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return invalidf("", "invalid JSON: unexpected end of input")
	}
	return invalidf("", "invalid JSON: %v", err)
}

func describeType(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "int32", "uint", "uint64", "float64":
		return "a number"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	}
	return "of another type"
}

// checkDepth refuses JSON nested deeper than maxJSONDepth before the decoder
// sees it, so a pathological body costs one linear scan.
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
			if depth > maxJSONDepth {
				return invalidf("", "JSON nested deeper than %d levels", maxJSONDepth)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

// idempotencyFrom reads the Idempotency-Key header (or its alias
// Idempotence-Key) and hashes the request it guards.
func idempotencyFrom(r *http.Request, body []byte) (payd.Idempotency, error) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		key = r.Header.Get("Idempotence-Key")
	}
	n := utf8.RuneCountInString(key)
	switch {
	case key == "":
		return payd.Idempotency{}, invalidf("Idempotency-Key", "the Idempotency-Key header is required on POST and PATCH")
	case n < 8 || n > 128:
		return payd.Idempotency{}, invalidf("Idempotency-Key", "Idempotency-Key must be 8..128 characters, not %d", n)
	case !printable(key):
		return payd.Idempotency{}, invalidf("Idempotency-Key", "Idempotency-Key must be printable characters")
	}
	return payd.Idempotency{Key: key, Hash: payd.RequestHash(r.Method, r.URL.Path, body)}, nil
}

func printable(s string) bool {
	for _, c := range s {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return utf8.ValidString(s)
}

// readIdempotent reads a POST or PATCH: the body, its Idempotency-Key, and
// the JSON object decoded into dst (nil: the body is not read as fields).
// readOnly names fields a request must not carry.
func readIdempotent(w http.ResponseWriter, r *http.Request, dst any, readOnly ...string) (payd.Idempotency, error) {
	body, err := readBody(w, r)
	if err != nil {
		return payd.Idempotency{}, err
	}
	idem, err := idempotencyFrom(r, body)
	if err != nil {
		return payd.Idempotency{}, err
	}
	if dst == nil {
		return idem, nil
	}
	return idem, decodeJSON(body, dst, readOnly...)
}
