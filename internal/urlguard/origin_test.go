package urlguard

import "testing"

func TestCheckOrigin(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		raw    string
		want   string // serialized origin; empty when refused
		local  bool
		reason Reason
	}{
		{raw: "https://shop.example.com", want: "https://shop.example.com"},
		{raw: "https://shop.example.com/", want: "https://shop.example.com"},
		{raw: "HTTPS://Shop.Example.COM:443", want: "https://shop.example.com"},
		{raw: "https://shop.example.com:8443", want: "https://shop.example.com:8443"},
		{raw: "https://магазин.рф", want: "https://xn--80aairftm.xn--p1ai"},
		{raw: "https://localhost:3000", want: "https://localhost:3000", local: true},
		{raw: "https://10.0.0.5", want: "https://10.0.0.5", local: true},
		{raw: "http://localhost:8080", want: "http://localhost:8080", local: true},
		{raw: "http://127.0.0.2:5000", want: "http://127.0.0.2:5000", local: true},
		{raw: "http://127.0.0.1:80", want: "http://127.0.0.1", local: true},
		{raw: "http://127.0.0.1:443", want: "http://127.0.0.1:443", local: true},
		{raw: "http://[::1]:9000", want: "http://[::1]:9000", local: true},
		{raw: "http://dev.localhost:9000", want: "http://dev.localhost:9000", local: true},
		{raw: "http://shop.example.com", reason: ReasonNotHTTPS},
		{raw: "http://10.0.0.5:8080", reason: ReasonNotHTTPS},
		{raw: "ftp://shop.example.com", reason: ReasonNotHTTPS},
		{raw: "https://shop.example.com/pay", reason: ReasonMalformed},
		{raw: "https://shop.example.com?x=1", reason: ReasonMalformed},
		{raw: "https://shop.example.com#x", reason: ReasonMalformed},
		{raw: "https://shop.example.com/#", reason: ReasonMalformed},
		{raw: "https://*.example.com", reason: ReasonMalformed},
		{raw: "https://shop.example.com:*", reason: ReasonMalformed},
		{raw: "https://user@shop.example.com", reason: ReasonCredentials},
		{raw: "https://169.254.169.254", reason: ReasonPlatformAddress},
		{raw: "https://2130706433", reason: ReasonNonCanonicalIP},
		{raw: "https://shop.example.com:", reason: ReasonMalformed},
		{raw: "https:// shop.example.com", reason: ReasonControlChars},
		{raw: "shop.example.com", reason: ReasonNotHTTPS},
		{raw: "null", reason: ReasonNotHTTPS},
	} {
		got, err := CheckOrigin(tt.raw)
		if tt.want == "" {
			var e *Error
			if err == nil {
				t.Errorf("CheckOrigin(%q) = %+v, want refusal %s", tt.raw, got, tt.reason)
			} else if e, _ = err.(*Error); e == nil || e.Reason != tt.reason {
				t.Errorf("CheckOrigin(%q) error %v, want reason %s", tt.raw, err, tt.reason)
			}
			continue
		}
		if err != nil {
			t.Errorf("CheckOrigin(%q): %v", tt.raw, err)
			continue
		}
		if got.Serialized != tt.want || got.Local != tt.local {
			t.Errorf("CheckOrigin(%q) = %+v, want %q local=%v", tt.raw, got, tt.want, tt.local)
		}
	}
}
