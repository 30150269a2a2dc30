package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/paydtest"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

type running struct {
	stdout *syncBuffer
	done   chan struct{} // closed when run returned; err holds its result
	err    error
	stop   context.CancelFunc
}

func startServe(t *testing.T, args ...string) *running {
	t.Helper()
	// Outside --dev, serve starts only with a secrets key.
	env := map[string]string{}
	if !slices.Contains(args, "--dev") {
		env[secretsKeyEnv] = testSecretsKey(t)
	}
	return startRunning(t, func(ctx context.Context, stdout io.Writer) error {
		return run(ctx, append([]string{"serve"}, args...), func(k string) string { return env[k] }, stdout, &syncBuffer{})
	})
}

// startRunning runs serve on a goroutine of its own until the test ends.
func startRunning(t *testing.T, serve func(ctx context.Context, stdout io.Writer) error) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{stdout: &syncBuffer{}, done: make(chan struct{}), stop: cancel}
	go func() {
		r.err = serve(ctx, r.stdout)
		close(r.done)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(30 * time.Second):
		}
	})
	return r
}

func waitHealthy(t *testing.T, client *http.Client, url string, r *running) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-r.done:
			t.Fatalf("serve exited: %v", r.err)
		default:
		}
		resp, err := client.Get(url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s/healthz did not answer", url)
}

func TestServeDevFirstAndSecondStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	addr, admin := freeAddr(t), freeAddr(t)
	args := []string{"--dev", "--data-dir", dir, "--addr", addr, "--admin-addr", admin}

	srv := startServe(t, args...)
	waitHealthy(t, http.DefaultClient, "http://"+addr, srv)
	raw, err := os.ReadFile(filepath.Join(dir, "dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		APIURL     string `json:"api_url"`
		AdminURL   string `json:"admin_url"`
		AdminToken string `json:"admin_token"`
		Shops      []struct {
			Region    string `json:"region"`
			ShopID    string `json:"shop_id"`
			SecretKey string `json:"secret_key"`
		} `json:"shops"`
		Dashboard struct {
			URL, Email, Password string
		} `json:"dashboard"`
	}
	if err := json.Unmarshal(raw, &info); err != nil {
		t.Fatal(err)
	}
	if info.APIURL != "http://"+addr+"/v1" || info.AdminToken == "" || len(info.Shops) != 2 {
		t.Fatalf("dev.json = %s", raw)
	}
	d := info.Dashboard
	if d.URL != "http://"+addr+"/dashboard/" || d.Email != "admin@demo.payd.test" || len(d.Password) < 20 {
		t.Fatalf("dev.json dashboard = %+v", d)
	}
	for _, want := range []string{info.Shops[0].ShopID, info.Shops[0].SecretKey, info.AdminToken, "curl -u",
		"Dashboard:    " + d.URL + "  " + d.Email + "  " + d.Password} {
		if !strings.Contains(srv.stdout.String(), want) {
			t.Fatalf("banner lacks %q:\n%s", want, srv.stdout.String())
		}
	}
	shopOK := func() {
		t.Helper()
		for _, s := range info.Shops {
			req, _ := http.NewRequest("GET", info.APIURL+"/shop", nil)
			req.SetBasicAuth(s.ShopID, s.SecretKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("GET /shop with the dev key: %v %v", resp, err)
			}
			resp.Body.Close()
		}
		req, _ := http.NewRequest("GET", info.AdminURL+"/admin/v1/merchants", nil)
		req.Header.Set("Authorization", "Bearer "+info.AdminToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("operator API with the dev token: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	shopOK()
	// Graceful shutdown returns cleanly.
	srv.stop()
	select {
	case <-srv.done:
		if srv.err != nil {
			t.Fatalf("serve returned %v after shutdown", srv.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}

	// A second start reuses the demo merchant and its keys.
	again := startServe(t, args...)
	waitHealthy(t, http.DefaultClient, "http://"+addr, again)
	raw2, _ := os.ReadFile(filepath.Join(dir, "dev.json"))
	if !bytes.Equal(raw, raw2) {
		t.Fatalf("dev.json changed on restart:\n%s\n%s", raw, raw2)
	}
	shopOK()
}

func TestServeRefusesPlainHTTPOffLoopback(t *testing.T) {
	t.Parallel()
	err := run(context.Background(), []string{"serve", "--addr", "0.0.0.0:0", "--data-dir", t.TempDir()},
		func(string) string { return "" }, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "--tls-cert") {
		t.Fatalf("plain HTTP on 0.0.0.0: %v", err)
	}
	// The environment twin works the same way.
	err = run(context.Background(), []string{"serve", "--data-dir", t.TempDir()},
		func(k string) string {
			if k == "PAYD_ADDR" {
				return "0.0.0.0:0"
			}
			return ""
		}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "0.0.0.0") {
		t.Fatalf("PAYD_ADDR=0.0.0.0:0: %v", err)
	}
}

func TestServeTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certFile, keyFile := writeSelfSigned(t, dir)
	addr := freeAddr(t)
	srv := startServe(t, "--data-dir", dir, "--addr", addr, "--admin-addr", freeAddr(t), "--tls-cert", certFile, "--tls-key", keyFile)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	waitHealthy(t, client, "https://"+addr, srv)
	// TLS 1.1 is refused (Conventions: TLS 1.2+).
	old := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS11}}}
	if resp, err := old.Get("https://" + addr + "/healthz"); err == nil {
		resp.Body.Close()
		t.Fatal("a TLS 1.1 client was served")
	}
}

func writeSelfSigned(t *testing.T, dir string) (string, string) {
	return writeSelfSignedSerial(t, dir, 1)
}

// writeSelfSignedSerial writes a certificate of serial number serial for
// 127.0.0.1 and its key as cert.pem and key.pem in dir.
func writeSelfSignedSerial(t *testing.T, dir string, serial int64) (string, string) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	return certFile, keyFile
}

// TestServeTLSReloadsRenewedCertificate: a certificate renewed in place
// under a running payd is served from a later connection on, without a
// restart (a broken renewal: TestCertFiles).
func TestServeTLSReloadsRenewedCertificate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certFile, keyFile := writeSelfSignedSerial(t, dir, 1)
	addr := freeAddr(t)
	srv := startServe(t, "--data-dir", dir, "--addr", addr, "--admin-addr", freeAddr(t), "--tls-cert", certFile, "--tls-key", keyFile)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true}}
	waitHealthy(t, client, "https://"+addr, srv)
	served := func() int64 {
		t.Helper()
		resp, err := client.Get("https://" + addr + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.TLS.PeerCertificates[0].SerialNumber.Int64()
	}
	if n := served(); n != 1 {
		t.Fatalf("serial %d served, want 1", n)
	}
	writeSelfSignedSerial(t, dir, 2)
	paydtest.EventuallyWithin(t, 10*time.Second, "the renewed certificate to be served", func() bool { return served() == 2 })
}

func TestVersion(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"version"}, func(string) string { return "" }, &out, &out); err != nil || !strings.HasPrefix(out.String(), "payd ") {
		t.Fatalf("version: %q %v", out.String(), err)
	}
	if err := run(context.Background(), []string{"frobnicate"}, func(string) string { return "" }, &out, &out); err == nil {
		t.Fatal("an unknown subcommand succeeded")
	}
}

// TestServeTrustedProxyAndThrottleFlags: the repeatable --trusted-proxy
// takes a comma-separated list from its variable, and the command line's
// list replaces the environment's, as every other flag's value does.
func TestServeTrustedProxyAndThrottleFlags(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PAYD_TRUSTED_PROXY": "10.0.0.0/8, 192.0.2.7"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "10.0.0.0/8 192.0.2.7/32"},
		{[]string{"--trusted-proxy", "2001:db8::1/64", "--trusted-proxy", "192.0.2.9"}, "2001:db8::/64 192.0.2.9/32"},
	} {
		o, err := parseServe(append(c.args, "--auth-failures-per-minute", "30"), func(k string) string { return env[k] }, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range o.trustedProxies {
			got = append(got, p.String())
		}
		if strings.Join(got, " ") != c.want || o.authFailures != 30 {
			t.Fatalf("%v: trusted proxies %v, failures %d; want %s and 30", c.args, got, o.authFailures, c.want)
		}
	}
	for _, args := range [][]string{{"--trusted-proxy", "proxy.internal"}, {"--auth-failures-per-minute", "-1"}} {
		if _, err := parseServe(args, func(string) string { return "" }, &bytes.Buffer{}); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

func TestServeSessionFlags(t *testing.T) {
	t.Parallel()
	none := func(string) string { return "" }
	o, err := parseServe(nil, none, &bytes.Buffer{})
	if err != nil || o.sessions != (account.SessionPolicy{Idle: 30 * time.Minute, Absolute: 12 * time.Hour}) {
		t.Fatalf("default session policy %+v, %v", o.sessions, err)
	}
	env := map[string]string{"PAYD_SESSION_IDLE": "15m"}
	o, err = parseServe([]string{"--session-absolute", "8h"}, func(k string) string { return env[k] }, &bytes.Buffer{})
	if err != nil || o.sessions != (account.SessionPolicy{Idle: 15 * time.Minute, Absolute: 8 * time.Hour}) {
		t.Fatalf("session policy %+v, %v; want 15m and 8h", o.sessions, err)
	}
	for _, args := range [][]string{{"--session-idle", "30s"}, {"--session-idle", "2h", "--session-absolute", "1h"}} {
		if _, err := parseServe(args, none, &bytes.Buffer{}); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

// TestServePortTakenBeforeBanner: with the API's, the operator's or the
// dashboard's port taken, serve fails naming the flag, before it opens
// storage (no database file is left in the data directory), prints the
// banner or writes a dev.json that would point at the other process.
func TestServePortTakenBeforeBanner(t *testing.T) {
	t.Parallel()
	for _, flagName := range []string{"--addr", "--admin-addr", "--dashboard-addr"} {
		t.Run(flagName, func(t *testing.T) {
			t.Parallel()
			taken, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer taken.Close()
			dir := t.TempDir()
			addrs := map[string]string{"--addr": freeAddr(t), "--admin-addr": freeAddr(t), "--dashboard-addr": freeAddr(t)}
			addrs[flagName] = taken.Addr().String()
			var stdout, stderr bytes.Buffer
			err = run(context.Background(), []string{"serve", "--dev", "--test-clock", "--data-dir", dir,
				"--addr", addrs["--addr"], "--admin-addr", addrs["--admin-addr"], "--dashboard-addr", addrs["--dashboard-addr"]},
				func(string) string { return "" }, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), "address already in use") {
				t.Fatalf("serve on a taken %s: %v", flagName, err)
			}
			if stdout.Len() != 0 {
				t.Fatalf("serve printed before failing:\n%s", stdout.String())
			}
			if _, err := os.Stat(filepath.Join(dir, "dev.json")); !os.IsNotExist(err) {
				t.Fatalf("dev.json written for a service that never served: %v", err)
			}
			if !strings.Contains(err.Error(), flagName) {
				t.Fatalf("the error does not name %s: %v", flagName, err)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Fatalf("the data directory holds %d files after a start that never served: %v", len(left), left[0].Name())
			}
		})
	}
}

// TestServeTracingSwitch: traces are off by default and on with --trace,
// PAYD_TRACE or the standard OTEL_* variables, which "none" overrides.
func TestServeTracingSwitch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want bool
	}{
		{nil, nil, false},
		{[]string{"--trace"}, nil, true},
		{nil, map[string]string{"PAYD_TRACE": "true"}, true},
		{nil, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, true},
		{nil, map[string]string{"OTEL_TRACES_EXPORTER": "console"}, true},
		{nil, map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, false},
	} {
		o, err := parseServe(tc.args, func(k string) string { return tc.env[k] }, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		if o.trace != tc.want {
			t.Errorf("args %v env %v: tracing %v, want %v", tc.args, tc.env, o.trace, tc.want)
		}
	}
}
