package urlguard

import (
	"context"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
)

// DialControl returns a function for net.Dialer.Control that refuses to
// open a socket to an address IsPublicAddr rejects.
//
// Control runs after name resolution with the exact address the socket is
// about to connect to, so DNS rebinding cannot slip past it: whatever a
// name resolved to, the address checked is the address used. The price is
// that it never sees the host name, so AllowHosts is honoured here only for
// entries that are IP addresses ("127.0.0.1", "::1"); a name such as
// "localhost" in AllowHosts has no effect. Use Dialer to honour names.
// AllowLocal disables the check, except for platform addresses
// (IsPlatformAddr), which are refused whatever the options.
func DialControl(opts Options) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fail(ReasonMalformed, "unexpected dial address")
		}
		ip := ap.Addr()
		if IsPlatformAddr(ip) {
			return fail(ReasonPlatformAddress, "connection to "+ap.String()+" refused")
		}
		if opts.AllowLocal || IsPublicAddr(ip) || opts.hostAllowed(ip.Unmap().String()) {
			return nil
		}
		return fail(ReasonPrivateAddress, "connection to "+ap.String()+" refused")
	}
}

// Dialer dials webhook endpoints. Use its DialContext as
// http.Transport.DialContext (with Transport.Proxy set to nil: through a
// proxy the only address checked would be the proxy's).
//
// For a host name DialContext resolves the name exactly once, refuses the
// connection when ANY resolved address is not public, and then connects to
// those checked addresses by IP, so no second lookup can return a
// different answer (DNS rebinding). A Control hook additionally verifies
// that each socket goes to one of the checked addresses. Hosts are
// canonicalized as in Check first: internal names (localhost, *.local,
// single labels ...) are refused without a lookup, and numeric hosts in any
// notation ("2130706433", "0x7f.1") are treated as the address they denote,
// never passed to a resolver that might read them differently.
//
// Errors: a policy refusal is an *Error; a failed lookup or connection is
// returned as the net package reports it.
//
// A host in Options.AllowHosts (compared by canonical name, as in Check)
// may resolve to any address but a platform address (IsPlatformAddr); it is
// still connected only to the addresses of that single lookup. Platform
// names and addresses are refused whatever the options.
// Options.AllowLocal disables the other address rules; a
// delivery worker should not set it merely because an endpoint belongs to a
// test-mode shop, or a test key could aim deliveries at the service's own
// network.
//
// The zero value is ready to use and applies the live-mode policy.
type Dialer struct {
	Options Options
	// Dialer supplies timeouts and keep-alive; nil means a zero
	// net.Dialer. Its Timeout applies to each address tried. Its Resolver
	// is not used; its Control/ControlContext run after this package's
	// check.
	Dialer *net.Dialer
	// LookupNetIP resolves host names; nil means
	// net.DefaultResolver.LookupNetIP. network is "ip", "ip4" or "ip6".
	LookupNetIP func(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// DialContext connects to address ("host:port") over "tcp", "tcp4" or
// "tcp6" if the policy allows it. A refusal is an *Error.
func (d *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	ipNet, ok := map[string]string{"tcp": "ip", "tcp4": "ip4", "tcp6": "ip6"}[network]
	if !ok {
		return nil, fail(ReasonMalformed, "unsupported network "+strconv.Quote(network))
	}
	hostStr, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fail(ReasonMalformed, "invalid dial address")
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil || port == 0 {
		return nil, fail(ReasonMalformed, "invalid port")
	}
	h, e := canonicalHost(hostStr, strings.Contains(hostStr, ":"))
	if e != nil {
		return nil, e
	}
	if e := d.Options.destinationAllowed(h); e != nil {
		return nil, e
	}

	addrs := []netip.Addr{h.addr}
	if !h.addr.IsValid() {
		lookup := d.LookupNetIP
		if lookup == nil {
			lookup = net.DefaultResolver.LookupNetIP
		}
		addrs, err = lookup(ctx, ipNet, h.key)
		if err != nil {
			return nil, err
		}
		if len(addrs) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: h.key, IsNotFound: true}
		}
	}
	trusted := d.Options.AllowLocal || d.Options.hostAllowed(h.key)
	for i, a := range addrs {
		if IsPlatformAddr(a) {
			return nil, fail(ReasonPlatformAddress, "host "+h.key+" resolves to "+a.String())
		}
		if !trusted && !IsPublicAddr(a) {
			return nil, fail(ReasonPrivateAddress, "host "+h.key+" resolves to "+a.String())
		}
		addrs[i] = a.Unmap()
	}

	base := net.Dialer{}
	if d.Dialer != nil {
		base = *d.Dialer
	}
	base.Resolver = nil
	base.Control, base.ControlContext = nil, checkedControl(addrs, base.Control, base.ControlContext)

	var lastErr error
	for _, a := range addrs {
		conn, err := base.DialContext(ctx, network, netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

// checkedControl refuses any socket whose destination is not in approved,
// then runs the caller's own hooks.
func checkedControl(
	approved []netip.Addr,
	next func(string, string, syscall.RawConn) error,
	nextCtx func(context.Context, string, string, syscall.RawConn) error,
) func(context.Context, string, string, syscall.RawConn) error {
	return func(ctx context.Context, network, address string, c syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fail(ReasonMalformed, "unexpected dial address")
		}
		ok := false
		for _, a := range approved {
			if a == ap.Addr().Unmap() {
				ok = true
				break
			}
		}
		if !ok {
			return fail(ReasonPrivateAddress, "connection to "+ap.String()+" refused")
		}
		if nextCtx != nil {
			return nextCtx(ctx, network, address, c)
		}
		if next != nil {
			return next(network, address, c)
		}
		return nil
	}
}
