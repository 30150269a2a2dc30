package httpapi

import (
	"errors"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/paydhq/payd"
)

// MaxBodyBytes bounds a request body. Receipts with many items are the
// largest bodies the contract knows; 1 MiB leaves room for them and keeps
// a flood cheap.
const MaxBodyBytes = 1 << 20

// ReadBody reads the whole body within MaxBodyBytes.
func ReadBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, payd.Invalid("", "request body exceeds %d bytes", MaxBodyBytes)
		}
		return nil, payd.Invalid("", "could not read the request body")
	}
	return body, nil
}

// Decode decodes a request body into dst under the one-reading rules of
// DecodeJSON. A member the operation does not define is refused naming it
// (a typo such as "captur" would otherwise change the payment silently;
// clients ignore unknown members of responses, not servers of requests:
// docs/changelog.md, 2026-11-26); fields in readOnly are refused with
// their own message because the contract says a request must not carry
// them.
func Decode(body []byte, dst any, readOnly ...string) error {
	return DecodeJSON(body, dst, DecodeOptions{ReadOnly: readOnly, RejectUnknown: true})
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
		return payd.Idempotency{}, payd.Invalid("Idempotency-Key", "the Idempotency-Key header is required on POST and PATCH")
	case n < 8 || n > 128:
		return payd.Idempotency{}, payd.Invalid("Idempotency-Key", "Idempotency-Key must be 8..128 characters, not %d", n)
	case !printable(key):
		return payd.Idempotency{}, payd.Invalid("Idempotency-Key", "Idempotency-Key must be printable characters")
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

// ReadIdempotent reads a POST or PATCH: the body, its Idempotency-Key, and
// the JSON object decoded into dst (nil: the operation defines no member,
// so the body must be empty or an object without members). readOnly names
// fields a request must not carry.
func ReadIdempotent(w http.ResponseWriter, r *http.Request, dst any, readOnly ...string) (payd.Idempotency, error) {
	body, err := ReadBody(w, r)
	if err != nil {
		return payd.Idempotency{}, err
	}
	idem, err := idempotencyFrom(r, body)
	if err != nil {
		return payd.Idempotency{}, err
	}
	if dst == nil {
		dst = &struct{}{}
	}
	return idem, Decode(body, dst, readOnly...)
}
