package linkpage

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// oldFormMAC is a link page's MAC as computed before internal/mac signed
// them: lowercase hex HMAC-SHA256 of the parts joined by NUL.
func oldFormMAC(key string, parts ...string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(m.Sum(nil))
}

// A link page's form and its cookie keep their bytes across an upgrade:
// a page open in a payer's browser still posts, and a payer who comes
// back with the cookie of an older payd still finds the form it keeps.
func TestFormSignature(t *testing.T) {
	t.Parallel()
	const key, token, entered = "page key", "tok_0123456789abcdefghijklmnopqrstuv", "1500.00"
	h := newHandler()
	csrf := oldFormMAC(key, "payment-link", linkID, token)
	if got := h.csrf(linkID, token); got != csrf {
		t.Fatalf("csrf = %s, want %s", got, csrf)
	}
	cookie := oldFormMAC(key, "payment-link-cookie", linkID, token, entered) + "." + token + "." + entered
	if got := h.formCookie(linkID, token, entered); got != cookie {
		t.Fatalf("formCookie = %s, want %s", got, cookie)
	}

	forms := []struct {
		name, token, sum string
		want             bool
	}{
		{"SignedBeforeTheUpgrade", token, csrf, true},
		{"AnotherToken", "tok_other", csrf, false},
		{"NoToken", "", oldFormMAC(key, "payment-link", linkID, ""), false},
		{"CheckoutForm", token, oldFormMAC(key, "checkout", linkID, token), false},
		{"Cookie", token, oldFormMAC(key, "payment-link-cookie", linkID, token, ""), false},
		{"NotHex", token, "zz" + csrf[2:], false},
		{"Empty", token, "", false},
	}
	for _, tc := range forms {
		t.Run("Form"+tc.name, func(t *testing.T) {
			t.Parallel()
			if got := h.validCSRF(linkID, tc.token, tc.sum); got != tc.want {
				t.Fatalf("validCSRF = %v, want %v", got, tc.want)
			}
		})
	}

	cookies := []struct {
		name, cookie string
		want         bool
	}{
		{"SignedBeforeTheUpgrade", cookie, true},
		{"FormMAC", oldFormMAC(key, "payment-link", linkID, token) + "." + token + ".", false},
		{"AnotherSum", strings.Replace(cookie, entered, "1.00", 1), false},
	}
	for _, tc := range cookies {
		t.Run("Cookie"+tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodGet, "/links/"+linkID, nil)
			r.AddCookie(&http.Cookie{Name: cookieName, Value: tc.cookie})
			gotToken, gotEntered, ok := h.keptForm(r, linkID)
			if ok != tc.want || ok && (gotToken != token || gotEntered != entered) {
				t.Fatalf("keptForm = %q, %q, %v; want %q, %q, %v", gotToken, gotEntered, ok, token, entered, tc.want)
			}
		})
	}
}
