package e2e

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/chromedp"
)

// Every browser step gets its own deadline, so that a page that never
// arrives fails the test in seconds instead of holding CI until the
// go test timeout.
// Chromium's start is given longer: CI runs this package beside the
// others on two cores, and a start has once taken more than 30 s there.
const (
	startTimeout = 60 * time.Second
	stepTimeout  = 20 * time.Second
)

// chromiumPath returns the Chromium binary. Without it the test skips, so
// that `go test ./...` works on a developer machine without a browser;
// CI sets PAYD_E2E_REQUIRED=1 so that a missing browser cannot turn the
// end-to-end tests into a silent skip.
func chromiumPath(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err == nil {
		return path
	}
	const install = "install it with `apt-get install -y chromium` (Debian) or put a `chromium` binary in PATH"
	if os.Getenv("PAYD_E2E_REQUIRED") == "1" {
		t.Fatalf("PAYD_E2E_REQUIRED=1 but Chromium is not installed (%v); %s", err, install)
	}
	t.Skipf("Chromium is not installed, skipping the browser tests; %s (set PAYD_E2E_REQUIRED=1 to make this a failure)", install)
	return ""
}

// spkiHash is the value of Chromium's --ignore-certificate-errors-spki-list:
// base64 of the SHA-256 of the certificate's public key.
func spkiHash(cert *x509.Certificate) string {
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// tab is the one tab of a test's browser.
type tab struct {
	t   *testing.T
	ctx context.Context

	mu sync.Mutex
	// console holds what the browser logged (blocked requests, CSP
	// violations, certificate errors): a page that silently refuses to
	// move on is explained there, so failures quote it.
	console []string
}

// startBrowser starts headless Chromium for the test. Each test gets a
// browser of its own (it starts in well under a second) with a fresh
// profile, so no cookie or page state crosses tests. The browser trusts
// the self-signed certificate of trusted, the test's return page, by its
// public key alone (nil: none); every other certificate is still
// verified.
func startBrowser(t *testing.T, trusted *httptest.Server) *tab {
	t.Helper()
	execPath := chromiumPath(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(execPath),
		chromedp.Headless,
		chromedp.NoSandbox, // CI runs as root in a container, where the sandbox cannot start
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		// The network here is closed: without these Chromium keeps trying
		// to reach Google's update, sync and field-trial services and
		// stalls the pages.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		// Every page is on loopback (127.0.0.1, and 127.0.0.2 for a
		// merchant page of another origin); a proxy from the environment
		// must not stand in between.
		chromedp.Flag("no-proxy-server", true),
		// /dev/shm is small in containers.
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	if trusted != nil {
		// Trusting a self-signed certificate is acceptable only in a test:
		// the key belongs to the httptest server this test started, lives
		// only as long as the test, and the browser never leaves
		// 127.0.0.1. Pinning that one key (rather than
		// --ignore-certificate-errors) keeps certificate checks on for
		// anything else the browser might load.
		opts = append(opts, chromedp.Flag("ignore-certificate-errors-spki-list", spkiHash(trusted.Certificate())))
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	// Cleanups run in reverse order: the browser is stopped (and waited
	// for) before t.TempDir removes its profile.
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})

	// The first run starts the browser and ties it to ctx, so it cannot
	// carry a timeout of its own (the browser would die with it); it is
	// bounded from outside instead.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx) }()
	select {
	case err := <-started:
		if err != nil {
			t.Fatalf("start Chromium (%s): %v", execPath, err)
		}
	case <-time.After(startTimeout):
		cancelTab()
		cancelAlloc()
		t.Fatalf("Chromium (%s) did not start within %v", execPath, startTimeout)
	}

	tb := &tab{t: t, ctx: ctx}
	entries := chromedp.Events(ctx, log.EntryAdded)
	go func() {
		for ev, err := range entries {
			if err != nil {
				return // the browser is gone
			}
			tb.mu.Lock()
			tb.console = append(tb.console, fmt.Sprintf("%s %s: %s", ev.Entry.Source, ev.Entry.Level, ev.Entry.Text))
			tb.mu.Unlock()
		}
	}()
	return tb
}

// do runs browser actions under stepTimeout and fails the test, naming
// the step, when they fail or time out.
func (tb *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.t.Fatalf("%s: %v%s", what, err, tb.where())
	}
}

// get runs one action that returns a value, as do.
func get[T any](tb *tab, what string, action chromedp.Action[T]) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, action)
	if err != nil {
		tb.t.Fatalf("%s: %v%s", what, err, tb.where())
	}
	return v
}

// where describes the page the tab is on and what the browser logged, for
// failure messages.
func (tb *tab) where() string {
	ctx, cancel := context.WithTimeout(tb.ctx, 2*time.Second)
	defer cancel()
	var b strings.Builder
	if loc, err := chromedp.Run(ctx, chromedp.Location()); err == nil {
		text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
		if len(text) > 500 {
			text = text[:500] + "…"
		}
		fmt.Fprintf(&b, "\nthe browser is at %s:\n%s", loc, text)
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.console) > 0 {
		b.WriteString("\nthe browser logged:\n" + strings.Join(tb.console, "\n"))
	}
	return b.String()
}
