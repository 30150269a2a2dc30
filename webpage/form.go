package webpage

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// FormMAC binds a page's form to what it is for: lowercase hex
// HMAC-SHA256 under key of parts joined by NUL (the page's name first,
// then the ids the form acts on), so a form of one page or object cannot
// act on another and none can be made up without the key.
func FormMAC(key []byte, parts ...string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(m.Sum(nil))
}

// ValidFormMAC reports, in constant time, whether sum is FormMAC of parts.
func ValidFormMAC(key []byte, sum string, parts ...string) bool {
	got, err := hex.DecodeString(sum)
	want, _ := hex.DecodeString(FormMAC(key, parts...))
	return err == nil && hmac.Equal(got, want)
}
