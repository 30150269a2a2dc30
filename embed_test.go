package payd

import (
	"errors"
	"testing"
)

// TestEmbedOriginAllowed: an origin embeds the form only when the shop
// lists it, and a live payment never through a local origin.
func TestEmbedOriginAllowed(t *testing.T) {
	t.Parallel()
	st := ShopSettings{EmbedOrigins: []string{"https://shop.example.com", "http://localhost:3000", "https://localhost:8443"}}
	for _, tc := range []struct {
		origin     string
		test, live bool
	}{
		{"https://shop.example.com", true, true},
		{"http://localhost:3000", true, false},
		{"https://localhost:8443", true, false},
		{"https://other.example.com", false, false},
		{"https://shop.example.com:443", false, false},
		{"http://localhost:3001", false, false},
		{"", false, false},
	} {
		if got := st.EmbedOriginAllowed(tc.origin, true); got != tc.test {
			t.Errorf("test payment, %q: allowed = %v, want %v", tc.origin, got, tc.test)
		}
		if got := st.EmbedOriginAllowed(tc.origin, false); got != tc.live {
			t.Errorf("live payment, %q: allowed = %v, want %v", tc.origin, got, tc.live)
		}
	}
}

// TestValidateEmbedOrigins: the operator's list holds origins written as
// browsers write them, each once, and no more than MaxEmbedOrigins.
func TestValidateEmbedOrigins(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		list  []string
		param string // "" when valid
	}{
		{"Valid", []string{"https://shop.example.com", "http://127.0.0.2:8080"}, ""},
		{"ErrPath", []string{"https://shop.example.com/checkout"}, "embed_origins.0"},
		{"ErrNotCanonical", []string{"https://shop.example.com", "https://Shop.Example.com/"}, "embed_origins.1"},
		{"ErrHTTPPublic", []string{"http://shop.example.com"}, "embed_origins.0"},
		{"ErrWildcard", []string{"https://*.example.com"}, "embed_origins.0"},
		{"ErrTwice", []string{"https://shop.example.com", "https://shop.example.com"}, "embed_origins.1"},
		{"ErrTooMany", make([]string, MaxEmbedOrigins+1), "embed_origins"},
	} {
		err := ShopSettings{EmbedOrigins: tc.list}.Validate()
		if tc.param == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeInvalidRequest || e.Param != tc.param {
			t.Errorf("%s: %v, want invalid_request on %s", tc.name, err, tc.param)
		}
	}
}
