package urlguard

import (
	"net/netip"
	"strings"
)

// This file follows the IPv4 host parsing of the WHATWG URL Standard
// (https://url.spec.whatwg.org/#concept-ipv4-parser). Browsers, curl's
// WHATWG mode and the C library's inet_aton all accept numeric hosts such
// as "2130706433", "0177.0.0.1", "0x7f.1" or "127.1" and connect to the
// address they denote. A guard that compares only dotted-quad text would
// let those through, so every host that a browser would read as a number
// is turned into that number before the address policy is applied.

// endsInNumber reports whether a browser would hand host to the IPv4
// parser: its last label (ignoring one trailing dot) is all decimal digits
// or is a valid WHATWG IPv4 number such as "0x" or "0x7f".
func endsInNumber(host string) bool {
	parts := strings.Split(host, ".")
	if parts[len(parts)-1] == "" {
		if len(parts) == 1 {
			return false
		}
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last != "" && allDigits(last) {
		return true
	}
	_, ok := parseIPv4Number(last)
	return ok
}

// parseWHATWGIPv4 parses host as a browser would. ok is false when host is
// not a valid IPv4 host; a host for which endsInNumber is true but which
// fails here is invalid in a browser and must be rejected, not looked up.
func parseWHATWGIPv4(host string) (addr netip.Addr, ok bool) {
	parts := strings.Split(host, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		if p == "" {
			return netip.Addr{}, false
		}
		n, ok := parseIPv4Number(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	last := len(nums) - 1
	for _, n := range nums[:last] {
		if n > 255 {
			return netip.Addr{}, false
		}
	}
	// The last part fills all remaining bytes: "127.1" is 127.0.0.1 and
	// "2130706433" is the whole address.
	if nums[last] >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v := nums[last]
	for i, n := range nums[:last] {
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// parseIPv4Number parses one dotted part: "0x"/"0X" prefix is hex, a
// leading "0" is octal, anything else decimal. "0x" alone is zero. Values
// of 2^32 or more saturate at 2^32: they are still numbers (so the host is
// numeric) but no address can contain them.
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, s = 16, s[2:]
	case len(s) >= 2 && s[0] == '0':
		base, s = 8, s[1:]
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		d, ok := digitValue(s[i])
		if !ok || d >= base {
			return 0, false
		}
		if v < 1<<32 {
			v = v*base + d
		}
		if v > 1<<32 {
			v = 1 << 32
		}
	}
	return v, true
}

func digitValue(c byte) (uint64, bool) {
	switch {
	case '0' <= c && c <= '9':
		return uint64(c - '0'), true
	case 'a' <= c && c <= 'f':
		return uint64(c-'a') + 10, true
	case 'A' <= c && c <= 'F':
		return uint64(c-'A') + 10, true
	}
	return 0, false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
