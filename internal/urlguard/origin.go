package urlguard

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// Origin is a web origin a merchant's page is served from: scheme, host
// and port, serialized as browsers serialize it (lower-case scheme, the
// host's canonical A-label or IP form, no default port, no trailing
// slash), so that it compares byte for byte with a Referer's origin, a
// postMessage event's origin and a frame-ancestors source.
type Origin struct {
	// Serialized is the origin as a browser writes it.
	Serialized string
	// Local is an origin on the developer's own machine: an http origin
	// (which CheckOrigin accepts only on loopback) or an https origin
	// whose host is not public (localhost, a private or loopback
	// address, an internal name). Only test payments may use it.
	Local bool
}

// maxOriginLength bounds an origin: a host name is at most 253 characters,
// and scheme and port add a few.
const maxOriginLength = 300

// CheckOrigin validates an origin a merchant declares (the pages that may
// frame the payment form) and returns its serialized form. It accepts
// https origins, and http origins whose host is loopback (localhost,
// *.localhost, 127.0.0.0/8, [::1]), since browsers treat those as secure
// contexts and developers serve their pages from them. It refuses
// anything beyond an origin (a path other than "/", a query, a fragment,
// credentials), other schemes, wildcards, and platform addresses in every
// mode. A refused origin yields an *Error.
func CheckOrigin(raw string) (Origin, error) {
	if len(raw) > maxOriginLength || !utf8.ValidString(raw) {
		return Origin{}, fail(ReasonMalformed, "not an origin")
	}
	if hasForbiddenRune(raw) || hasEncodedControlInAuthority(raw) {
		return Origin{}, fail(ReasonControlChars, "")
	}
	if strings.Contains(raw, "*") {
		return Origin{}, fail(ReasonMalformed, "wildcards are not allowed in an origin")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Origin{}, fail(ReasonMalformed, "")
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return Origin{}, fail(ReasonNotHTTPS, "")
	}
	if u.User != nil || strings.Contains(u.Host, "@") {
		return Origin{}, fail(ReasonCredentials, "")
	}
	if u.Opaque != "" || u.Host == "" {
		return Origin{}, fail(ReasonNoHost, "")
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(raw, "#") {
		return Origin{}, fail(ReasonMalformed, "an origin has no path, query or fragment")
	}
	hostPart, port, e := splitHostPort(u.Host)
	if e != nil {
		return Origin{}, e
	}
	h, e := canonicalHost(hostPart, strings.HasPrefix(u.Host, "["))
	if e != nil {
		return Origin{}, e
	}
	if e := canonicalIPSpelling(rawHost(raw), h); e != nil {
		return Origin{}, e
	}
	// The platform rule holds in every mode; the public-address rule
	// decides only whether the origin is local.
	public := Options{}.destinationAllowed(h)
	if public != nil && public.Reason == ReasonPlatformAddress {
		return Origin{}, public
	}
	if u.Scheme == "http" {
		// splitHostPort drops 443, the https default; for http it is a
		// port like any other, and 80 is the default instead.
		switch {
		case port == "" && strings.HasSuffix(u.Host, ":443"):
			port = "443"
		case port == "80":
			port = ""
		}
		if !loopbackHost(h) {
			return Origin{}, fail(ReasonNotHTTPS, "http only on loopback (localhost, 127.0.0.0/8, [::1])")
		}
	}
	s := u.Scheme + "://" + h.name
	if port != "" {
		s += ":" + port
	}
	return Origin{Serialized: s, Local: u.Scheme == "http" || public != nil}, nil
}

// loopbackHost reports a host that always means this machine.
func loopbackHost(h host) bool {
	if h.addr.IsValid() {
		return h.addr.Unmap().IsLoopback()
	}
	return h.name == "localhost" || strings.HasSuffix(h.name, ".localhost")
}
