package webpage

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func TestFormMAC(t *testing.T) {
	key := []byte("page key")
	// The form of a page already open in a browser stays valid across
	// an upgrade: the MAC is of the parts joined by NUL.
	m := hmac.New(sha256.New, key)
	m.Write([]byte("payment-link\x00pl_1\x00tok"))
	if got, want := FormMAC(key, "payment-link", "pl_1", "tok"), hex.EncodeToString(m.Sum(nil)); got != want {
		t.Fatalf("FormMAC = %s, want %s", got, want)
	}
	sum := FormMAC(key, "payment-link", "pl_1", "tok")
	cases := []struct {
		name  string
		key   []byte
		sum   string
		parts []string
		want  bool
	}{
		{"its own form", key, sum, []string{"payment-link", "pl_1", "tok"}, true},
		{"another link", key, sum, []string{"payment-link", "pl_2", "tok"}, false},
		{"another page", key, sum, []string{"checkout", "pl_1", "tok"}, false},
		{"another key", []byte("other"), sum, []string{"payment-link", "pl_1", "tok"}, false},
		{"not hex", key, "zz" + sum[2:], []string{"payment-link", "pl_1", "tok"}, false},
		{"empty", key, "", []string{"payment-link", "pl_1", "tok"}, false},
	}
	for _, c := range cases {
		if got := ValidFormMAC(c.key, c.sum, c.parts...); got != c.want {
			t.Errorf("%s: ValidFormMAC = %v, want %v", c.name, got, c.want)
		}
	}
}
