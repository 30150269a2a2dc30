package webhook

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// The fixed vectors of docs/webhooks.md: a merchant can check their own
// implementation against them.
var (
	vectorSecret = "whsec_test_secret_for_documentation"
	vectorOld    = "whsec_previous_secret_for_rotation"
	vectorTime   = time.Unix(1767225600, 0) // 2026-01-01T00:00:00Z
	vectorBody   = []byte(`{"id":"evt_01JGX0000000000000000000AB","type":"payment.succeeded"}`)
	vectorSig    = "ecb8fe71e48134ae518495ebbcbb8f0c684621d885ac9146681c6ac5c90a887e" // computed independently with openssl dgst -sha256 -hmac
)

func TestSignVector(t *testing.T) {
	t.Parallel()
	got := Sign(vectorSecret, vectorTime, vectorBody)
	if len(got) != 64 || strings.ToLower(got) != got {
		t.Fatalf("signature %q is not 64 lowercase hex characters", got)
	}
	if got != vectorSig {
		t.Fatalf("Sign = %s, want the documented %s", got, vectorSig)
	}
	if h := Header(vectorTime, vectorBody, vectorSecret); h != "t=1767225600,v1="+vectorSig {
		t.Fatalf("Header = %s", h)
	}
	const oldSig = "fb612e38fa9d0fec64a32818cf12a18bf77e392f02719066621a6ce5d9edd396"
	if h := Header(vectorTime, vectorBody, vectorSecret, vectorOld); h != "t=1767225600,v1="+vectorSig+",v1="+oldSig {
		t.Fatalf("rotation Header = %s", h)
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	now := vectorTime.Add(10 * time.Second)
	rotated := Header(vectorTime, vectorBody, vectorSecret, vectorOld)
	tests := []struct {
		name    string
		header  string
		body    []byte
		secrets []string
		now     time.Time
		want    error
	}{
		{"valid", Header(vectorTime, vectorBody, vectorSecret), vectorBody, []string{vectorSecret}, now, nil},
		{"rotation, new secret", rotated, vectorBody, []string{vectorSecret}, now, nil},
		{"rotation, old secret", rotated, vectorBody, []string{vectorOld}, now, nil},
		{"receiver knows both", Header(vectorTime, vectorBody, vectorOld), vectorBody, []string{vectorSecret, vectorOld}, now, nil},
		{"spaces after commas", "t=1767225600, v1=" + Sign(vectorSecret, vectorTime, vectorBody), vectorBody, []string{vectorSecret}, now, nil},
		{"unknown scheme skipped", Header(vectorTime, vectorBody, vectorSecret) + ",v0=abc", vectorBody, []string{vectorSecret}, now, nil},
		{"changed body", Header(vectorTime, vectorBody, vectorSecret), append([]byte(" "), vectorBody...), []string{vectorSecret}, now, ErrNoMatch},
		{"wrong secret", Header(vectorTime, vectorBody, vectorSecret), vectorBody, []string{"whsec_other"}, now, ErrNoMatch},
		{"upper-case hex", "t=1767225600,v1=" + strings.ToUpper(Sign(vectorSecret, vectorTime, vectorBody)), vectorBody, []string{vectorSecret}, now, nil},
		{"301 s late", Header(vectorTime, vectorBody, vectorSecret), vectorBody, []string{vectorSecret}, vectorTime.Add(301 * time.Second), ErrTimestamp},
		{"300 s late", Header(vectorTime, vectorBody, vectorSecret), vectorBody, []string{vectorSecret}, vectorTime.Add(300 * time.Second), nil},
		{"301 s early", Header(vectorTime, vectorBody, vectorSecret), vectorBody, []string{vectorSecret}, vectorTime.Add(-301 * time.Second), ErrTimestamp},
		{"empty", "", vectorBody, []string{vectorSecret}, now, ErrMalformedHeader},
		{"no t", "v1=" + Sign(vectorSecret, vectorTime, vectorBody), vectorBody, []string{vectorSecret}, now, ErrMalformedHeader},
		{"no v1", "t=1767225600", vectorBody, []string{vectorSecret}, now, ErrMalformedHeader},
		{"two t", "t=1,t=1767225600,v1=" + Sign(vectorSecret, vectorTime, vectorBody), vectorBody, []string{vectorSecret}, now, ErrMalformedHeader},
		{"bad hex", "t=1767225600,v1=zz", vectorBody, []string{vectorSecret}, now, ErrMalformedHeader},
		{"short v1", "t=1767225600,v1=abcd", vectorBody, []string{vectorSecret}, now, ErrMalformedHeader},
		{"t not a number", "t=soon,v1=" + Sign(vectorSecret, vectorTime, vectorBody), vectorBody, []string{vectorSecret}, now, ErrMalformedHeader},
		{"no secrets", Header(vectorTime, vectorBody, vectorSecret), vectorBody, nil, now, ErrNoSecrets},
	}
	for _, tt := range tests {
		if err := Verify(tt.header, tt.body, tt.secrets, tt.now); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("%s: Verify = %v, want %v", tt.name, err, tt.want)
		}
	}
}
