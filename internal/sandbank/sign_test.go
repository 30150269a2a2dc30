package sandbank

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

// oldMAC is lowercase hex HMAC-SHA256 of msg under key, the computation
// the bank's forms and notifications used before internal/mac signed them.
func oldMAC(key, msg string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(msg))
	return hex.EncodeToString(m.Sum(nil))
}

// A bank page's form keeps its bytes across an upgrade, so a page open in
// a payer's browser still posts: "sandbank" NUL the attempt's id.
func TestFormSignature(t *testing.T) {
	t.Parallel()
	const key, id = "forms key", "sbx_01J0000000000000000000000A"
	p := NewPages(nil, []byte(key), nil)
	sum := oldMAC(key, "sandbank\x00"+id)
	if got := p.csrf(id); got != sum {
		t.Fatalf("csrf = %s, want %s", got, sum)
	}
	cases := []struct {
		name, csrf, id string
		want           bool
	}{
		{"SignedBeforeTheUpgrade", sum, id, true},
		{"AnotherAttempt", sum, "sbx_01J0000000000000000000000B", false},
		{"CheckoutForm", oldMAC(key, "checkout\x00"+id), id, false},
		{"AnotherKey", oldMAC("other key", "sandbank\x00"+id), id, false},
		{"NotHex", "zz" + sum[2:], id, false},
		{"Empty", "", id, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodPost, "/sandbox/bank/"+tc.id, strings.NewReader(url.Values{"csrf": {tc.csrf}}.Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if got := p.csrfOK(r, tc.id); got != tc.want {
				t.Fatalf("csrfOK = %v, want %v", got, tc.want)
			}
		})
	}
}

// A notification keeps its bytes across an upgrade, so the ones queued
// before it are still taken: the MAC is of the payload alone.
func TestNotificationSignature(t *testing.T) {
	t.Parallel()
	const key = "notify key"
	b := New("sandbank", []byte(key), nil, nil, "")
	payload, err := json.Marshal(envelope{Provider: "sandbank", SentAt: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC),
		Event: payd.Notification{ID: "ntf_1", ProviderPaymentID: "sbx_1", Kind: "payment"}})
	if err != nil {
		t.Fatal(err)
	}
	sig := oldMAC(key, string(payload))
	if got := b.sign(payload); got != sig {
		t.Fatalf("sign = %s, want %s", got, sig)
	}
	cases := []struct {
		name, sig string
		payload   []byte
		ok        bool
	}{
		{"SignedBeforeTheUpgrade", sig, payload, true},
		{"UpperCaseHex", strings.ToUpper(sig), payload, true},
		{"AnotherPayload", sig, []byte(strings.Replace(string(payload), "ntf_1", "ntf_2", 1)), false},
		{"AnotherKey", oldMAC("other key", string(payload)), payload, false},
		{"Labelled", oldMAC(key, "sandbank\x00"+string(payload)), payload, false},
		{"NotHex", "zz" + sig[2:], payload, false},
		{"Empty", "", payload, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n, err := b.VerifyNotification(tc.payload, tc.sig)
			switch {
			case tc.ok && (err != nil || n.ID != "ntf_1"):
				t.Fatalf("VerifyNotification: %v, %v; want notification ntf_1", n, err)
			case !tc.ok && (err == nil || err.Error() != "bad signature"):
				t.Fatalf("VerifyNotification: %v, %v; want bad signature", n, err)
			}
		})
	}
}
