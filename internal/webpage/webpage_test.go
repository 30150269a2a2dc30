package webpage

import (
	"net/http"
	"testing"
)

// TestSetFramedHeaders: a page of an embedded form may be framed by its
// one origin and run payd's own script; anything that is not a plain
// origin leaves the page unframeable, as every other payer page.
func TestSetFramedHeaders(t *testing.T) {
	t.Parallel()
	const never = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'"
	for _, tc := range []struct {
		origin, csp string
		xfo         bool
	}{
		{"https://shop.example.com", "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; frame-ancestors https://shop.example.com; base-uri 'none'", false},
		{"http://127.0.0.2:8080", "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; frame-ancestors http://127.0.0.2:8080; base-uri 'none'", false},
		{"", never, true},
		{"https://shop.example.com; script-src *", never, true},
		{"https://shop.example.com https://evil.example", never, true},
		{"*", never, true},
		{"'self'", never, true},
		{"data:", never, true},
	} {
		h := http.Header{}
		SetFramedHeaders(h, tc.origin)
		if got := h.Get("Content-Security-Policy"); got != tc.csp {
			t.Errorf("%q: CSP %q, want %q", tc.origin, got, tc.csp)
		}
		if got := h.Get("X-Frame-Options") == "DENY"; got != tc.xfo {
			t.Errorf("%q: X-Frame-Options DENY = %v, want %v", tc.origin, got, tc.xfo)
		}
	}
}
