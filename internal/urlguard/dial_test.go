package urlguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// listen starts a loopback listener that accepts and closes connections
// and counts them. The machine has no outside network; every dial in
// these tests must stay on loopback.
func listen(t *testing.T) (port string, accepted *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted = new(atomic.Int32)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return port, accepted
}

// loopbackOnly is a base dialer that fails the test if a connection to
// anything but loopback is ever attempted.
func loopbackOnly(t *testing.T) *net.Dialer {
	return &net.Dialer{
		Timeout: 5 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !ap.Addr().IsLoopback() {
				t.Errorf("attempted connection to %s", address)
				return errors.New("test guard: not loopback")
			}
			return nil
		},
	}
}

// fakeLookup answers from a fixed table and counts calls.
type fakeLookup struct {
	answers map[string][]string
	calls   atomic.Int32
}

func (f *fakeLookup) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	n := f.calls.Add(1)
	ss, ok := f.answers[host]
	if !ok {
		return nil, &net.DNSError{Err: "not found", Name: host, IsNotFound: true}
	}
	if host == "rebind.example.com" && n > 1 {
		ss = []string{"10.0.0.1"} // a rebinding server's second answer
	}
	var out []netip.Addr
	for _, s := range ss {
		out = append(out, netip.MustParseAddr(s))
	}
	return out, nil
}

func wantReason(t *testing.T, err error, want Reason) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Reason != want {
		t.Fatalf("err = %v, want *Error with reason %s", err, want)
	}
}

func TestDialControl(t *testing.T) {
	port, accepted := listen(t)
	ctx := context.Background()
	dial := func(opts Options, host string) error {
		d := net.Dialer{Timeout: 5 * time.Second, Control: DialControl(opts)}
		c, err := d.DialContext(ctx, "tcp4", net.JoinHostPort(host, port))
		if err == nil {
			c.Close()
		}
		return err
	}

	// localhost resolves to 127.0.0.1: refused after resolution.
	wantReason(t, dial(Options{}, "localhost"), ReasonPrivateAddress)
	wantReason(t, dial(Options{}, "127.0.0.1"), ReasonPrivateAddress)
	// Control never sees names, so a name in AllowHosts cannot help...
	wantReason(t, dial(Options{AllowHosts: []string{"localhost"}}, "localhost"), ReasonPrivateAddress)
	if n := accepted.Load(); n != 0 {
		t.Fatalf("refused dials reached the listener %d times", n)
	}
	// ...but an address does, in any notation.
	if err := dial(Options{AllowHosts: []string{"127.1"}}, "localhost"); err != nil {
		t.Fatalf("allowed address refused: %v", err)
	}
	if err := dial(Options{AllowLocal: true}, "127.0.0.1"); err != nil {
		t.Fatalf("AllowLocal refused: %v", err)
	}
	waitAccepted(t, accepted, 2)

	// Platform addresses are refused whatever the options.
	for _, opts := range []Options{{}, {AllowLocal: true}, {AllowHosts: []string{"169.254.169.254", "168.63.129.16", "fd00:ec2::254"}}} {
		for _, a := range []string{"169.254.169.254:80", "168.63.129.16:443", "[fd00:ec2::254]:80", "[::ffff:169.254.169.254]:80"} {
			wantReason(t, DialControl(opts)("tcp", a, nil), ReasonPlatformAddress)
		}
	}

	if err := DialControl(Options{})("tcp", "not-an-address", nil); err == nil {
		t.Error("unparsable address accepted")
	}
	if err := DialControl(Options{})("tcp", "8.8.8.8:443", nil); err != nil {
		t.Errorf("public address refused: %v", err)
	}
}

func TestDialerLocalhost(t *testing.T) {
	port, accepted := listen(t)
	ctx := context.Background()

	// The real resolver: localhost is refused in live mode...
	d := &Dialer{Dialer: loopbackOnly(t)}
	_, err := d.DialContext(ctx, "tcp", net.JoinHostPort("localhost", port))
	wantReason(t, err, ReasonInternalName)

	// ...and connects when an operator allows it by name.
	d.Options.AllowHosts = []string{"localhost"}
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort("LOCALHOST.", port))
	if err != nil {
		t.Fatalf("allowed host refused: %v", err)
	}
	c.Close()
	waitAccepted(t, accepted, 1)
}

func TestDialerResolvedAddresses(t *testing.T) {
	port, accepted := listen(t)
	ctx := context.Background()
	lookup := &fakeLookup{answers: map[string][]string{
		"loop.example.com":      {"127.0.0.1"},
		"mixed.example.com":     {"8.8.8.8", "127.0.0.1"},
		"mapped.example.com":    {"::ffff:127.0.0.1"},
		"nat64.example.com":     {"64:ff9b::a9fe:a9fe"},
		"azure.example.com":     {"8.8.8.8", "168.63.129.16"},
		"imds6.example.com":     {"fd00:ec2::254"},
		"sixtofour.example.com": {"2002:a83f:8110::1"},
		"rebind.example.com":    {"127.0.0.1"},
		"public.example.com":    {"8.8.8.8"},
		"nothing.example.com":   {},
	}}
	d := &Dialer{Dialer: loopbackOnly(t), LookupNetIP: lookup.LookupNetIP}
	dial := func(host string) error {
		c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(host, port))
		if err == nil {
			c.Close()
		}
		return err
	}

	// A public-looking name resolving to a private address.
	for _, h := range []string{"loop.example.com", "mixed.example.com", "mapped.example.com"} {
		wantReason(t, dial(h), ReasonPrivateAddress)
	}
	// ...or to a platform address, also one in a public range.
	for _, h := range []string{"nat64.example.com", "azure.example.com", "imds6.example.com", "sixtofour.example.com"} {
		wantReason(t, dial(h), ReasonPlatformAddress)
	}
	// Numeric hosts in any notation are checked without a lookup.
	before := lookup.calls.Load()
	for _, h := range []string{"2130706433", "0x7f.1", "127.1", "::ffff:7f00:1"} {
		wantReason(t, dial(h), ReasonPrivateAddress)
	}
	if lookup.calls.Load() != before {
		t.Error("numeric host was looked up")
	}
	wantReason(t, dial("intranet"), ReasonInternalName)
	if err := dial("nothing.example.com"); err == nil {
		t.Error("name without addresses dialled")
	}
	if accepted.Load() != 0 {
		t.Fatal("a refused dial reached the listener")
	}

	// An allowed name is resolved once and connected to that answer only,
	// even if the resolver would answer differently the second time.
	d.Options.AllowHosts = []string{"rebind.example.com", "127.0.0.1"}
	lookup.calls.Store(0)
	if err := dial("rebind.example.com"); err != nil {
		t.Fatalf("allowed name refused: %v", err)
	}
	if n := lookup.calls.Load(); n != 1 {
		t.Errorf("lookups = %d, want exactly 1", n)
	}
	if err := dial("2130706433"); err != nil {
		t.Fatalf("allowed address refused: %v", err)
	}
	waitAccepted(t, accepted, 2)

	// Neither the allow-list nor AllowLocal lets a delivery reach a
	// platform address, by name or by number.
	d.Options = Options{AllowLocal: true, AllowHosts: []string{"azure.example.com", "imds6.example.com", "169.254.169.254"}}
	for _, h := range []string{"azure.example.com", "imds6.example.com", "169.254.169.254", "fd00:ec2::254", "metadata.google.internal"} {
		wantReason(t, dial(h), ReasonPlatformAddress)
	}
	waitAccepted(t, accepted, 2)

	if _, err := d.DialContext(ctx, "udp", "127.0.0.1:"+port); err == nil {
		t.Error("udp accepted")
	}
	if _, err := d.DialContext(ctx, "tcp", "127.0.0.1:0"); err == nil {
		t.Error("port 0 accepted")
	}
}

func TestCheckedControl(t *testing.T) {
	approved := []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	ctl := checkedControl(approved, nil, nil)
	if err := ctl(context.Background(), "tcp4", "127.0.0.1:1", nil); err != nil {
		t.Errorf("approved address refused: %v", err)
	}
	if err := ctl(context.Background(), "tcp6", "[::ffff:127.0.0.1]:1", nil); err != nil {
		t.Errorf("mapped approved address refused: %v", err)
	}
	wantReason(t, ctl(context.Background(), "tcp4", "127.0.0.2:1", nil), ReasonPrivateAddress)

	called := false
	next := func(string, string, syscall.RawConn) error { called = true; return nil }
	if err := checkedControl(approved, next, nil)(context.Background(), "tcp4", "127.0.0.1:1", nil); err != nil || !called {
		t.Errorf("caller's Control not run: %v", err)
	}
}

func waitAccepted(t *testing.T, n *atomic.Int32, want int32) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for n.Load() < want {
		if time.Now().After(deadline) {
			t.Fatalf("listener accepted %d connections, want %d", n.Load(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := n.Load(); got != want {
		t.Fatalf("listener accepted %d connections, want %d", got, want)
	}
}
