// Package webhook signs and verifies payd's webhook deliveries. A merchant
// imports it to check that a delivery came from payd and was not changed:
//
//	err := webhook.Verify(r.Header.Get("X-Service-Signature"), body, []string{secret}, time.Now())
//
// The signature header is `t=<unix seconds>,v1=<hex>[,v1=<hex>]`: each v1 is
// the lowercase hex HMAC-SHA256, keyed with an endpoint secret, of the
// string `<t>.<raw body>`. For 24 hours after a secret is rotated the header
// carries two v1 values under one t, and either authenticates. The package
// uses the standard library only.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Header names and the user agent of deliveries.
const (
	SignatureHeader = "X-Service-Signature"
	EventIDHeader   = "X-Service-Event-Id"
	UserAgent       = "Service-Webhooks/1.0"
)

// Tolerance is the largest accepted difference between now and t.
const Tolerance = 300 * time.Second

// Errors of Verify; test them with errors.Is.
var (
	// ErrMalformedHeader: the header is missing or not t=...,v1=....
	ErrMalformedHeader = errors.New("webhook: malformed signature header")
	// ErrTimestamp: t is more than Tolerance away from now (a replay or a
	// wrong clock).
	ErrTimestamp = errors.New("webhook: signature timestamp outside the tolerance")
	// ErrNoMatch: no v1 value matches any of the secrets.
	ErrNoMatch = errors.New("webhook: no signature matches")
	// ErrNoSecrets: Verify was called without a secret.
	ErrNoSecrets = errors.New("webhook: no secret to verify with")
)

// Sign returns the v1 signature of body at t with secret.
func Sign(secret string, t time.Time, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(t.Unix(), 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Header builds the signature header for body at t, one v1 per secret.
func Header(t time.Time, body []byte, secrets ...string) string {
	var b strings.Builder
	b.WriteString("t=")
	b.WriteString(strconv.FormatInt(t.Unix(), 10))
	for _, s := range secrets {
		b.WriteString(",v1=")
		b.WriteString(Sign(s, t, body))
	}
	return b.String()
}

// Verify checks a delivery: header is the X-Service-Signature value, body
// the raw request body exactly as received (re-serialised JSON does not
// verify), secrets the endpoint's secrets (two during a rotation), now the
// current time. Every v1 is compared with every secret in constant time.
func Verify(header string, body []byte, secrets []string, now time.Time) error {
	if len(secrets) == 0 {
		return ErrNoSecrets
	}
	var ts int64
	var haveT bool
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return ErrMalformedHeader
		}
		switch k {
		case "t":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || haveT {
				return ErrMalformedHeader
			}
			ts, haveT = n, true
		case "v1":
			b, err := hex.DecodeString(v)
			if err != nil || len(b) != sha256.Size {
				return ErrMalformedHeader
			}
			sigs = append(sigs, b)
		}
		// Unknown schemes are skipped so that a future scheme can be
		// added beside v1.
	}
	if !haveT || len(sigs) == 0 {
		return ErrMalformedHeader
	}
	if d := now.Sub(time.Unix(ts, 0)); d > Tolerance || d < -Tolerance {
		return ErrTimestamp
	}
	t := time.Unix(ts, 0)
	match := false
	for _, secret := range secrets {
		want, _ := hex.DecodeString(Sign(secret, t, body))
		for _, got := range sigs {
			// Keep comparing after a match: the time taken must not
			// depend on which value matched.
			if hmac.Equal(got, want) {
				match = true
			}
		}
	}
	if !match {
		return ErrNoMatch
	}
	return nil
}
