package embed_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/embed"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/sandbank"
)

// shopOrigin is the merchant page of these tests; otherOrigin a page the
// shop did not list.
const (
	shopOrigin  = "https://shop.example.com"
	otherOrigin = "https://evil.example.net"
	// secondOrigin is another page the shop lists.
	secondOrigin = "https://pay.shop.example.com"
)

type bundle struct {
	env    *paydtest.Env
	api    *paydtest.Client
	client *http.Client
}

func setup(t *testing.T, b paydtest.Backend) *bundle {
	t.Helper()
	env := paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM5})
	shop := env.NewShop(payd.RegionRU, "")
	env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"embed_origins": []string{shopOrigin, secondOrigin}}).Expect(t, 200)
	// The operator API refuses what is not an origin a shop may declare.
	env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"embed_origins": []string{shopOrigin, "http://shop.example.com"}}).
		ExpectError(t, 400, payd.CodeInvalidRequest, "embed_origins.1")
	return &bundle{env: env, api: env.As(shop, false), client: &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

var seq atomic.Int64

// create makes an embedded payment and returns its id and token.
func (b *bundle) create(t *testing.T, value string) (id, token string) {
	t.Helper()
	n := seq.Add(1)
	p := b.api.Post("/v1/payments", fmt.Sprintf("embed-key-%d", n), map[string]any{
		"amount": map[string]any{"value": value, "currency": "RUB"}, "order_id": fmt.Sprintf("embed-order-%d", n),
		"confirmation": map[string]any{"type": "embedded", "return_url": "https://shop.example.com/thanks"},
	}).Expect(t, 201).JSON(t)
	conf := p["confirmation"].(map[string]any)
	token, _ = conf["confirmation_token"].(string)
	if conf["type"] != "embedded" || !strings.HasPrefix(token, payd.EmbedTokenPrefix) || conf["confirmation_url"] != nil {
		t.Fatalf("confirmation = %v", conf)
	}
	return p["id"].(string), token
}

type page struct {
	status int
	body   string
	header http.Header
}

// frame loads the form as the widget's frame on a page of origin does.
func (b *bundle) frame(t *testing.T, token, origin string, hdr map[string]string) page {
	t.Helper()
	req, _ := http.NewRequest("GET", b.env.API.URL+embed.PayPath+token+"?origin="+url.QueryEscape(origin), nil)
	req.Header.Set("Sec-Fetch-Dest", "iframe")
	req.Header.Set("Referer", origin+"/")
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	return b.do(t, req)
}

func (b *bundle) do(t *testing.T, req *http.Request) page {
	t.Helper()
	resp, err := b.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return page{resp.StatusCode, string(body), resp.Header}
}

func (b *bundle) post(t *testing.T, u string, form url.Values) page {
	t.Helper()
	req, _ := http.NewRequest("POST", u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(t, req)
}

// framedBy returns the frame-ancestors of a page, "" when it has none.
func framedBy(p page) string {
	for _, d := range strings.Split(p.header.Get("Content-Security-Policy"), ";") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(d), "frame-ancestors "); ok {
			return v
		}
	}
	return ""
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

func TestEmbeddedForm(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setup(t, be)

		t.Run("FramedOnlyByItsOrigin", func(t *testing.T) {
			_, token := b.create(t, "100.00")
			p := b.frame(t, token, shopOrigin, nil)
			if p.status != 200 || !strings.Contains(p.body, `id="method-bank_card"`) {
				t.Fatalf("first load: %d\n%s", p.status, p.body)
			}
			if got := framedBy(p); got != shopOrigin {
				t.Errorf("frame-ancestors %q, want exactly %q", got, shopOrigin)
			}
			// No inline script: the one script is frame.js from payd.
			if p.header.Get("X-Frame-Options") != "" || !strings.Contains(p.header.Get("Content-Security-Policy"), "; script-src 'self';") {
				t.Errorf("headers of the form: %v", p.header)
			}
			if !strings.Contains(p.body, `src="/embed/v2/frame.js" data-origin="`+shopOrigin+`"`) {
				t.Errorf("the form does not load frame.js for its origin:\n%s", p.body)
			}
		})

		t.Run("ReloadReopens", func(t *testing.T) {
			// A reload of the page that opened the form opens it again
			// while no method was chosen; the other page the shop lists
			// finds the token bound, is framed by nobody and told
			// nothing.
			id, token := b.create(t, "100.00")
			b.frame(t, token, shopOrigin, nil)
			p := b.frame(t, token, shopOrigin, nil)
			if p.status != 200 || !strings.Contains(p.body, "method-bank_card") || framedBy(p) != shopOrigin {
				t.Fatalf("reload: %d\n%s", p.status, p.body)
			}
			if p := b.frame(t, token, secondOrigin, nil); p.status != http.StatusConflict || strings.Contains(p.body, "method-") ||
				strings.Contains(p.body, "data-event") || framedBy(p) != "'none'" {
				t.Fatalf("another listed page: %d %q\n%s", p.status, framedBy(p), p.body)
			}
			// Once the payer chose a method, a reload follows the attempt
			// on the result page.
			formURL := b.env.API.URL + embed.PayPath + token + "?origin=" + url.QueryEscape(shopOrigin)
			if r := b.post(t, formURL, url.Values{"csrf": {csrfRE.FindStringSubmatch(p.body)[1]}, "method": {"bank_card"}}); r.status != http.StatusSeeOther {
				t.Fatalf("choose: %d", r.status)
			}
			again := b.frame(t, token, shopOrigin, nil)
			if loc := again.header.Get("Location"); again.status != http.StatusSeeOther || !strings.HasPrefix(loc, b.env.API.URL+embed.DonePath+id+"/") {
				t.Fatalf("reload after the choice: %d to %q", again.status, loc)
			}
			// The first version's address of the form is the same page.
			old := b.env.API.URL + embed.PrefixV1 + "pay/" + token + "?origin=" + url.QueryEscape(shopOrigin)
			req, _ := http.NewRequest("GET", old, nil)
			req.Header.Set("Sec-Fetch-Dest", "iframe")
			if p := b.do(t, req); p.status != http.StatusSeeOther {
				t.Fatalf("the v1 address: %d", p.status)
			}
		})

		t.Run("ErrDuplicateOrderID", func(t *testing.T) {
			// An embedded payment's row goes with the commit, as a
			// redirect's: a taken order id still names its holder.
			body := map[string]any{"amount": map[string]any{"value": "100.00", "currency": "RUB"}, "order_id": "embed-dup",
				"confirmation": map[string]any{"type": "embedded"}}
			first := b.api.Post("/v1/payments", "embed-dup-1", body).Expect(t, 201).JSON(t)["id"].(string)
			r := b.api.Post("/v1/payments", "embed-dup-2", body)
			r.ExpectError(t, 409, payd.CodeDuplicateOrderID, "order_id")
			if !strings.Contains(string(r.Body), first) {
				t.Fatalf("duplicate_order_id does not name %s: %s", first, r.Body)
			}
		})

		t.Run("OneOfConcurrentLoads", func(t *testing.T) {
			// Loads of two listed pages racing for one token: the
			// payment's row lock lets one page bind it; that page's
			// loads show the form, the other's find it bound.
			_, token := b.create(t, "100.00")
			type answer struct {
				origin string
				status int
			}
			answers := make(chan answer, 6)
			for i := range cap(answers) {
				origin := []string{shopOrigin, secondOrigin}[i%2]
				go func() {
					req, _ := http.NewRequest("GET", b.env.API.URL+embed.PayPath+token+"?origin="+url.QueryEscape(origin), nil)
					req.Header.Set("Sec-Fetch-Dest", "iframe")
					resp, err := b.client.Do(req)
					if err != nil {
						answers <- answer{origin, 0}
						return
					}
					resp.Body.Close()
					answers <- answer{origin, resp.StatusCode}
				}()
			}
			shown := map[string]int{}
			for range cap(answers) {
				switch a := <-answers; a.status {
				case 200:
					shown[a.origin]++
				case http.StatusConflict:
				default:
					t.Errorf("a racing load got %d", a.status)
				}
			}
			if len(shown) != 1 || shown[shopOrigin]+shown[secondOrigin] != 3 {
				t.Fatalf("loads that showed the form, by origin: %v; want the 3 of one origin", shown)
			}
		})

		t.Run("ErrEmbedOrigin", func(t *testing.T) {
			_, token := b.create(t, "100.00")
			p := b.frame(t, token, otherOrigin, nil)
			// The stranger's page is told why, by an error event posted
			// to its own origin alone, and nothing of the payment.
			if p.status != http.StatusForbidden || framedBy(p) != otherOrigin || strings.Contains(p.body, "method-") ||
				!strings.Contains(p.body, `data-origin="`+otherOrigin+`" data-event="error"`) ||
				!strings.Contains(p.body, `data-reason="origin_not_allowed"`) || strings.Contains(p.body, "100,00") ||
				strings.Contains(p.body, `id="merchant"`) {
				t.Fatalf("stranger's page: %d %q\n%s", p.status, framedBy(p), p.body)
			}
			// Nothing was spent: the shop's own page opens it after.
			if p := b.frame(t, token, shopOrigin, nil); p.status != 200 {
				t.Fatalf("after a refused origin the shop's page gets %d", p.status)
			}
		})

		t.Run("ErrClaimedOrigin", func(t *testing.T) {
			// A page that claims the shop's origin but whose browser says
			// otherwise, or that is not a frame, is refused before the
			// token is spent.
			_, token := b.create(t, "100.00")
			for name, hdr := range map[string]map[string]string{
				"Referer":      {"Referer": otherOrigin + "/"},
				"NotAFrame":    {"Sec-Fetch-Dest": "document"},
				"NotCanonical": nil,
			} {
				origin := shopOrigin
				if name == "NotCanonical" {
					origin = shopOrigin + "/"
					hdr = map[string]string{"Referer": ""}
				}
				if p := b.frame(t, token, origin, hdr); p.status != http.StatusForbidden || framedBy(p) != "'none'" {
					t.Errorf("%s: %d %q", name, p.status, framedBy(p))
				}
			}
			// No Referer at all (the page's policy sends none) is not a
			// refusal: frame-ancestors still holds.
			if p := b.frame(t, token, shopOrigin, map[string]string{"Referer": ""}); p.status != 200 {
				t.Fatalf("without Referer: %d", p.status)
			}
		})

		t.Run("TokensDoNotCross", func(t *testing.T) {
			_, token := b.create(t, "100.00")
			if p := b.do(t, mustGet(b.env.API.URL+"/checkout/"+token)); p.status != 404 {
				t.Errorf("hosted checkout with an embedded token: %d", p.status)
			}
			redirect := b.api.Post("/v1/payments", "embed-redirect-key", map[string]any{
				"amount": map[string]any{"value": "100.00", "currency": "RUB"}, "order_id": "embed-redirect",
				"confirmation": map[string]any{"type": "redirect"},
			}).Expect(t, 201).JSON(t)
			u := redirect["confirmation"].(map[string]any)["confirmation_url"].(string)
			hosted := u[strings.LastIndex(u, "/")+1:]
			if p := b.frame(t, hosted, shopOrigin, nil); p.status != 404 || strings.Contains(p.body, "method-") {
				t.Errorf("embedded form with a hosted page's token: %d", p.status)
			}
		})

		t.Run("CardThrough3DSReportsSuccess", func(t *testing.T) {
			id, token := b.create(t, "100.00")
			formURL := b.env.API.URL + embed.PayPath + token + "?origin=" + url.QueryEscape(shopOrigin)
			p := b.frame(t, token, shopOrigin, nil)
			csrf := csrfRE.FindStringSubmatch(p.body)
			if csrf == nil {
				t.Fatalf("no form: %s", p.body)
			}
			// A form posted for another origin is refused and changes
			// nothing.
			wrong := b.env.API.URL + embed.PayPath + token + "?origin=" + url.QueryEscape(otherOrigin)
			if r := b.post(t, wrong, url.Values{"csrf": {csrf[1]}, "method": {"bank_card"}}); r.status != http.StatusForbidden {
				t.Fatalf("post for another origin: %d", r.status)
			}
			r := b.post(t, formURL, url.Values{"csrf": {csrf[1]}, "method": {"bank_card"}})
			if r.status != http.StatusSeeOther || !strings.Contains(r.header.Get("Location"), "/sandbox/bank/") {
				t.Fatalf("choose card: %d %s", r.status, r.header.Get("Location"))
			}
			bank := b.do(t, mustGet(r.header.Get("Location")))
			if bank.status != 200 || framedBy(bank) != shopOrigin || !strings.Contains(bank.body, "/embed/v2/frame.js") {
				t.Fatalf("bank page in the frame: %d %q", bank.status, framedBy(bank))
			}
			bankCSRF := csrfRE.FindStringSubmatch(bank.body)[1]
			ds := b.post(t, r.header.Get("Location"), url.Values{"csrf": {bankCSRF}, "action": {"pay"}})
			dsURL := b.env.API.URL + ds.header.Get("Location")
			dsPage := b.do(t, mustGet(dsURL))
			if framedBy(dsPage) != shopOrigin {
				t.Fatalf("3-D Secure page frame-ancestors %q", framedBy(dsPage))
			}
			done := b.post(t, dsURL, url.Values{"csrf": {csrfRE.FindStringSubmatch(dsPage.body)[1]}, "code": {sandbank.ThreeDSCode}})
			loc := done.header.Get("Location")
			if done.status != http.StatusSeeOther || !strings.HasPrefix(loc, b.env.API.URL+embed.DonePath+id+"/") {
				t.Fatalf("after 3-D Secure: %d %s", done.status, loc)
			}
			b.api.WaitStatus(id, "succeeded")
			res := b.do(t, mustGet(loc))
			if res.status != 200 || framedBy(res) != shopOrigin || !strings.Contains(res.body, `data-event="success"`) ||
				!strings.Contains(res.body, `data-payment="`+id+`"`) || !strings.Contains(res.body, `id="amount">100,00`) || !strings.Contains(res.body, `href="https://shop.example.com/thanks" target="_top"`) {
				t.Fatalf("result page: %d %q\n%s", res.status, framedBy(res), res.body)
			}
			// The result page's address is signed: another payment's id
			// under this signature is not found.
			forged := strings.Replace(loc, id, "pay_01J0000000000000000000000A", 1)
			if p := b.do(t, mustGet(forged)); p.status != 404 || strings.Contains(p.body, "data-event") {
				t.Fatalf("forged result address: %d", p.status)
			}
		})

		t.Run("DeclineReportsFailure", func(t *testing.T) {
			id, token := b.create(t, "100.00")
			formURL := b.env.API.URL + embed.PayPath + token + "?origin=" + url.QueryEscape(shopOrigin)
			p := b.frame(t, token, shopOrigin, nil)
			r := b.post(t, formURL, url.Values{"csrf": {csrfRE.FindStringSubmatch(p.body)[1]}, "method": {"bank_card"}})
			bank := b.do(t, mustGet(r.header.Get("Location")))
			d := b.post(t, r.header.Get("Location"), url.Values{"csrf": {csrfRE.FindStringSubmatch(bank.body)[1]}, "action": {"insufficient_funds"}})
			b.api.WaitStatus(id, "canceled")
			res := b.do(t, mustGet(d.header.Get("Location")))
			if !strings.Contains(res.body, `data-event="failure"`) || !strings.Contains(res.body, `data-reason="insufficient_funds"`) {
				t.Fatalf("result of a decline:\n%s", res.body)
			}
		})

		t.Run("LeaveReportsClosed", func(t *testing.T) {
			id, token := b.create(t, "100.00")
			formURL := b.env.API.URL + embed.PayPath + token + "?origin=" + url.QueryEscape(shopOrigin)
			p := b.frame(t, token, shopOrigin, nil)
			r := b.post(t, formURL, url.Values{"csrf": {csrfRE.FindStringSubmatch(p.body)[1]}, "method": {"bank_card"}})
			left := b.do(t, mustGet(r.header.Get("Location")+"/leave"))
			loc := left.header.Get("Location")
			if left.status != http.StatusSeeOther || !strings.HasPrefix(loc, b.env.API.URL+embed.DonePath+id+"/") {
				t.Fatalf("leave: %d %s", left.status, loc)
			}
			res := b.do(t, mustGet(loc))
			if !strings.Contains(res.body, `data-event="closed"`) || !strings.Contains(res.body, `data-reason="payer_left"`) ||
				strings.Contains(res.body, `http-equiv="refresh"`) {
				t.Fatalf("result after leaving the bank:\n%s", res.body)
			}
			// Without leaving, a payment still pending waits for the bank.
			res = b.do(t, mustGet(strings.TrimSuffix(loc, "?left=1")))
			if strings.Contains(res.body, "data-event") || !strings.Contains(res.body, `http-equiv="refresh"`) {
				t.Fatalf("result of a pending payment:\n%s", res.body)
			}
		})

		t.Run("SimulateAsRedirect", func(t *testing.T) {
			// Before the payer chose a method there is no attempt to
			// decide, as for a redirect; after, simulate decides it.
			id, token := b.create(t, "100.00")
			b.api.Post("/v1/test/payments/"+id+"/simulate", "embed-sim-1-"+id, map[string]any{"outcome": "succeed"}).
				ExpectError(t, 422, payd.CodeInvalidState, "")
			p := b.frame(t, token, shopOrigin, nil)
			formURL := b.env.API.URL + embed.PayPath + token + "?origin=" + url.QueryEscape(shopOrigin)
			b.post(t, formURL, url.Values{"csrf": {csrfRE.FindStringSubmatch(p.body)[1]}, "method": {"bank_card"}})
			b.api.Post("/v1/test/payments/"+id+"/simulate", "embed-sim-2-"+id, map[string]any{"outcome": "succeed"}).Expect(t, 202)
			b.api.WaitStatus(id, "succeeded")
		})

		// Last: it moves the service's clock.
		t.Run("ErrEmbedClosedWhenExpired", func(t *testing.T) {
			_, token := b.create(t, "100.00")
			b.env.AdminDo("POST", "/admin/v1/clock/advance", map[string]any{"seconds": 25 * 3600}).Expect(t, 200)
			p := b.frame(t, token, shopOrigin, nil)
			if strings.Contains(p.body, "method-") || !strings.Contains(p.body, `data-event="closed"`) ||
				!strings.Contains(p.body, `data-reason="payment_closed"`) || framedBy(p) != shopOrigin {
				t.Fatalf("expired payment's form: %d\n%s", p.status, p.body)
			}
			// Its token was not spent either: it is simply closed.
			if p := b.frame(t, token, shopOrigin, nil); !strings.Contains(p.body, `data-reason="payment_closed"`) {
				t.Fatalf("second load of an expired payment: %d", p.status)
			}
		})
	})
}

func mustGet(u string) *http.Request {
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		panic(err)
	}
	return req
}

// TestScripts: the widget and the frame's script are served as versioned
// scripts, cached a year without revalidation, loadable cross-origin.
func TestScripts(t *testing.T) {
	t.Parallel()
	b := setup(t, paydtest.Backends(t)[0])
	for path, marker := range map[string]string{embed.Script: `error: true`, "/embed/v2/frame.js": `ev === "error"`,
		"/embed/v1/payd.js": "PaydCheckout", "/embed/v1/frame.js": "postMessage"} {
		p := b.do(t, mustGet(b.env.API.URL+path))
		if p.status != 200 || !strings.HasPrefix(p.header.Get("Content-Type"), "text/javascript") ||
			p.header.Get("Cache-Control") != "public, max-age=31536000, immutable" ||
			p.header.Get("Cross-Origin-Resource-Policy") != "cross-origin" || !strings.Contains(p.body, marker) {
			t.Errorf("%s: %d %v", path, p.status, p.header)
		}
	}
}

// TestBelowM5: below stage M5 the widget's addresses do not exist and an
// embedded payment is not implemented, naming the stage.
func TestBelowM5(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	if r := env.Payer().Get(embed.Script); r.Status != 404 {
		t.Errorf("payd.js below M5: %d", r.Status)
	}
	shop := env.NewShop(payd.RegionRU, "")
	r := env.As(shop, false).Post("/v1/payments", "below-m5-key", map[string]any{
		"amount": map[string]any{"value": "100.00", "currency": "RUB"}, "order_id": "below-m5",
		"confirmation": map[string]any{"type": "embedded"},
	})
	r.ExpectError(t, 501, payd.CodeNotImplemented, "")
	if !strings.Contains(r.JSON(t)["description"].(string), "M5") {
		t.Errorf("501 does not name the stage: %s", r.Body)
	}
}

// TestLanguageAndMethodsOfTheRegion: a kz shop's form offers the kz QR
// method and speaks Kazakh by default; the widget's locale option chooses
// the language when the payment has none, and the payment's own locale
// wins over it.
func TestLanguageAndMethodsOfTheRegion(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], &paydtest.Options{Stage: payd.StageM5})
	shop := env.NewShop(payd.RegionKZ, "")
	env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"embed_origins": []string{shopOrigin}}).Expect(t, 200)
	b := &bundle{env: env, api: env.As(shop, false), client: http.DefaultClient}
	create := func(locale string) string {
		conf := map[string]any{"type": "embedded"}
		if locale != "" {
			conf["locale"] = locale
		}
		n := seq.Add(1)
		p := b.api.Post("/v1/payments", fmt.Sprintf("embed-kz-%d", n), map[string]any{
			"amount": map[string]any{"value": "5000.00", "currency": "KZT"}, "order_id": fmt.Sprintf("embed-kz-%d", n),
			"confirmation": conf,
		}).Expect(t, 201).JSON(t)
		return p["confirmation"].(map[string]any)["confirmation_token"].(string)
	}
	for _, tc := range []struct {
		name, locale, lang, want string
	}{
		{"RegionDefault", "", "", `<html lang="kk">`},
		{"WidgetOption", "", "ru", `<html lang="ru">`},
		{"PaymentLocaleWins", "en", "ru", `<html lang="en">`},
	} {
		token := create(tc.locale)
		u := b.env.API.URL + embed.PayPath + token + "?origin=" + url.QueryEscape(shopOrigin)
		if tc.lang != "" {
			u += "&lang=" + tc.lang
		}
		req := mustGet(u)
		req.Header.Set("Sec-Fetch-Dest", "iframe")
		p := b.do(t, req)
		if p.status != 200 || !strings.Contains(p.body, tc.want) || !strings.Contains(p.body, `id="method-kz_qr"`) {
			t.Errorf("%s: %d, want %s and the kz QR method\n%s", tc.name, p.status, tc.want, p.body)
		}
	}
}

// TestLivePaymentTakesHTTPSOriginsOnly: a shop may list a local origin for
// its developers, but a live payment's form opens only on its https
// origins; a test payment opens on both.
func TestLivePaymentTakesHTTPSOriginsOnly(t *testing.T) {
	t.Parallel()
	const local = "http://localhost:3000"
	bank := paydtest.NewLiveProvider("acquirer")
	env := paydtest.Start(t, paydtest.Backends(t)[0], &paydtest.Options{Stage: payd.StageM5, LiveProviders: []payd.Provider{bank}})
	shop := env.NewShop(payd.RegionRU, "")
	env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
	env.AdminDo("PUT", "/admin/v1/provider-routes", map[string]any{
		"region": "ru", "method": payd.MethodBankCard, "currency": "RUB", "providers": []string{"acquirer"}}).Expect(t, 200)
	env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"embed_origins": []string{shopOrigin, local}}).Expect(t, 200)
	for _, tc := range []struct {
		name   string
		live   bool
		origin string
		status int
	}{
		{"LiveHTTPS", true, shopOrigin, 200},
		{"ErrLiveLocal", true, local, http.StatusForbidden},
		{"TestLocal", false, local, 200},
	} {
		b := &bundle{env: env, api: env.As(shop, tc.live), client: http.DefaultClient}
		_, token := b.create(t, "100.00")
		if p := b.frame(t, token, tc.origin, nil); p.status != tc.status {
			t.Errorf("%s: %d, want %d", tc.name, p.status, tc.status)
		}
	}
}
