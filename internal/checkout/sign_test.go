package checkout

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"testing"
)

// The checkout page's form keeps its bytes across an upgrade, so a page
// open in a payer's browser still posts: the MAC is of "checkout" NUL the
// payment's token.
func TestFormSignature(t *testing.T) {
	t.Parallel()
	const key, token = "forms key", "cht_0123456789abcdefghijklmnopqrstuv"
	want := oldMAC(key, "checkout\x00"+token)
	h := New(nil, []byte(key), slog.New(slog.DiscardHandler))
	if got := h.csrf(token); got != want {
		t.Fatalf("csrf = %s, want %s", got, want)
	}
	cases := []struct {
		name, token, sum string
		ok               bool
	}{
		{"SignedBeforeTheUpgrade", token, want, true},
		{"AnotherPayment", "cht_other", want, false},
		{"BankForm", token, oldMAC(key, "sandbank\x00"+token), false},
		{"LinkForm", token, oldMAC(key, "payment-link\x00"+token), false},
		{"NotHex", token, "zz" + want[2:], false},
		{"Empty", token, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := h.validCSRF(tc.token, tc.sum); got != tc.ok {
				t.Fatalf("validCSRF = %v, want %v", got, tc.ok)
			}
		})
	}
}

// oldMAC is lowercase hex HMAC-SHA256 of msg under key, the computation
// the page's form used before internal/mac signed it.
func oldMAC(key, msg string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(msg))
	return hex.EncodeToString(m.Sum(nil))
}
