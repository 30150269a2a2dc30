package sender

import (
	"context"
	"crypto/x509"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd/internal/urlguard"
)

func tlsReceiver(t *testing.T, h http.HandlerFunc) (*httptest.Server, *x509.CertPool) {
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return srv, pool
}

func TestSendRefusesPrivateAddressAtConnectTime(t *testing.T) {
	t.Parallel()
	srv, pool := tlsReceiver(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })
	port := srv.URL[strings.LastIndexByte(srv.URL, ':'):]
	// The name passed registration as a public name; now DNS says 127.0.0.1.
	s := New(Options{RootCAs: pool, LookupNetIP: func(ctx context.Context, network, host string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}})
	_, err := s.Send(context.Background(), "https://hooks.example.com"+port+"/h", nil, []byte("{}"), 5*time.Second)
	var ue *urlguard.Error
	if !errors.As(err, &ue) || ue.Reason != urlguard.ReasonPrivateAddress {
		t.Fatalf("delivery to a name resolving to 127.0.0.1: %v", err)
	}
	// Allowed by the operator, the same address is reached.
	s = New(Options{RootCAs: pool, AllowHosts: []string{"127.0.0.1"}})
	if res, err := s.Send(context.Background(), srv.URL+"/h", nil, []byte("{}"), 5*time.Second); err != nil || res.StatusCode != 200 {
		t.Fatalf("allowed host: %v %v", res, err)
	}
}

// TestSendRefusesPlatformAddressesAtConnectTime: a name that resolves to a
// cloud platform address (the Azure wire server sits in a public range) is
// refused when the delivery connects, even for a host the operator allowed.
func TestSendRefusesPlatformAddressesAtConnectTime(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"168.63.129.16", "169.254.169.254", "100.100.100.200", "fd00:ec2::254", "64:ff9b::a83f:8110"} {
		s := New(Options{AllowHosts: []string{"hooks.example.com"}, LookupNetIP: func(ctx context.Context, network, host string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr(addr)}, nil
		}})
		_, err := s.Send(context.Background(), "https://hooks.example.com/h", nil, []byte("{}"), 5*time.Second)
		var ue *urlguard.Error
		if !errors.As(err, &ue) || ue.Reason != urlguard.ReasonPlatformAddress {
			t.Errorf("delivery to a name resolving to %s: %v", addr, err)
		}
	}
	for _, u := range []string{"https://169.254.169.254/h", "https://[fd20:ce::254]/h", "https://metadata.google.internal/h"} {
		_, err := New(Options{AllowHosts: []string{"169.254.169.254", "metadata.google.internal"}}).Send(context.Background(), u, nil, []byte("{}"), 5*time.Second)
		var ue *urlguard.Error
		if !errors.As(err, &ue) || ue.Reason != urlguard.ReasonPlatformAddress {
			t.Errorf("delivery to %s: %v", u, err)
		}
	}
}

func TestSendNeverFollowsRedirects(t *testing.T) {
	t.Parallel()
	hits := 0
	srv, pool := tlsReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		hits++
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	})
	s := New(Options{RootCAs: pool, AllowHosts: []string{"127.0.0.1"}})
	res, err := s.Send(context.Background(), srv.URL+"/h", nil, []byte("{}"), 5*time.Second)
	if err != nil || res.StatusCode != http.StatusFound || hits != 1 {
		t.Fatalf("redirect: %v %v after %d requests", res, err, hits)
	}
}

func TestSendVerifiesCertificates(t *testing.T) {
	t.Parallel()
	srv, _ := tlsReceiver(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })
	s := New(Options{AllowHosts: []string{"127.0.0.1"}}) // system roots only
	if _, err := s.Send(context.Background(), srv.URL+"/h", nil, []byte("{}"), 5*time.Second); err == nil {
		t.Fatal("a self-signed certificate was accepted")
	}
}

func TestSendTimesOut(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv, pool := tlsReceiver(t, func(w http.ResponseWriter, r *http.Request) { <-release })
	defer close(release)
	s := New(Options{RootCAs: pool, AllowHosts: []string{"127.0.0.1"}})
	start := time.Now()
	_, err := s.Send(context.Background(), srv.URL+"/h", nil, []byte("{}"), 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "no answer within") || time.Since(start) > 3*time.Second {
		t.Fatalf("slow receiver: %v after %v", err, time.Since(start))
	}
}

func TestSendKeepsFourKilobytes(t *testing.T) {
	t.Parallel()
	srv, pool := tlsReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Test") != "yes" {
			w.WriteHeader(400)
			return
		}
		w.Write([]byte(strings.Repeat("a", 10000)))
	})
	s := New(Options{RootCAs: pool, AllowHosts: []string{"127.0.0.1"}})
	res, err := s.Send(context.Background(), srv.URL, map[string]string{"X-Test": "yes"}, []byte("{}"), 5*time.Second)
	if err != nil || res.StatusCode != 200 || len(res.Body) != 4096 {
		t.Fatalf("answer kept: %v %d bytes", err, len(res.Body))
	}
}

// TestSendNamesTheStatus: the result carries the standard text of the
// status, which the delivery attempt's error quotes ("answer 500 Internal
// Server Error is not 2xx"), and none for a code without one.
func TestSendNamesTheStatus(t *testing.T) {
	t.Parallel()
	for code, want := range map[int]string{500: "Internal Server Error", 404: "Not Found", 599: ""} {
		srv, pool := tlsReceiver(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) })
		s := New(Options{RootCAs: pool, AllowHosts: []string{"127.0.0.1"}})
		res, err := s.Send(context.Background(), srv.URL, nil, []byte("{}"), 5*time.Second)
		if err != nil || res.StatusCode != code || res.StatusText != want {
			t.Errorf("answer %d: %+v, %v; want status text %q", code, res, err, want)
		}
	}
}
