package urlguard

import (
	"errors"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

func FuzzCheck(f *testing.F) {
	for _, c := range checkCases {
		f.Add(c.raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		live, err := Check(raw, Options{})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Check(%q) error %T is not *Error", raw, err)
			}
			if _, known := messages[e.Reason]; !known || hasControl(e.Error()) {
				t.Fatalf("Check(%q): bad error %q (%s)", raw, e.Error(), e.Reason)
			}
		} else {
			assertLiveInvariants(t, raw, live.String())
		}

		local, lerr := Check(raw, Options{AllowLocal: true})
		if err == nil && lerr != nil {
			t.Fatalf("Check(%q): accepted live but refused with AllowLocal: %v", raw, lerr)
		}
		if lerr == nil {
			assertModeInvariants(t, raw, local.String())
		}
		for _, r := range []struct {
			opts Options
			u    string
		}{{Options{}, urlString(live)}, {Options{AllowLocal: true}, urlString(local)}} {
			if r.u == "" {
				continue
			}
			again, err := Check(r.u, r.opts)
			if err != nil {
				t.Fatalf("Check(%q) = %q, but that is refused: %v", raw, r.u, err)
			}
			if again.String() != r.u {
				t.Fatalf("Check(%q) = %q, Check of that = %q", raw, r.u, again.String())
			}
		}
	})
}

func urlString(u *url.URL) string {
	if u == nil {
		return ""
	}
	return u.String()
}

// assertModeInvariants states what every mode guarantees for an accepted
// URL: an IP host is written canonically and is no platform address, and
// a name is no platform name.
func assertModeInvariants(t *testing.T, raw, s string) {
	t.Helper()
	hostname := urlHostname(s)
	if ip, err := netip.ParseAddr(hostname); err == nil {
		if ip.String() != hostname || ip.Is4In6() {
			t.Fatalf("Check(%q) = %q: IP host not in canonical form", raw, s)
		}
		if IsPlatformAddr(ip) {
			t.Fatalf("Check(%q) = %q: platform address", raw, s)
		}
		return
	}
	if isPlatformName(hostname) {
		t.Fatalf("Check(%q) = %q: platform name", raw, s)
	}
}

// urlHostname is the host of a canonical URL without brackets and port.
func urlHostname(s string) string {
	rest := strings.TrimPrefix(s, "https://")
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if strings.HasPrefix(rest, "[") {
		return rest[1:strings.Index(rest, "]")]
	}
	if i := strings.LastIndex(rest, ":"); i >= 0 {
		return rest[:i]
	}
	return rest
}

// assertLiveInvariants states what live mode guarantees for an accepted
// URL, independently of how Check reaches it.
func assertLiveInvariants(t *testing.T, raw, s string) {
	t.Helper()
	if len(s) > MaxLength {
		t.Fatalf("Check(%q) = %q: longer than %d", raw, s, MaxLength)
	}
	if !strings.HasPrefix(s, "https://") {
		t.Fatalf("Check(%q) = %q: not https", raw, s)
	}
	if hasForbiddenRune(s) {
		t.Fatalf("Check(%q) = %q: control or space characters", raw, s)
	}
	rest := s[len("https://"):]
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if strings.Contains(rest, "@") {
		t.Fatalf("Check(%q) = %q: userinfo", raw, s)
	}
	hostname := rest
	if strings.HasPrefix(rest, "[") {
		hostname = rest[1:strings.Index(rest, "]")]
	} else if i := strings.LastIndex(rest, ":"); i >= 0 {
		hostname = rest[:i]
	}
	assertModeInvariants(t, raw, s)
	if ip, err := netip.ParseAddr(hostname); err == nil {
		if !IsPublicAddr(ip) {
			t.Fatalf("Check(%q) = %q: host is not a public address", raw, s)
		}
		return
	}
	if ip, ok := parseWHATWGIPv4(hostname); ok {
		t.Fatalf("Check(%q) = %q: numeric host %s not canonicalized", raw, s, ip)
	}
	if isInternalName(hostname) {
		t.Fatalf("Check(%q) = %q: internal name", raw, s)
	}
}
