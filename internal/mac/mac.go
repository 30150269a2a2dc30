// Package mac signs values the service hands out and checks them when they
// come back: links with an expiry (settlement reports, evidence uploads),
// the forms of the payer pages, the sandbox bank's notifications. It is the
// one place that computes or compares such a signature.
//
// A signature is the lowercase hex HMAC-SHA256, under a key, of a label
// and the signed parts, each followed by the next after a NUL byte:
//
//	label NUL part1 NUL part2 ...
//
// No part may hold a NUL byte, so the message reads back as exactly one
// label and list of parts. The label names what the signature is for
// ("evidence-upload", "checkout"), so a value signed for one purpose never
// passes for another under the same key.
//
// An empty label adds nothing, and the message is the parts alone: report
// links and provider notifications were signed that way before labels,
// and links already issued and notifications already queued must keep
// their signatures. Such a message has no label to tell it apart, only its
// number of fields: an unlabelled Signer may share its key only with
// Signers whose messages have another number of fields (report links sign
// two, id and expiry; evidence upload links, under the same key, three
// with their label).
//
// The package uses the standard library only and never reads the clock:
// an expiry is checked against the now its caller passes.
package mac

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// Signer signs and checks the values of one purpose under one key. The
// zero Signer signs with an empty key and no label; make one with New.
type Signer struct {
	key   []byte
	label string
}

// New returns the Signer of the values labelled label under key. A label
// holding a NUL would blur where it ends, and panics: labels are constants
// of the code, not input.
func New(key []byte, label string) Signer {
	if strings.IndexByte(label, 0) >= 0 {
		panic("mac: label holds a NUL byte")
	}
	return Signer{key: key, label: label}
}

// Sign returns the lowercase hex signature of parts. When a part holds a
// NUL byte it returns the empty string, which Verify never accepts: such
// parts would read as other parts once joined.
func (s Signer) Sign(parts ...string) string {
	sum, ok := s.sum(parts)
	if !ok {
		return ""
	}
	return hex.EncodeToString(sum)
}

// Verify reports whether sig is the signature of parts, comparing in
// constant time. sig is hex (upper or lower case); a sig that is not, and
// parts of which one holds a NUL byte, never verify.
func (s Signer) Verify(sig string, parts ...string) bool {
	got, err := hex.DecodeString(sig)
	if err != nil {
		return false
	}
	want, ok := s.sum(parts)
	return ok && hmac.Equal(got, want)
}

// SignExpiring signs a link to id that works until exp, to the second. It
// returns the link's two query values: expires, exp in Unix seconds, and
// sig, the signature of id and expires.
func (s Signer) SignExpiring(id string, exp time.Time) (expires, sig string) {
	expires = strconv.FormatInt(exp.Unix(), 10)
	return expires, s.Sign(id, expires)
}

// VerifyExpiring reports whether expires and sig, a link's query values,
// are ones SignExpiring gave for id and whether the link still works at
// now: it does up to and including the second expires names.
func (s Signer) VerifyExpiring(id, expires, sig string, now time.Time) bool {
	n, err := strconv.ParseInt(expires, 10, 64)
	return err == nil && s.Verify(sig, id, expires) && now.Unix() <= n
}

// sum is the HMAC of the label and parts, or false when a part holds a
// NUL byte.
func (s Signer) sum(parts []string) ([]byte, bool) {
	m := hmac.New(sha256.New, s.key)
	if s.label != "" {
		m.Write([]byte(s.label))
		m.Write([]byte{0})
	}
	for i, p := range parts {
		if strings.IndexByte(p, 0) >= 0 {
			return nil, false
		}
		if i > 0 {
			m.Write([]byte{0})
		}
		m.Write([]byte(p))
	}
	return m.Sum(nil), true
}
