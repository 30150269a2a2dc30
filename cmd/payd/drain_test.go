package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd/internal/paydtest"
)

// TestServeDrainDelay: after the stop signal, /readyz answers 503
// "draining" for --drain-delay while requests are still served; then serve
// returns.
func TestServeDrainDelay(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	srv := startServe(t, "--data-dir", t.TempDir(), "--addr", addr, "--admin-addr", freeAddr(t), "--drain-delay", "2s")
	base := "http://" + addr
	waitHealthy(t, http.DefaultClient, base, srv)
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s while draining: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, _ := get("/readyz"); st != 200 {
		t.Fatalf("/readyz before the stop = %d", st)
	}
	stopped := time.Now()
	srv.stop()
	// The signal is handled on serve's own goroutine: /readyz turns
	// within the drain delay, while requests are still served.
	var st int
	var body string
	paydtest.Eventually(t, "/readyz to answer 503 after the stop", func() bool {
		st, body = get("/readyz")
		return st != 200
	})
	if st != 503 || !strings.Contains(body, "draining") {
		t.Fatalf("/readyz while draining = %d %s", st, body)
	}
	if st, _ := get("/v1/openapi.json"); st != 200 {
		t.Fatalf("a request while draining = %d, want served", st)
	}
	select {
	case <-srv.done:
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not return after the drain delay")
	}
	if d := time.Since(stopped); d < 2*time.Second {
		t.Fatalf("serve returned %v after the stop, before the 2s drain delay", d)
	}
	if srv.err != nil {
		t.Fatalf("serve: %v", srv.err)
	}
}
