package urlguard

import (
	"net/netip"
	"testing"
)

func TestIsPublicAddr(t *testing.T) {
	for _, c := range []struct {
		ip     string
		public bool
	}{
		// IPv4: both edges of each range and the neighbours just outside.
		{"0.0.0.0", false}, {"0.255.255.255", false}, {"1.0.0.0", true},
		{"9.255.255.255", true}, {"10.0.0.0", false}, {"10.255.255.255", false}, {"11.0.0.0", true},
		{"100.63.255.255", true}, {"100.64.0.0", false}, {"100.127.255.255", false}, {"100.128.0.0", true},
		{"126.255.255.255", true}, {"127.0.0.0", false}, {"127.0.0.1", false}, {"127.255.255.255", false}, {"128.0.0.0", true},
		{"169.253.255.255", true}, {"169.254.0.0", false}, {"169.254.169.254", false}, {"169.254.255.255", false}, {"169.255.0.0", true},
		{"172.15.255.255", true}, {"172.16.0.0", false}, {"172.31.255.255", false}, {"172.32.0.0", true},
		{"191.255.255.255", true}, {"192.0.0.0", false}, {"192.0.0.255", false}, {"192.0.1.0", true},
		{"192.0.2.0", false}, {"192.0.2.255", false}, {"192.0.3.0", true},
		{"192.88.98.255", true}, {"192.88.99.0", false}, {"192.88.99.255", false}, {"192.88.100.0", true},
		{"192.167.255.255", true}, {"192.168.0.0", false}, {"192.168.255.255", false}, {"192.169.0.0", true},
		{"198.17.255.255", true}, {"198.18.0.0", false}, {"198.19.255.255", false}, {"198.20.0.0", true},
		{"198.51.99.255", true}, {"198.51.100.0", false}, {"198.51.100.255", false}, {"198.51.101.0", true},
		{"203.0.112.255", true}, {"203.0.113.0", false}, {"203.0.113.255", false}, {"203.0.114.0", true},
		{"223.255.255.255", true}, {"224.0.0.0", false}, {"239.255.255.255", false},
		{"240.0.0.0", false}, {"255.255.255.254", false}, {"255.255.255.255", false},
		{"8.8.8.8", true}, {"1.1.1.1", true}, {"77.88.8.8", true},

		// IPv6 special-purpose ranges.
		{"::", false}, {"::1", false}, {"::2", false},
		{"::8.8.8.8", false}, // deprecated IPv4-compatible form
		{"::ffff:8.8.8.8", true}, {"::ffff:127.0.0.1", false}, {"::ffff:10.0.0.1", false}, {"::ffff:0.0.0.0", false},
		{"64:ff9b::8.8.8.8", true}, {"64:ff9b::127.0.0.1", false}, {"64:ff9b::10.1.2.3", false},
		{"64:ff9b::100.64.0.1", false}, {"64:ff9b::198.18.0.1", false}, {"64:ff9b::", false},
		{"64:ff9b:1::", false}, {"64:ff9b:1::808:808", false}, {"64:ff9b:1:ffff:ffff:ffff:ffff:ffff", false},
		{"100::", false}, {"100::ffff:ffff:ffff:ffff", false}, {"100:0:0:1::1", false},
		{"1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false}, {"2000::", true},
		{"2001::", false}, {"2001::1", false}, {"2001:0:4136:e378:8000:63bf:3fff:fdd2", false}, // Teredo
		{"2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", false}, {"2001:200::", true},
		{"2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", true}, {"2001:db8::", false},
		{"2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", false}, {"2001:db9::", true},
		{"2002::", false}, {"2002:808:808::1", true}, {"2002:7f00:1::", false}, {"2002:a00:1::", false},
		{"2002:c0a8:101::1", false}, {"2002:6440:1::", false}, {"2002:ffff:ffff::", false},
		{"2606:4700:4700::1111", true}, {"2a00:1450:4001:81b::200e", true},
		{"3fff::", false}, {"3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", false}, {"3fff:1000::", true},
		{"4000::", false}, {"5f00::1", false},
		{"fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false}, {"fc00::", false},
		{"fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false}, {"fe80::", false},
		{"febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false}, {"fec0::1", false},
		{"ff00::", false}, {"ff02::1", false}, {"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false},

		// Platform addresses are not public, also where their range is.
		{"168.63.129.16", false}, {"168.63.129.15", true}, {"168.63.129.17", true},
		{"64:ff9b::a83f:8110", false}, {"2002:a83f:8110::1", false}, {"::ffff:168.63.129.16", false},

		// Zones are never public, not even on a global address.
		{"fe80::1%eth0", false}, {"2606:4700:4700::1111%eth0", false},
	} {
		ip := netip.MustParseAddr(c.ip)
		if got := IsPublicAddr(ip); got != c.public {
			t.Errorf("IsPublicAddr(%s) = %v, want %v", c.ip, got, c.public)
		}
	}
	if IsPublicAddr(netip.Addr{}) {
		t.Error("the zero Addr is public")
	}
}

// TestIsPublicAddrStricterThanNetip pins the cases where netip's helpers
// would give the wrong answer, so nobody "simplifies" the table away.
func TestIsPublicAddrStricterThanNetip(t *testing.T) {
	for _, s := range []string{"100.64.0.1", "198.18.0.1", "192.0.2.1", "64:ff9b::a00:1", "2002:a00:1::", "2001:db8::1"} {
		ip := netip.MustParseAddr(s)
		if !ip.IsGlobalUnicast() || ip.IsPrivate() {
			t.Fatalf("%s: netip changed; review this test", s)
		}
		if IsPublicAddr(ip) {
			t.Errorf("IsPublicAddr(%s) = true", s)
		}
	}
}

func TestParseWHATWGIPv4(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // "" means not an IPv4 host
	}{
		{"0", "0.0.0.0"}, {"0x", "0.0.0.0"}, {"0X", "0.0.0.0"}, {"00", "0.0.0.0"},
		{"4294967295", "255.255.255.255"}, {"4294967296", ""},
		{"0xffffffff", "255.255.255.255"}, {"037777777777", "255.255.255.255"}, {"040000000000", ""},
		{"1.16777215", "1.255.255.255"}, {"1.16777216", ""},
		{"1.2.65535", "1.2.255.255"}, {"1.2.65536", ""},
		{"1.2.3.255", "1.2.3.255"}, {"1.2.3.256", ""},
		{"0x1.0x2.0x3.0x4", "1.2.3.4"}, {"01.02.03.04", "1.2.3.4"}, {"09.1.1.1", ""}, {"0xg.1.1.1", ""},
		{"1.2.3.4.", "1.2.3.4"}, {"1.2.3.4..", ""}, {"1..2.3", ""}, {".1.2.3", ""}, {"1.2.3.4.5", ""},
	} {
		a, ok := parseWHATWGIPv4(c.in)
		got := ""
		if ok {
			got = a.String()
		}
		if got != c.want {
			t.Errorf("parseWHATWGIPv4(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for s, want := range map[string]bool{
		"example.com": false, "example.123": true, "a.0x": true, "a.0x1f": true, "a.0xg": false,
		"123.": true, ".": false, "": false, "1a": false, "a.09": true,
	} {
		if got := endsInNumber(s); got != want {
			t.Errorf("endsInNumber(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestIsPlatformAddr(t *testing.T) {
	for _, c := range []struct {
		ip       string
		platform bool
	}{
		// The platform table: every entry, written directly.
		{"169.254.169.254", true}, {"169.254.169.253", true}, {"169.254.169.123", true},
		{"169.254.170.2", true}, {"169.254.170.23", true}, {"169.254.42.42", true}, {"169.254.0.23", true},
		{"169.254.0.0", true}, {"169.254.255.255", true}, {"169.253.255.255", false}, {"169.255.0.0", false},
		{"168.63.129.16", true}, {"168.63.129.15", false}, {"168.63.129.17", false},
		{"100.100.100.200", true}, {"100.100.100.199", false}, {"100.100.100.201", false},
		{"192.0.0.192", true}, {"192.0.0.191", false}, {"192.0.0.193", false},
		{"fd00:ec2::254", true}, {"fd00:ec2::253", true}, {"fd00:ec2::123", true}, {"fd00:ec2::23", true},
		{"fd00:ec2:0:1::254", false}, {"fd20:ce::254", true}, {"fd20:ce::253", false},
		{"fd00:42::42", true}, {"fe80::a9fe:a9fe", true}, {"fe80::1", true}, {"fe80::1%eth0", true},
		{"febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true}, {"fec0::1", false},

		// The same addresses embedded in IPv6.
		{"::ffff:169.254.169.254", true}, {"::ffff:168.63.129.16", true}, {"::a9fe:a9fe", true},
		{"64:ff9b::a9fe:a9fe", true}, {"64:ff9b::a83f:8110", true}, {"64:ff9b::6464:64c8", true},
		{"64:ff9b::c000:c0", true}, {"64:ff9b::808:808", false},
		{"64:ff9b:1::a9fe:a9fe", true}, {"64:ff9b:1:a9fe:a9:fe00::", true}, {"64:ff9b:1:a8:3f:8110::", true},
		{"64:ff9b:1:0:a9:fea9:fe00:0", true}, {"64:ff9b:1::808:808", false},
		{"2002:a9fe:a9fe::", true}, {"2002:a83f:8110::1", true}, {"2002:808:808::1", false},
		{"2001:0:a9fe:a9fe::1", true}, {"2001:0:4136:e378:8000:63bf:5601:5601", true},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false},

		// Ordinary addresses.
		{"8.8.8.8", false}, {"127.0.0.1", false}, {"10.0.0.1", false}, {"::1", false}, {"::", false},
		{"2606:4700:4700::1111", false}, {"fd12:3456::1", false},
	} {
		ip := netip.MustParseAddr(c.ip)
		if got := IsPlatformAddr(ip); got != c.platform {
			t.Errorf("IsPlatformAddr(%s) = %v, want %v", c.ip, got, c.platform)
		}
		if c.platform && IsPublicAddr(ip) {
			t.Errorf("IsPublicAddr(%s) = true for a platform address", c.ip)
		}
	}
	if IsPlatformAddr(netip.Addr{}) {
		t.Error("the zero Addr is a platform address")
	}
}
