package urlguard

import (
	"net/netip"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// hostProfile maps a host to its ASCII (A-label) form the way a lookup
// does (UTS #46 non-transitional processing): full-width, circled and
// upper-case letters are folded, so "ｌｏｃａｌｈｏｓｔ" and "ⓛⓞⓒⓐⓛⓗⓞⓢⓣ"
// become "localhost" before the internal-name rule sees them. The options
// are spelled out instead of using idna.Lookup so that a library update
// cannot silently change the mapping. StrictDomainName limits the ASCII
// result to letters, digits and hyphen; no publicly trusted certificate can
// name a host with other characters, and https is mandatory.
var hostProfile = idna.New(
	idna.MapForLookup(),
	idna.Transitional(false),
	idna.BidiRule(),
	idna.StrictDomainName(true),
)

// host is a canonical host.
type host struct {
	// name is the host as written in a canonical URL: lower-case A-labels
	// without a trailing dot, a dotted-quad IPv4 address, or a bracketed
	// IPv6 address.
	name string
	// key is name without IPv6 brackets; AllowHosts entries are compared
	// with it.
	key string
	// addr is the address when the host is an IP literal in any notation.
	addr netip.Addr
}

// canonicalHost canonicalizes a host without port. ipv6 says the host was
// written in brackets (or, at dial time, contains a colon).
func canonicalHost(h string, ipv6 bool) (host, *Error) {
	if h == "" {
		return host{}, fail(ReasonNoHost, "")
	}
	if hasForbiddenRune(h) {
		return host{}, fail(ReasonControlChars, "")
	}
	if ipv6 {
		if strings.Contains(h, "%") {
			return host{}, fail(ReasonMalformed, "IPv6 zone identifiers are not allowed")
		}
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is6() {
			return host{}, fail(ReasonMalformed, "invalid IPv6 address")
		}
		return host{name: "[" + a.String() + "]", key: a.String(), addr: a}, nil
	}
	if !utf8.ValidString(h) {
		// Percent-decoding can leave bytes that are not UTF-8
		// ("%80"); the IDNA mapping would replace them silently.
		return host{}, fail(ReasonMalformed, "invalid host name")
	}
	ascii, err := hostProfile.ToASCII(h)
	if err != nil {
		return host{}, fail(ReasonMalformed, "invalid host name")
	}
	ascii = strings.ToLower(ascii)
	// The A-label form must itself be valid input that maps to itself;
	// otherwise the canonical URL would be refused when checked again.
	if again, err := hostProfile.ToASCII(ascii); err != nil || strings.ToLower(again) != ascii {
		return host{}, fail(ReasonMalformed, "invalid host name")
	}
	// A host that ends in a number is an IPv4 address to a browser, in
	// any of the notations parseWHATWGIPv4 accepts; if it does not parse,
	// browsers refuse it, and so do we.
	if endsInNumber(ascii) {
		a, ok := parseWHATWGIPv4(ascii)
		if !ok {
			return host{}, fail(ReasonMalformed, "invalid IPv4 address")
		}
		return host{name: a.String(), key: a.String(), addr: a}, nil
	}
	// "example.com." and "example.com" are the same host; dropping the
	// root label keeps the internal-name and AllowHosts comparisons exact.
	ascii = strings.TrimSuffix(ascii, ".")
	if !validDNSName(ascii) {
		return host{}, fail(ReasonMalformed, "invalid host name")
	}
	return host{name: ascii, key: ascii}, nil
}

// validDNSName checks the result of the IDNA mapping once more, so that
// the guarantees below do not rest on library options alone: 1..253
// characters, labels of 1..63 letters, digits and inner hyphens.
func validDNSName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// internalSuffixes are special-use or de-facto private names (RFC 6761,
// RFC 6762, RFC 8375, RFC 9476, ICANN's reservation of .internal, and
// names common on corporate networks). None resolves on the public
// Internet; on the service's own network some of them would.
var internalSuffixes = []string{
	"localhost", "local", "localdomain", "internal", "intranet", "lan",
	"home", "corp", "home.arpa", "in-addr.arpa", "ip6.arpa",
	"test", "example", "invalid", "onion", "alt",
}

// isInternalName reports whether name (canonical, not an IP) is an
// internal name. A single label without a dot ("intranet") is completed
// by resolver search domains, so it is internal as well.
func isInternalName(name string) bool {
	if !strings.Contains(name, ".") {
		return true
	}
	for _, s := range internalSuffixes {
		if name == s || strings.HasSuffix(name, "."+s) {
			return true
		}
	}
	return false
}

// destinationAllowed applies the reachability rules to a canonical host.
// The platform rule comes first: no mode and no allow-list lifts it.
func (o Options) destinationAllowed(h host) *Error {
	if IsPlatformAddr(h.addr) || (!h.addr.IsValid() && isPlatformName(h.name)) {
		return fail(ReasonPlatformAddress, "host "+h.key)
	}
	if o.AllowLocal || o.hostAllowed(h.key) {
		return nil
	}
	if h.addr.IsValid() {
		if !IsPublicAddr(h.addr) {
			return fail(ReasonPrivateAddress, "host "+h.key)
		}
		return nil
	}
	if isInternalName(h.name) {
		return fail(ReasonInternalName, "host "+h.key)
	}
	return nil
}

// hostAllowed reports whether key equals a canonicalized AllowHosts entry.
// Entries go through the same canonicalization as URLs, so "LocalHost.",
// "127.1" and "[::1]" in configuration match what Check produces.
func (o Options) hostAllowed(key string) bool {
	for _, e := range o.AllowHosts {
		ipv6 := strings.Contains(e, ":")
		if ipv6 {
			e = strings.TrimSuffix(strings.TrimPrefix(e, "["), "]")
		}
		h, err := canonicalHost(e, ipv6)
		if err == nil && h.key == key {
			return true
		}
	}
	return false
}
