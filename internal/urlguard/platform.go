package urlguard

import (
	"net/netip"
	"strings"
)

// Platform addresses are where a cloud or hosting platform answers the
// machine it runs: instance metadata (with credentials), the wire server,
// platform DNS and time. A request there from payd's own network hands an
// attacker the service's cloud credentials, and none of them is a place a
// merchant's endpoint or a payer's return page can live. So, unlike the
// other reachability rules, these are refused in every mode: with a test
// key, with Options.AllowLocal and despite Options.AllowHosts. Several sit
// in ranges that IsPublicAddr would otherwise call public (168.63.129.16).
// docs/security.md carries the same table.
var platformV4 = mustPrefixes(
	// All of link local: 169.254.169.254 is the metadata service of AWS,
	// GCP, Azure, Oracle, OpenStack, DigitalOcean, Hetzner, Yandex Cloud
	// and others; AWS also has 169.254.169.253 (DNS), 169.254.169.123
	// (time), 169.254.170.2 (ECS task metadata), 169.254.170.23 (EKS pod
	// identity); Scaleway 169.254.42.42; Tencent Cloud 169.254.0.23.
	"169.254.0.0/16",
	"168.63.129.16/32",   // Azure wire server and platform DNS (a public range)
	"100.100.100.200/32", // Alibaba Cloud metadata
	"192.0.0.192/32",     // Oracle Cloud metadata (legacy address)
)

var platformV6 = mustPrefixes(
	"fe80::/10",        // link local; OpenStack metadata at fe80::a9fe:a9fe
	"fd00:ec2::/64",    // AWS: metadata fd00:ec2::254, DNS ::253, time ::123, EKS pod identity ::23
	"fd20:ce::254/128", // GCP metadata over IPv6
	"fd00:42::42/128",  // Scaleway metadata over IPv6
)

// platformNames are the names under which platforms publish their
// metadata service. Each is refused with all its subdomains. Names that
// resolve to a platform address are also refused at connect time.
var platformNames = []string{
	"metadata.google.internal", // GCP and Yandex Cloud
	"metadata",                 // GCP's short name, completed by the search domain
	"metadata.goog",            // GCP
	"instance-data",            // AWS's short name
	"instance-data.ec2.internal",
	"metadata.tencentyun.com", // Tencent Cloud, resolves to 169.254.0.23
}

// nat64Local is the local-use NAT64 prefix of RFC 8215. Its operator
// chooses the prefix length, and with it where the IPv4 address sits.
var nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")

// teredo is 2001::/32, RFC 4380: the server's IPv4 address in bits 32..63
// and the client's, inverted, in the last 32 bits.
var teredo = netip.MustParsePrefix("2001::/32")

// IsPlatformAddr reports whether ip is a link-local or cloud platform
// address (see platformV4 and platformV6), written directly or embedded in
// an IPv6 address: IPv4-mapped (::ffff:a9fe:a9fe), IPv4-compatible,
// NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48), 6to4 (2002::/16)
// or Teredo. payd never connects to such an address and never sends a
// browser there, whatever the mode or allow-list.
func IsPlatformAddr(ip netip.Addr) bool {
	if !ip.IsValid() {
		return false
	}
	ip = ip.WithZone("")
	if ip.Is4In6() {
		ip = ip.Unmap()
	}
	if ip.Is4() {
		return inAny(platformV4, ip)
	}
	if inAny(platformV6, ip) {
		return true
	}
	for _, v4 := range embeddedV4(ip) {
		if inAny(platformV4, v4) {
			return true
		}
	}
	return false
}

// embeddedV4 returns the IPv4 addresses an IPv6 address can carry to a
// translator or tunnel, by every embedding this package knows. A false
// candidate costs nothing: the ranges that embed are refused in live mode
// anyway, except the well-known NAT64 and 6to4 prefixes, whose position is
// fixed.
func embeddedV4(ip netip.Addr) []netip.Addr {
	b := ip.As16()
	at := func(i ...int) netip.Addr {
		return netip.AddrFrom4([4]byte{b[i[0]], b[i[1]], b[i[2]], b[i[3]]})
	}
	switch {
	case compatible.Contains(ip), nat64.Contains(ip):
		return []netip.Addr{at(12, 13, 14, 15)}
	case nat64Local.Contains(ip):
		// RFC 6052 positions for the prefix lengths /48, /56, /64 and /96
		// (bits 64..71 are always zero, so they are skipped).
		return []netip.Addr{at(6, 7, 9, 10), at(7, 9, 10, 11), at(9, 10, 11, 12), at(12, 13, 14, 15)}
	case sixToFour.Contains(ip):
		return []netip.Addr{at(2, 3, 4, 5)}
	case teredo.Contains(ip):
		client := netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})
		return []netip.Addr{at(4, 5, 6, 7), client}
	}
	return nil
}

// isPlatformName reports whether a canonical name is a platform's
// metadata name or under one.
func isPlatformName(name string) bool {
	for _, n := range platformNames {
		if name == n || strings.HasSuffix(name, "."+n) {
			return true
		}
	}
	return false
}
