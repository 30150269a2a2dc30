// Package e2e drives the hosted payment pages (checkout and the sandbox
// bank) in a real headless Chromium, the way a payer does. The other
// tests post the forms with an HTTP client, which cannot notice what only
// a browser enforces — a button that does not submit, a redirect the
// page's Content-Security-Policy blocks, a certificate it refuses — or a
// page that does not fit a phone.
package e2e

import (
	"bytes"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// shopSite stands in for the merchant's site: return_url must be https,
// so the payer comes back to a local TLS server with a small page.
type shopSite struct {
	*httptest.Server
	visits atomic.Int32
}

func newShopSite(t *testing.T) *shopSite {
	s := &shopSite{}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/thanks" {
			http.NotFound(w, r)
			return
		}
		s.visits.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Thanks</title><h1 id="thanks">Thank you for your order</h1>`)
	}))
	t.Cleanup(s.Close)
	return s
}

// scenario is one test's world: a running payd with a shop, the shop's
// site and a browser.
type scenario struct {
	api  *paydtest.Client
	site *shopSite
	tab  *tab
}

// setup starts payd on SQLite (the first backend: the browser part does
// not depend on the database), a shop, the shop's site and Chromium.
func setup(t *testing.T) *scenario {
	t.Helper()
	return setupIn(t, payd.RegionRU)
}

// setupIn is setup with a shop of region.
func setupIn(t *testing.T, region payd.Region) *scenario {
	t.Helper()
	// Before starting anything else: without Chromium this skips or fails.
	chromiumPath(t)
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	shop := env.NewShop(region, "")
	env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"display_name": "Book Corner"}).Expect(t, 200)
	site := newShopSite(t)
	return &scenario{api: env.As(shop, false), site: site, tab: startBrowser(t, site.Server)}
}

// createPayment creates a one-stage redirect payment that returns the
// payer to the shop's site, and returns its id, confirmation_url and
// return_url.
func (s *scenario) createPayment(t *testing.T, value string) (id, confirmationURL, returnURL string) {
	t.Helper()
	returnURL = s.site.URL + "/thanks"
	body := map[string]any{
		"amount":       map[string]any{"value": value, "currency": "RUB"},
		"order_id":     fmt.Sprintf("e2e-%d", time.Now().UnixNano()),
		"description":  "Order with two books",
		"confirmation": map[string]any{"type": "redirect", "return_url": returnURL},
	}
	created := s.api.Post("/v1/payments", fmt.Sprintf("e2e-idem-%d", time.Now().UnixNano()), body).Expect(t, 201).JSON(t)
	id, _ = created["id"].(string)
	conf, _ := created["confirmation"].(map[string]any)
	confirmationURL, _ = conf["confirmation_url"].(string)
	if id == "" || confirmationURL == "" {
		t.Fatalf("created payment has no id or confirmation_url: %v", created)
	}
	return id, confirmationURL, returnURL
}

// payByCard goes from the checkout page through the sandbox bank to the
// 3-D Secure page and submits code there.
func (s *scenario) payByCard(t *testing.T, confirmationURL, code string) {
	t.Helper()
	s.tab.do("open the checkout page",
		chromedp.Navigate(confirmationURL),
		chromedp.WaitVisible(chromedp.ID("method-bank_card")))
	if got := get(s.tab, "read the amount", chromedp.Text(chromedp.ID("amount"))); !strings.Contains(got, "RUB") {
		t.Fatalf("checkout shows amount %q", got)
	}
	s.tab.do("choose card", chromedp.Click(chromedp.ID("method-bank_card")))
	s.tab.do("reach the sandbox bank page", chromedp.WaitVisible(chromedp.ID("pay")))
	if loc := get(s.tab, "bank page address", chromedp.Location()); !strings.Contains(loc, "/sandbox/bank/") {
		t.Fatalf("after choosing card the browser is at %s", loc)
	}
	s.tab.do("press pay", chromedp.Click(chromedp.ID("pay")))
	s.tab.do("reach the 3-D Secure page", chromedp.WaitVisible(chromedp.ID("code")))
	s.tab.do("enter the 3-D Secure code",
		chromedp.SendKeys(chromedp.ID("code"), code),
		chromedp.Click(chromedp.ID("confirm")))
}

// expectReturned waits until the browser shows the shop's return page.
func (s *scenario) expectReturned(t *testing.T, returnURL string) {
	t.Helper()
	s.tab.do("land on return_url", chromedp.WaitVisible(chromedp.ID("thanks")))
	if loc := get(s.tab, "return page address", chromedp.Location()); loc != returnURL {
		t.Fatalf("the browser is at %s, want return_url %s", loc, returnURL)
	}
	if s.site.visits.Load() == 0 {
		t.Fatal("the shop's return page was never requested")
	}
}

func TestCardPaymentSucceeds(t *testing.T) {
	s := setup(t)
	id, confirmationURL, returnURL := s.createPayment(t, "1000.00")
	// The code the sandbox 3-D Secure page tells the payer to enter.
	s.payByCard(t, confirmationURL, "123456")
	s.expectReturned(t, returnURL)
	pay := s.api.WaitStatus(id, "succeeded")
	if pay["paid"] != true {
		t.Fatalf("succeeded payment = %v", pay)
	}
}

func TestCardPaymentWrong3DSCodeCancels(t *testing.T) {
	s := setup(t)
	id, confirmationURL, returnURL := s.createPayment(t, "500.00")
	s.payByCard(t, confirmationURL, "000000")
	// The bank sends the payer back to the shop either way; the shop
	// learns the outcome from the API.
	s.expectReturned(t, returnURL)
	pay := s.api.WaitStatus(id, "canceled")
	cd, _ := pay["cancellation_details"].(map[string]any)
	if cd["reason"] != payd.ReasonThreeDSFailed {
		t.Fatalf("cancellation_details = %v, want reason %s", pay["cancellation_details"], payd.ReasonThreeDSFailed)
	}
}

func TestCheckoutFitsAPhone(t *testing.T) {
	const width, height = 390, 844 // a current mid-size phone, in CSS pixels
	s := setup(t)
	_, confirmationURL, _ := s.createPayment(t, "1000.00")
	s.tab.do("open the checkout page on a phone",
		chromedp.EmulateViewport(width, height, chromedp.EmulateMobile, chromedp.EmulatePortrait),
		chromedp.Navigate(confirmationURL),
		chromedp.WaitVisible(chromedp.ID("method-bank_card")))
	// Mobile emulation honours the page's viewport meta tag; without the
	// tag the page would be laid out 980px wide and this would fail.
	if w := get(s.tab, "viewport width", chromedp.Evaluate[int](`window.innerWidth`)); w != width {
		t.Fatalf("window.innerWidth = %d, want %d", w, width)
	}
	// No horizontal scrolling: nothing is wider than the screen.
	if fits := get(s.tab, "measure the page",
		chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`)); !fits {
		sw := get(s.tab, "scrollWidth", chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
		t.Fatalf("the checkout scrolls sideways at %dpx: scrollWidth %d", width, sw)
	}
	shot := get(s.tab, "screenshot", chromedp.CaptureScreenshot())
	path := filepath.Join(t.TempDir(), "checkout-390.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot %s (%d bytes) is not a PNG: %v", path, len(shot), err)
	}
	if b := img.Bounds(); b.Dx() != width || b.Dy() != height {
		t.Fatalf("screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), width, height)
	}
	t.Logf("checkout screenshot: %s (%d bytes)", path, len(shot))
}
