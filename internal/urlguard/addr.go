package urlguard

import "net/netip"

// The tables below are the entries of the IANA IPv4 and IPv6
// Special-Purpose Address Registries (RFC 6890 and its updates) that are
// not globally reachable, plus a few ranges that are reachable only through
// an embedded IPv4 address. They are written out rather than taken from
// netip's IsPrivate/IsGlobalUnicast helpers: those answer a different
// question (IsGlobalUnicast is true for 100.64.0.0/10, 198.18.0.0/15 and
// for NAT64 or 6to4 addresses that embed a private IPv4 address).
//
// Entries whose registry "Globally Reachable" column is True for only a
// few single hosts (192.0.0.9, 192.0.0.10, 2001:1::1 ...) are rejected as a
// whole block: no merchant endpoint lives there.

var specialV4 = mustPrefixes(
	"0.0.0.0/8",          // "this network", RFC 791
	"10.0.0.0/8",         // private, RFC 1918
	"100.64.0.0/10",      // shared address space (carrier-grade NAT), RFC 6598
	"127.0.0.0/8",        // loopback
	"169.254.0.0/16",     // link local; cloud metadata services live here
	"172.16.0.0/12",      // private, RFC 1918
	"192.0.0.0/24",       // IETF protocol assignments, RFC 6890
	"192.0.2.0/24",       // documentation TEST-NET-1
	"192.88.99.0/24",     // deprecated 6to4 relay anycast, RFC 7526
	"192.168.0.0/16",     // private, RFC 1918
	"198.18.0.0/15",      // benchmarking, RFC 2544
	"198.51.100.0/24",    // documentation TEST-NET-2
	"203.0.113.0/24",     // documentation TEST-NET-3
	"224.0.0.0/4",        // multicast
	"240.0.0.0/4",        // reserved, RFC 1112
	"255.255.255.255/32", // limited broadcast (inside 240/4, listed for clarity)
)

var specialV6 = mustPrefixes(
	"::/96",          // unspecified, loopback and deprecated IPv4-compatible ::a.b.c.d
	"::ffff:0:0/96",  // IPv4-mapped; handled by unmapping before the table
	"64:ff9b:1::/48", // local-use NAT64, RFC 8215; embedding depends on the local prefix
	"100::/64",       // discard-only, RFC 6666
	"100:0:0:1::/64", // dummy prefix, RFC 9780
	"2001::/23",      // IETF protocol assignments incl. Teredo 2001::/32
	"2001:db8::/32",  // documentation
	"3fff::/20",      // documentation, RFC 9637
	"5f00::/16",      // SRv6 SIDs, RFC 9602
	"fc00::/7",       // unique local
	"fe80::/10",      // link local
	"fec0::/10",      // deprecated site local
	"ff00::/8",       // multicast
)

var (
	// globalV6 is the only IPv6 block IANA allocates for global unicast;
	// anything outside it (and outside the embedding prefixes below) is
	// reserved and not a public destination.
	globalV6 = netip.MustParsePrefix("2000::/3")
	// nat64 is the well-known NAT64 prefix, RFC 6052: the last 32 bits are
	// the IPv4 destination a translator connects to.
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
	// sixToFour is 6to4, RFC 3056: bits 16..47 are the IPv4 relay target.
	sixToFour = netip.MustParsePrefix("2002::/16")
	// compatible holds the deprecated IPv4-compatible addresses ::a.b.c.d
	// (RFC 4291), and :: and ::1 besides.
	compatible = netip.MustParsePrefix("::/96")

	ipv6Unspecified = netip.IPv6Unspecified()
	ipv6Loopback    = netip.IPv6Loopback()
)

// IsPublicAddr reports whether ip is a globally reachable unicast address
// that payd may send traffic to (or send a customer's browser to). Platform
// addresses (IsPlatformAddr) are never public, even where they sit in a
// public range.
//
// IPv4-mapped IPv6 addresses are judged by their IPv4 address; NAT64
// (64:ff9b::/96) and 6to4 (2002::/16) addresses are public only when the
// IPv4 address they embed is public. Addresses with a zone are never public:
// zones only make sense for link-local scopes.
func IsPublicAddr(ip netip.Addr) bool {
	if !ip.IsValid() || ip.Zone() != "" || IsPlatformAddr(ip) {
		return false
	}
	if ip.Is4In6() {
		return IsPublicAddr(ip.Unmap())
	}
	if ip.Is4() {
		return !inAny(specialV4, ip)
	}
	b := ip.As16()
	switch {
	case nat64.Contains(ip):
		return IsPublicAddr(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
	case sixToFour.Contains(ip):
		return IsPublicAddr(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
	}
	return globalV6.Contains(ip) && !inAny(specialV6, ip)
}

func inAny(ps []netip.Prefix, ip netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

func mustPrefixes(ss ...string) []netip.Prefix {
	ps := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		ps[i] = netip.MustParsePrefix(s)
	}
	return ps
}
