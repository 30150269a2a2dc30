package urlguard

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxLength is the longest accepted URL, in characters, both as sent and
// in canonical form (the API limit for return_url and webhook url).
const MaxLength = 2048

// Options adjusts the reachability part of the policy. The zero value is
// the live-mode policy.
type Options struct {
	// AllowLocal lifts the public-address and internal-name rules; it is
	// set for requests made with a test key. https only, no credentials
	// and no spaces or control characters still apply.
	AllowLocal bool
	// AllowHosts lists hosts accepted despite the public-address and
	// internal-name rules, for local development. Entries are compared
	// exactly after the same canonicalization as URLs ("LOCALHOST." is
	// "localhost", "127.1" is "127.0.0.1"); there are no wildcards.
	AllowHosts []string
	// TestReturn marks a return address given with a test key. payd never
	// connects to a return address; only the browser of the merchant's own
	// developer follows it, to whatever machine that developer runs. So
	// every reachability rule is lifted: the public-address and
	// internal-name rules, the platform rule and the canonical IP spelling
	// ("https://2130706433/" is accepted and stored as
	// "https://127.0.0.1/"). What keeps a URL one URL to every reader
	// still holds: https, no credentials, no white space or control
	// characters, a valid host and port, the length limit. Dialer ignores
	// it; it is never set for an address payd connects to.
	TestReturn bool
}

// Check validates a merchant-supplied URL and returns its canonical form.
// Callers must store and use the returned URL (its String()), never the
// raw input: the canonical form is what was checked.
//
// Check does not resolve names. A public-looking name may resolve to a
// private address now or later, so outgoing connections must also go
// through Dialer (or DialControl).
//
// A refused URL yields an *Error.
func Check(raw string, opts Options) (*url.URL, error) {
	if len(raw) > utf8.UTFMax*MaxLength || utf8.RuneCountInString(raw) > MaxLength {
		return nil, fail(ReasonTooLong, "")
	}
	if !utf8.ValidString(raw) {
		return nil, fail(ReasonMalformed, "invalid UTF-8")
	}
	if hasForbiddenRune(raw) || hasEncodedControlInAuthority(raw) {
		return nil, fail(ReasonControlChars, "")
	}
	u, err := url.Parse(raw)
	if err != nil {
		// err quotes the input; it is deliberately not passed on.
		return nil, fail(ReasonMalformed, "")
	}
	if u.Scheme != "https" { // url.Parse lower-cases the scheme
		return nil, fail(ReasonNotHTTPS, "")
	}
	if u.User != nil || strings.Contains(u.Host, "@") {
		// url.Parse sets User for any "@" in the authority, even "https://@h".
		return nil, fail(ReasonCredentials, "")
	}
	if u.Opaque != "" || u.Host == "" {
		// "https:host/x" and "https:///x" have no authority; browsers
		// would guess one, which is exactly what must not happen here.
		return nil, fail(ReasonNoHost, "")
	}
	hostPart, port, e := splitHostPort(u.Host)
	if e != nil {
		return nil, e
	}
	h, e := canonicalHost(hostPart, strings.HasPrefix(u.Host, "["))
	if e != nil {
		return nil, e
	}
	if !opts.TestReturn {
		if e := canonicalIPSpelling(rawHost(raw), h); e != nil {
			return nil, e
		}
		if e := opts.destinationAllowed(h); e != nil {
			return nil, e
		}
	}

	out := *u
	out.Scheme = "https"
	out.Host = h.name
	if port != "" {
		out.Host += ":" + port
	}
	out.RawQuery = escapeQuery(u.RawQuery)
	if len(out.String()) > MaxLength {
		return nil, fail(ReasonTooLong, "canonical form")
	}
	return &out, nil
}

// splitHostPort separates the host from an optional port and canonicalizes
// the port: leading zeros dropped, the https default 443 omitted, and
// 0 or values above 65535 refused. A colon with no port after it
// ("example.com:") is refused: parsers disagree about it (some read the
// default port, some an error, some port 0) and no real URL needs it.
func splitHostPort(hostport string) (host, port string, e *Error) {
	host = hostport
	colon := false
	if strings.HasPrefix(hostport, "[") {
		i := strings.LastIndex(hostport, "]")
		if i < 0 {
			return "", "", fail(ReasonMalformed, "")
		}
		host, port = hostport[1:i], hostport[i+1:]
		if port != "" && port[0] != ':' {
			return "", "", fail(ReasonMalformed, "")
		}
		port, colon = strings.CutPrefix(port, ":")
	} else if i := strings.LastIndex(hostport, ":"); i >= 0 {
		host, port, colon = hostport[:i], hostport[i+1:], true
	}
	if host == "" {
		return "", "", fail(ReasonNoHost, "")
	}
	if port == "" && colon {
		return "", "", fail(ReasonMalformed, "empty port")
	}
	if port == "" {
		return host, "", nil
	}
	if !allDigits(port) {
		return "", "", fail(ReasonMalformed, "invalid port")
	}
	n, err := strconv.ParseUint(strings.TrimLeft(port, "0"), 10, 16)
	if err != nil || n == 0 {
		return "", "", fail(ReasonMalformed, "invalid port")
	}
	if n == 443 {
		return host, "", nil
	}
	return host, strconv.FormatUint(n, 10), nil
}

// hasForbiddenRune reports spaces (any Unicode white space), control
// characters (C0, DEL, C1) and invisible format characters such as
// zero-width spaces and bidirectional overrides. Browsers silently strip
// tab, CR and LF from URLs, so a URL containing them is read differently
// by the browser and by this package; the others exist to disguise a URL.
func hasForbiddenRune(s string) bool {
	for _, r := range s {
		if r <= ' ' || r == 0x7f || unicode.IsControl(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) {
			return true
		}
	}
	return false
}

// hasEncodedControlInAuthority reports a percent-encoded space or control
// character in the authority ("https://a%0a.com/"), which would otherwise
// surface as a generic parse error.
func hasEncodedControlInAuthority(raw string) bool {
	i := strings.Index(raw, ":")
	if i < 0 || !strings.HasPrefix(raw[i+1:], "//") {
		return false
	}
	auth := raw[i+3:]
	if j := strings.IndexAny(auth, "/?#"); j >= 0 {
		auth = auth[:j]
	}
	for k := 0; k+2 < len(auth); k++ {
		if auth[k] != '%' {
			continue
		}
		hi, ok1 := digitValue(auth[k+1])
		lo, ok2 := digitValue(auth[k+2])
		if b := hi<<4 | lo; ok1 && ok2 && (b <= ' ' || b == 0x7f) {
			return true
		}
	}
	return false
}

// escapeQuery percent-encodes what url.Parse leaves raw in a query but
// browsers encode (the WHATWG special-query set): quotes, angle brackets
// and non-ASCII bytes. The result is safe to place in an HTML attribute
// or a Location header and is unchanged by a second pass.
func escapeQuery(q string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c >= 0x80 || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`' {
			if b.Len() == 0 {
				b.WriteString(q[:i])
			}
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(c)
		}
	}
	if b.Len() == 0 {
		return q
	}
	return b.String()
}

// rawHost returns the host as written in raw, before url.Parse decoded
// percent-escapes, without port and IPv6 brackets. It is called only for
// URLs that parsed with an authority and no userinfo.
func rawHost(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return ""
	}
	auth := raw[i+3:]
	if j := strings.IndexAny(auth, "/?#"); j >= 0 {
		auth = auth[:j]
	}
	if strings.HasPrefix(auth, "[") {
		if j := strings.LastIndex(auth, "]"); j > 0 {
			return auth[1:j]
		}
		return auth
	}
	if j := strings.LastIndex(auth, ":"); j >= 0 {
		auth = auth[:j]
	}
	return auth
}

// canonicalIPSpelling refuses an IP host not written in its canonical
// form, in every mode and even when the address is public. A browser, a
// resolver library, a proxy and a log scanner each read "134744072",
// "0x8.0x8.0x8.0x8", "010.8.8.8" (octal: 8.8.8.8), "8.8.8.8." or
// "１２７．０．０．１" their own way, some as a name, some as another address;
// only the canonical form means one thing to all of them. The canonical
// forms are dotted decimal for IPv4 and RFC 5952 text (lower case, longest
// run of zeros shortened) for IPv6. An IPv4 address written as IPv6
// ("[::ffff:8.8.8.8]", or the deprecated "[::8.8.8.8]") is an IPv4
// address in another notation and is refused the same way.
func canonicalIPSpelling(written string, h host) *Error {
	if !h.addr.IsValid() {
		return nil
	}
	a := h.addr
	if a.Is4In6() || (compatible.Contains(a) && a != ipv6Unspecified && a != ipv6Loopback) {
		b := a.As16()
		return fail(ReasonNonCanonicalIP, "write it as "+netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}).String())
	}
	if written != h.key {
		return fail(ReasonNonCanonicalIP, "write it as "+h.name)
	}
	return nil
}
