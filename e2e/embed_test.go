package e2e

import (
	"flag"
	"fmt"
	"html"
	"html/template"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/sandbank"
)

// shots rewrites the screenshots of docs/embedded.md.
var shots = flag.Bool("shots", false, "write the embedded form's screenshots to docs/")

// merchantPage is the merchant's page of docs/embedded.md: the widget
// loaded from payd, a container, and handlers that write the outcome
// into the page, by callback and by DOM event, where the test reads it.
var merchantPage = template.Must(template.New("shop").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Book Corner · checkout</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f3ee;color:#2b2118}
header{background:#3b2a1a;color:#fff;padding:.75rem 1rem;font-weight:700}
.wrap{max-width:56rem;margin:0 auto;padding:1rem;display:flex;gap:1.5rem;flex-wrap:wrap}
.order{flex:1 1 16rem}.pay{flex:1 1 20rem}</style></head>
<body><header>Book Corner</header><div class="wrap">
<section class="order"><h2>Your order</h2><p>Two books and a bookmark</p><p id="outcome"></p><p id="dom-event"></p></section>
<section class="pay"><div id="payment-form"></div></section></div>
<script src="{{.Payd}}/embed/v2/payd.js"></script>
<script>
var checkout = new PaydCheckout({ confirmation_token: {{.Token}} });
["success", "failure", "closed", "error"].forEach(function (name) {
  checkout.on(name, function (e) {
    document.getElementById("outcome").textContent = name + " " + (e.payment_id || "") + " " + (e.reason || "");
  });
  document.getElementById("payment-form").addEventListener("payd:" + name, function (e) {
    document.getElementById("dom-event").textContent = e.type;
  });
});
checkout.render("payment-form");
</script></body></html>`))

// merchantSite serves merchantPage from a loopback address other than
// payd's, so the page and the form are of different origins (and sites),
// as a shop's page and payd are.
func merchantSite(t *testing.T, ip, paydURL string) (origin string) {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("cannot listen on %s (loopback beyond 127.0.0.1 is Linux's): %v", ip, err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		q := r.URL.Query()
		if claim := q.Get("claim"); claim != "" {
			// A page that frames the form by hand, claiming another
			// page's origin and sending no Referer to give itself away.
			src := paydURL + "/embed/v2/pay/" + url.PathEscape(q.Get("token")) + "?origin=" + url.QueryEscape(claim)
			fmt.Fprintf(w, `<!doctype html><title>Not the shop</title><iframe id="f" referrerpolicy="no-referrer" src="%s"></iframe>`, html.EscapeString(src))
			return
		}
		merchantPage.Execute(w, map[string]string{"Payd": paydURL, "Token": q.Get("token")})
	})}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// embedScenario is a payd at stage M5 whose shop lets the merchant's
// page embed its form, and a browser.
type embedScenario struct {
	env    *paydtest.Env
	api    *paydtest.Client
	origin string // the merchant page's origin, which the shop allows
	tab    *tab
	// attached are the frames attached before: a page loaded again
	// gets a new frame, while the old one may still be listed a moment.
	attached map[target.ID]bool
}

func setupEmbed(t *testing.T) *embedScenario {
	t.Helper()
	chromiumPath(t)
	env := paydtest.Start(t, paydtest.Backends(t)[0], &paydtest.Options{Stage: payd.StageM5})
	origin := merchantSite(t, "127.0.0.2", env.API.URL)
	shop := env.NewShop(payd.RegionRU, "")
	env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{
		"display_name": "Book Corner", "embed_origins": []string{origin},
	}).Expect(t, 200)
	return &embedScenario{env: env, api: env.As(shop, false), origin: origin, tab: startBrowser(t, nil),
		attached: map[target.ID]bool{}}
}

// create makes an embedded payment and returns its id and token.
func (s *embedScenario) create(t *testing.T, value string) (id, token string) {
	t.Helper()
	n := time.Now().UnixNano()
	p := s.api.Post("/v1/payments", fmt.Sprintf("e2e-embed-%d", n), map[string]any{
		"amount": map[string]any{"value": value, "currency": "RUB"}, "order_id": fmt.Sprintf("e2e-embed-%d", n),
		"description":  "Two books and a bookmark",
		"confirmation": map[string]any{"type": "embedded"},
	}).Expect(t, 201).JSON(t)
	token, _ = p["confirmation"].(map[string]any)["confirmation_token"].(string)
	if token == "" {
		t.Fatalf("no confirmation_token: %v", p)
	}
	return p["id"].(string), token
}

// open loads the merchant's page at origin with the token.
func (s *embedScenario) open(origin, token string) {
	s.tab.do("open the merchant's page", chromedp.Navigate(origin+"/checkout?token="+token),
		chromedp.WaitVisible(chromedp.ID("payment-form")))
}

// frame attaches to the form's frame: payd's origin is another site than
// the page's, so Chromium runs it as a target of its own (site
// isolation stays on, as payers have it).
func (s *embedScenario) frame(t *testing.T) *tab {
	t.Helper()
	var id target.ID
	paydtest.Eventually(t, "the form's frame appears", func() bool {
		infos, err := chromedp.Targets(s.tab.ctx)
		if err != nil {
			return false
		}
		for _, info := range infos {
			if info.Type == "iframe" && strings.HasPrefix(info.URL, s.env.API.URL+"/embed/v2/pay/") && !s.attached[info.TargetID] {
				id = info.TargetID
				return true
			}
		}
		return false
	})
	s.attached[id] = true
	return attach(t, s.tab, id)
}

// attach returns a tab of the frame target id. As for the browser, the
// first run attaches the target and ties it to its context, so it gets
// the frame's context itself, bounded from outside.
func attach(t *testing.T, parent *tab, id target.ID) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(parent.ctx, chromedp.WithTargetID(id))
	t.Cleanup(cancel)
	attached := make(chan error, 1)
	go func() { attached <- chromedp.Do(ctx) }()
	select {
	case err := <-attached:
		if err != nil {
			t.Fatalf("attach to the frame: %v", err)
		}
	case <-time.After(stepTimeout):
		t.Fatalf("the frame's target did not attach within %v", stepTimeout)
	}
	return &tab{t: t, ctx: ctx}
}

// outcome waits until the page's outcome paragraph starts with want.
func (s *embedScenario) outcome(t *testing.T, want string) string {
	t.Helper()
	return get(s.tab, "the page learns "+want, chromedp.Poll[string](
		`(function(){ var t = document.getElementById("outcome").textContent; return t.indexOf(`+fmt.Sprintf("%q", want)+`) === 0 ? t : ""; })()`,
		chromedp.WithPollingTimeout(stepTimeout), chromedp.WithPollingInterval(100*time.Millisecond)))
}

// fitsContent checks the widget sized the frame to the form inside it.
func (s *embedScenario) fitsContent(t *testing.T, f *tab) {
	t.Helper()
	content := get(f, "the form's height", chromedp.Evaluate[float64](`document.documentElement.getBoundingClientRect().height`))
	get(s.tab, "the frame takes the form's height", chromedp.Poll[bool](
		fmt.Sprintf(`Math.abs(document.querySelector("#payment-form iframe").getBoundingClientRect().height - %f) < 2`, content),
		chromedp.WithPollingTimeout(stepTimeout), chromedp.WithPollingInterval(100*time.Millisecond)))
	if fits := get(s.tab, "measure the page", chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`)); !fits {
		t.Fatalf("the merchant's page with the form scrolls sideways")
	}
}

func (s *embedScenario) expectSucceeded(t *testing.T, id string) {
	t.Helper()
	if got := s.outcome(t, "success"); got != "success "+id+" " {
		t.Fatalf("outcome %q, want success of %s", got, id)
	}
	if ev := get(s.tab, "DOM event", chromedp.Text(chromedp.ID("dom-event"))); ev != "payd:success" {
		t.Fatalf("DOM event %q, want payd:success", ev)
	}
	// The page's event is what the payer saw; the API is the truth.
	s.api.WaitStatus(id, "succeeded")
	events := s.api.Get("/v1/events?type=payment.succeeded&object_id="+id).Expect(t, 200).JSON(t)
	if items, _ := events["items"].([]any); len(items) != 1 {
		t.Fatalf("payment.succeeded events of %s: %v", id, events)
	}
}

// stepLook is how a step of the form sits in its frame: the page's
// ground, and the card's background, border, corners and width against
// the frame's.
const stepLook = `(() => {
	const b = getComputedStyle(document.body), m = document.querySelector("main"), c = getComputedStyle(m);
	return [b.backgroundColor, getComputedStyle(document.documentElement).backgroundColor, c.backgroundColor,
		c.borderTopWidth, c.borderTopColor, c.borderTopLeftRadius, c.boxShadow,
		Math.round(m.getBoundingClientRect().width - document.documentElement.clientWidth)].join(" | ");
})()`

func TestEmbeddedCardThrough3DS(t *testing.T) {
	s := setupEmbed(t)
	id, token := s.create(t, "1000.00")
	s.open(s.origin, token)
	f := s.frame(t)
	f.do("the form shows in the page", chromedp.WaitVisible(chromedp.ID("method-bank_card")))
	if got := get(f, "read the amount", chromedp.Evaluate[string](`document.getElementById("amount").textContent`)); !strings.Contains(got, "1") || !strings.Contains(got, "000") {
		t.Fatalf("form shows amount %q", got)
	}
	s.fitsContent(t, f)
	first := get(f, "the first step's look", chromedp.Evaluate[string](stepLook))
	f.do("choose card", chromedp.Click(chromedp.ID("method-bank_card")))
	f.do("the sandbox bank inside the frame", chromedp.WaitVisible(chromedp.ID("pay")))
	// The bank's step is the same card on the same ground as the first,
	// not a grey page of its own.
	if bank := get(f, "the bank step's look", chromedp.Evaluate[string](stepLook)); bank != first {
		t.Fatalf("the bank step looks like %s, the first step like %s", bank, first)
	}
	f.do("pay at the bank", chromedp.Click(chromedp.ID("pay")))
	f.do("3-D Secure inside the frame", chromedp.WaitVisible(chromedp.ID("code")),
		chromedp.SendKeys(chromedp.ID("code"), sandbank.ThreeDSCode), chromedp.Click(chromedp.ID("confirm")))
	s.expectSucceeded(t, id)
	// The success step names the amount paid.
	f.do("the success step", chromedp.WaitVisible(chromedp.ID("amount")))
	if got := get(f, "the amount paid", chromedp.Text(chromedp.ID("amount"))); !strings.Contains(got, "000") {
		t.Fatalf("the success step shows amount %q", got)
	}
	// The merchant's page never left: the payer paid inside it.
	if loc := get(s.tab, "page address", chromedp.Location()); !strings.HasPrefix(loc, s.origin+"/") {
		t.Fatalf("the browser left the merchant's page for %s", loc)
	}
}

func TestEmbeddedSBP(t *testing.T) {
	s := setupEmbed(t)
	id, token := s.create(t, "700.00")
	s.open(s.origin, token)
	f := s.frame(t)
	f.do("choose SBP", chromedp.WaitVisible(chromedp.ID("method-sbp")), chromedp.Click(chromedp.ID("method-sbp")))
	f.do("confirm in the SBP app inside the frame", chromedp.WaitVisible(chromedp.ID("pay")), chromedp.Click(chromedp.ID("pay")))
	s.expectSucceeded(t, id)
}

func TestEmbeddedDeclineIsFailure(t *testing.T) {
	s := setupEmbed(t)
	id, token := s.create(t, "1000.00")
	s.open(s.origin, token)
	f := s.frame(t)
	f.do("choose card", chromedp.WaitVisible(chromedp.ID("method-bank_card")), chromedp.Click(chromedp.ID("method-bank_card")))
	f.do("enter a wrong 3-D Secure code", chromedp.WaitVisible(chromedp.ID("pay")), chromedp.Click(chromedp.ID("pay")),
		chromedp.WaitVisible(chromedp.ID("code")), chromedp.SendKeys(chromedp.ID("code"), "000000"), chromedp.Click(chromedp.ID("confirm")))
	if got := s.outcome(t, "failure"); got != "failure "+id+" "+payd.ReasonThreeDSFailed {
		t.Fatalf("outcome %q", got)
	}
	s.api.WaitStatus(id, "canceled")
}

// TestEmbeddedFrameRefusedToStranger: a page on an origin the shop did
// not list gets no form: its frame says the form opens only in the
// shop's page, and the page gets an error event with the reason.
func TestEmbeddedFrameRefusedToStranger(t *testing.T) {
	s := setupEmbed(t)
	stranger := merchantSite(t, "127.0.0.3", s.env.API.URL)
	_, token := s.create(t, "1000.00")
	s.open(stranger, token)
	if got := s.outcome(t, "error"); got != "error  origin_not_allowed" {
		t.Fatalf("the stranger's page heard %q", got)
	}
	if ev := get(s.tab, "DOM event", chromedp.Text(chromedp.ID("dom-event"))); ev != "payd:error" {
		t.Fatalf("DOM event %q, want payd:error", ev)
	}
	// No frame of the stranger's page holds the form, nor its amount.
	infos, err := chromedp.Targets(s.tab.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		if info.Type != "iframe" {
			continue
		}
		s.attached[info.TargetID] = true
		f := attach(t, s.tab, info.TargetID)
		if get(f, "look into the frame", chromedp.Evaluate[bool](`!!document.getElementById("method-bank_card") || !!document.getElementById("amount")`)) {
			t.Fatalf("the stranger's page shows the form in %s", info.URL)
		}
	}
	// The token was not spent: the shop's own page still opens the form.
	s.open(s.origin, token)
	s.frame(t).do("the shop's page shows the form", chromedp.WaitVisible(chromedp.ID("method-bank_card")))
}

// TestEmbeddedSpoofedOriginRefusedByBrowser: a stranger's page that
// claims the shop's origin in the frame's address, and hides its own by
// sending no Referer, passes the server's checks, but the form names the
// shop's origin alone in frame-ancestors, so the browser refuses to show
// it inside the stranger's page.
func TestEmbeddedSpoofedOriginRefusedByBrowser(t *testing.T) {
	s := setupEmbed(t)
	stranger := merchantSite(t, "127.0.0.3", s.env.API.URL)
	_, token := s.create(t, "1000.00")
	s.tab.do("open the stranger's page", chromedp.Navigate(stranger+"/?claim="+url.QueryEscape(s.origin)+"&token="+token),
		chromedp.WaitVisible(chromedp.ID("f")))
	want := `frame-ancestors ` + s.origin
	paydtest.Eventually(t, "the browser refuses the frame", func() bool {
		s.tab.mu.Lock()
		defer s.tab.mu.Unlock()
		for _, line := range s.tab.console {
			if strings.Contains(line, want) {
				t.Logf("the browser: %s", line)
				return true
			}
		}
		return false
	})
	infos, err := chromedp.Targets(s.tab.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		if info.Type != "iframe" {
			continue
		}
		f := attach(t, s.tab, info.TargetID)
		if get(f, "look into the frame", chromedp.Evaluate[bool](`!!document.getElementById("method-bank_card")`)) {
			t.Fatalf("the stranger's page shows the form in %s", info.URL)
		}
	}
}

// TestEmbeddedReloadReopensTheForm: a reload of the merchant's page
// opens the same payment's form again, where the payer pays; a reload
// after that shows the result and tells the page again.
func TestEmbeddedReloadReopensTheForm(t *testing.T) {
	s := setupEmbed(t)
	id, token := s.create(t, "1000.00")
	s.open(s.origin, token)
	s.frame(t).do("the form shows", chromedp.WaitVisible(chromedp.ID("method-bank_card")))
	s.open(s.origin, token)
	f := s.frame(t)
	f.do("the form shows again", chromedp.WaitVisible(chromedp.ID("method-sbp")), chromedp.Click(chromedp.ID("method-sbp")))
	f.do("confirm in the SBP app inside the frame", chromedp.WaitVisible(chromedp.ID("pay")), chromedp.Click(chromedp.ID("pay")))
	s.expectSucceeded(t, id)
	s.open(s.origin, token)
	if got := s.outcome(t, "success"); got != "success "+id+" " {
		t.Fatalf("after a reload of the paid page the outcome is %q", got)
	}
}

// TestEmbeddedFitsPhoneAndDesktop: the form takes its content's height at
// a phone's width and a desktop's, and nothing scrolls sideways. With
// -shots it writes the screenshots of docs/embedded.md.
func TestEmbeddedFitsPhoneAndDesktop(t *testing.T) {
	s := setupEmbed(t)
	for _, size := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"desktop", 1024, 640, false}, {"phone", 390, 844, true}} {
		_, token := s.create(t, "1000.00")
		opts := []chromedp.EmulateViewportOption{}
		if size.mobile {
			opts = append(opts, chromedp.EmulateMobile, chromedp.EmulatePortrait)
		}
		s.tab.do("viewport "+size.name, chromedp.EmulateViewport(size.width, size.height, opts...))
		s.open(s.origin, token)
		f := s.frame(t)
		f.do("the form shows", chromedp.WaitVisible(chromedp.ID("method-bank_card")))
		s.fitsContent(t, f)
		if *shots {
			shot := get(s.tab, "screenshot", chromedp.CaptureScreenshot())
			path := filepath.Join("..", "docs", "embedded-"+size.name+".png")
			if err := os.WriteFile(path, shot, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s (%d bytes)", path, len(shot))
		}
	}
}
