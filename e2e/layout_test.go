package e2e

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/money"
)

// screens are the widths every dashboard page must fit: two common
// phones (the narrowest Android width and an iPhone's) and two common
// desktop screens.
var screens = []struct {
	name          string
	width, height int64
	mobile        bool
}{
	{"phone-360", 360, 780, true},
	{"phone", 390, 844, true},
	{"desktop", 1366, 768, false},
	{"desktop-1920", 1920, 1080, false},
}

// layoutProblems lists what does not fit on the page the tab shows: the
// document wider than the viewport, an element whose box passes the
// right or left edge of what clips it (its nearest ancestor that is not
// overflow: visible, or the viewport), and an element whose content is
// wider than its own box (text or a child spilling out). Content inside
// a scroll container of its own (a code block) may run past that
// container: it is reached by scrolling the container, not the page.
// Items of a flex or grid box must not cover one another.
// Form fields scroll their own text and are left out, as is a text
// ending in an ellipsis on purpose that its title gives whole.
const layoutProblems = `(() => {
	const vw = document.documentElement.clientWidth;
	const out = [];
	if (document.documentElement.scrollWidth > vw) {
		out.push("the page is " + document.documentElement.scrollWidth + " px wide in a viewport of " + vw + " px");
	}
	const name = e => {
		let s = e.tagName.toLowerCase();
		if (e.id) s += "#" + e.id;
		if (typeof e.className === "string" && e.className.trim()) s += "." + e.className.trim().split(/\s+/).join(".");
		return s;
	};
	const path = e => {
		const p = [];
		for (let x = e; x && x !== document.body && p.length < 4; x = x.parentElement) p.unshift(name(x));
		return p.join(" > ") + " «" + (e.innerText || e.value || "").trim().slice(0, 40).replace(/\s+/g, " ") + "»";
	};
	const scrolls = v => v === "auto" || v === "scroll";
	const skip = "input, select, textarea, option, script, style, br, .sr-only, .sr-only *";
	for (const e of document.body.querySelectorAll("*")) {
		if (e.matches(skip) || !e.checkVisibility({visibilityProperty: true, contentVisibilityAuto: true})) continue;
		const r = e.getBoundingClientRect();
		if (r.width === 0 || r.height === 0) continue;
		let c = e.parentElement;
		while (c && c !== document.body && getComputedStyle(c).overflowX === "visible") c = c.parentElement;
		if (c && c !== document.body && scrolls(getComputedStyle(c).overflowX)) continue;
		const box = c && c !== document.body ? c.getBoundingClientRect() : {left: 0, right: vw};
		if (r.right > box.right + 1 || r.left < box.left - 1) {
			out.push(path(e) + " spans " + Math.round(r.left) + ".." + Math.round(r.right) + " px, outside " + Math.round(box.left) + ".." + Math.round(box.right));
			continue;
		}
		const cs = getComputedStyle(e);
		if (cs.display.startsWith("inline") && cs.display !== "inline-block" && cs.display !== "inline-flex") continue;
		if (scrolls(cs.overflowX)) continue;
		// A text cut short on purpose, said whole in its title.
		if (cs.textOverflow === "ellipsis" && e.title && e.title === e.textContent.trim()) continue;
		if (e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0) {
			out.push(path(e) + " holds " + e.scrollWidth + " px of content in " + e.clientWidth + " px");
		}
		// Items of a flex or grid box side by side must not cover each
		// other (a menu dropping over the page is positioned, so left out).
		if (/flex|grid/.test(cs.display)) {
			const items = [...e.children].filter(c => c.checkVisibility() && getComputedStyle(c).position !== "absolute")
				.map(c => [c, c.getBoundingClientRect()]).filter(([, b]) => b.width > 0 && b.height > 0);
			for (let i = 0; i < items.length; i++) {
				for (let j = i + 1; j < items.length; j++) {
					const [a, ra] = items[i], [b, rb] = items[j];
					const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
					const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
					if (w > 1 && h > 1) out.push(path(a) + " and " + name(b) + " overlap by " + Math.round(w) + "×" + Math.round(h) + " px");
				}
			}
		}
	}
	return out;
})()`

// layoutPage is a dashboard page the layout test opens: the page at path,
// then what is done on it before it is measured, if anything: its form
// posted, for the page the form answers with (a confirmation or a secret
// shown once, which no address reaches), or the rows the seed made waited
// for, so that an empty table is not measured in their place.
type layoutPage struct {
	name, path string
	then       []chromedp.Action[chromedp.Void]
}

// TestDashboardFitsEveryScreen opens every page of the dashboard at two
// phone and two desktop widths in ru, kk and en, filled with the longest
// values the service can hold (the largest amounts, 128-character order
// ids and descriptions, long shop names and kk's long labels), and
// measures that nothing runs past the screen or out of its box (the pages
// a form answers with and the signed-out ones of a sign-in's code and a
// setup link included); axe-core checks each page on a desktop in English
// and a phone in Kazakh. With
// PAYD_DOC_SCREENSHOTS set to a folder it also writes the pictures of
// docs/dashboard.md.
func TestDashboardFitsEveryScreen(t *testing.T) {
	d := openDesk(t, paydtest.Backends(t)[0], payd.RoleAdmin)
	var setup string
	pages := seedLongest(t, d, &setup)
	twoStep, twoStepPassword := secondFactorUser(t, d)
	shots := os.Getenv("PAYD_DOC_SCREENSHOTS")
	langs := []string{"ru", "kk", "en"}

	measure := func(screen, lang, page string) {
		t.Helper()
		for _, p := range get(d.tab, "measure "+page, chromedp.Evaluate[[]string](layoutProblems)) {
			t.Errorf("%s, %s, %s: %s", page, screen, lang, p)
		}
	}
	size := func(i int) {
		s := screens[i]
		opts := []chromedp.EmulateViewportOption{}
		if s.mobile {
			opts = append(opts, chromedp.EmulateMobile, chromedp.EmulatePortrait)
		}
		d.tab.do("set the screen to "+s.name, chromedp.EmulateViewport(s.width, s.height, opts...))
	}
	for i, s := range screens {
		size(i)
		for _, lang := range langs {
			d.tab.do("open the sign-in page", chromedp.Navigate(d.base+"/dashboard/?lang="+lang), chromedp.WaitVisible(chromedp.ID("signin")))
			measure(s.name, lang, "sign-in")
			if lang == "en" && s.name == "phone" {
				d.tab.checkAccessible(t, "sign-in, "+s.name)
			}
			d.tab.do("ask for the second factor's code", chromedp.Navigate(d.base+"/dashboard/signin?lang="+lang), chromedp.WaitVisible(chromedp.ID("signin")),
				chromedp.SendKeys(chromedp.CSS(`input[name="email"]`), twoStep),
				chromedp.SendKeys(chromedp.CSS(`input[name="password"]`), twoStepPassword),
				chromedp.Click(chromedp.ID("signin")),
				chromedp.WaitVisible(chromedp.ID("code")))
			measure(s.name, lang, "second-factor code")
			if lang == "en" && s.name == "desktop" || lang == "kk" && s.name == "phone" {
				d.tab.checkAccessible(t, "second-factor code, "+s.name+", "+lang)
			}
			// The half-made sign-in would answer the next visit with this
			// page again: forgotten, as by a browser closed.
			d.tab.do("forget the half-made sign-in", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, network.ClearBrowserCookies, cdp.Empty{})
				return err
			}))
			d.tab.do("open the password setup page", chromedp.Navigate(d.base+setup+"?lang="+lang), chromedp.WaitVisible(chromedp.ID("password_again")))
			measure(s.name, lang, "setup")
			if lang == "en" && s.name == "desktop" || lang == "kk" && s.name == "phone" {
				d.tab.checkAccessible(t, "setup, "+s.name+", "+lang)
			}
		}
	}
	size(0)
	d.signIn(t, d.email, d.match)
	for i, s := range screens {
		size(i)
		for _, lang := range langs {
			for _, p := range pages {
				d.tab.do("open "+p.name, chromedp.Navigate(d.base+p.path+sep(p.path)+"lang="+lang), chromedp.WaitReady(chromedp.CSS("footer.langs")))
				if p.then != nil {
					d.tab.do("make ready "+p.name, p.then...)
				}
				if got := get(d.tab, "the page's language", chromedp.Evaluate[string](`document.documentElement.lang`)); got != lang {
					t.Fatalf("%s: lang=%q, want %s%s", p.name, got, lang, d.tab.where())
				}
				measure(s.name, lang, p.name)
				// On a phone the header and the sections leave most of the
				// screen to the page: at most a third of its height.
				if s.mobile {
					if top := get(d.tab, "the header's height", chromedp.Evaluate[float64](`document.getElementById("main").getBoundingClientRect().top`)); top > float64(s.height)/3 {
						t.Errorf("%s, %s, %s: the header and sections take %.0f of %d px", p.name, s.name, lang, top, s.height)
					}
				}
				if lang == "en" && s.name == "desktop" || lang == "kk" && s.name == "phone" {
					d.tab.checkAccessible(t, p.name+", "+s.name+", "+lang)
				}
				if shots != "" && lang == "ru" && (s.name == "phone" || s.name == "desktop") && docShot[p.name] {
					png := get(d.tab, "screenshot", chromedp.CaptureScreenshot())
					if err := os.WriteFile(filepath.Join(shots, "dashboard-"+p.name+"-"+s.name+".png"), png, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				// The header's menus open over the page: measured open
				// too, on the two pages whose header differs (test and
				// live data).
				if !strings.HasSuffix(p.name, "home") {
					continue
				}
				if get(d.tab, "open the header's menus", chromedp.Evaluate[int](`(() => {
					const menus = document.querySelectorAll("header details");
					menus.forEach(m => m.open = true);
					return menus.length;
				})()`)) != 2 {
					t.Fatalf("%s: the header has not its two menus%s", p.name, d.tab.where())
				}
				measure(s.name, lang, p.name+" with the header's menus open")
			}
		}
	}
}

// secondFactorUser makes a colleague, with the longest address, whose
// sign-in asks for a code after the password.
func secondFactorUser(t *testing.T, d *desk) (email, password string) {
	t.Helper()
	ctx := context.Background()
	email = "konstantin.konstantinopolsky.second-factor@example-long-domain.kz"
	password = "a passphrase for the second factor"
	u, setup, err := d.env.Accounts.CreateUser(ctx, nil, d.shop.MerchantID, email, payd.RoleViewer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.env.Accounts.SetPassword(ctx, setup, password, "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	token, _, err := d.env.Accounts.SignIn(ctx, email, password, "192.0.2.1", "layout test")
	if err != nil {
		t.Fatal(err)
	}
	secret, _, err := d.env.Accounts.BeginTOTP(ctx, nil, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	code, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.env.Accounts.ConfirmTOTP(ctx, nil, token, code); err != nil {
		t.Fatal(err)
	}
	return email, password
}

// docShot names the pages docs/dashboard.md shows.
var docShot = map[string]bool{"home": true, "payments": true, "payment": true, "dispute": true, "balance": true}

func sep(path string) string {
	if strings.Contains(path, "?") {
		return "&"
	}
	return "?"
}

// seedLongest fills the desk's merchant with the longest values a page
// can show and returns every page of the dashboard with its objects.
func seedLongest(t *testing.T, d *desk, setupPath *string) []layoutPage {
	t.Helper()
	long := func(prefix string, n int) string {
		return prefix + strings.Repeat("7", n-len(prefix))
	}
	// A second shop, in kz, with a long legal name: the shop picker lists
	// every shop of the merchant.
	kzName := "ТОО «Алматинский центр бытовой техники и электроники» — интернет-магазин"
	kz := d.env.AdminDo("POST", "/admin/v1/shops", map[string]any{"merchant_id": d.shop.MerchantID, "region": "kz", "name": kzName}).Expect(t, 201).JSON(t)
	kzShop := &paydtest.Shop{ID: kz["id"].(string), MerchantID: d.shop.MerchantID, Region: payd.RegionKZ}
	kzShop.TestKey = d.env.AdminDo("POST", "/admin/v1/shops/"+kzShop.ID+"/keys", map[string]any{"mode": "test"}).Expect(t, 201).JSON(t)["secret"].(string)
	kzAPI := d.env.As(kzShop, false)

	// cut keeps the first n characters of s: the API's bounds count
	// characters, not bytes.
	cut := func(s string, n int) string { return string([]rune(s)[:n]) }
	description := strings.Repeat("Холодильник двухкамерный Samsung ", 4)[:128]
	pay := func(api *paydtest.Client, value, currency, order string) string {
		body := map[string]any{"amount": map[string]any{"value": value, "currency": currency}, "order_id": order,
			"description": description, "confirmation": map[string]any{"type": "qr"},
			"customer": map[string]any{"email": "konstantin.konstantinopolsky@example-long-domain.kz"}}
		id := api.Post("/v1/payments", "layout-"+order[:20], body).Expect(t, 201).JSON(t)["id"].(string)
		api.Post("/v1/test/payments/"+id+"/simulate", "layout-sim-"+order[:20], map[string]any{"outcome": "succeed"}).Expect(t, 202)
		return id
	}
	// The largest amounts a payment may carry, so that the balance's sums
	// reach eight digits before the decimals.
	var kzPays []string
	for i := range 4 {
		kzPays = append(kzPays, pay(kzAPI, "4999999.99", "KZT", long("kz-order-"+string(rune('a'+i))+"-", 128)))
	}
	payment := pay(d.api, "299999.99", "RUB", long("order-", 128))
	d.api.WaitStatus(payment, "succeeded")
	for _, id := range kzPays {
		kzAPI.WaitStatus(id, "succeeded")
	}
	link := d.api.Post("/v1/payment-links", "layout-link", map[string]any{"description": description,
		"amount": map[string]any{"value": "299999.99", "currency": "RUB"}, "order_id": long("link-", 128), "reusable": true}).Expect(t, 201).JSON(t)["id"].(string)
	hook := d.api.Post("/v1/webhook-endpoints", "layout-hook", map[string]any{
		"url":         "https://hooks.example-merchant-with-a-long-name.ru/payd/webhooks/" + strings.Repeat("x", 120),
		"description": description[:120], "events": []string{"payment.succeeded", "payment.canceled", "refund.succeeded"}}).Expect(t, 201).JSON(t)["id"].(string)

	// A day's register and a payout with rows to show: the money released
	// two days on, the register formed by hand (the automatic run kept a
	// month away, as the day is chosen here) and the kz shop's payout of
	// nearly all it has, to a card, with the longest description.
	d.env.AdminDo("PATCH", "/admin/v1/merchants/"+d.shop.MerchantID, map[string]any{"settlement_delay_days": 30}).Expect(t, 200)
	day := d.env.Clock.Now().In(payd.RegionRU.Location()).Format(time.DateOnly)
	d.env.Clock.Advance(48 * time.Hour)
	// Every payment's money, released by jobs one at a time: enough for
	// the payout and its fee, not merely some of it.
	paydtest.Eventually(t, "the kz shop's money released", func() bool {
		for _, it := range kzAPI.Get("/v1/balance").Expect(t, 200).JSON(t)["items"].([]any) {
			m := it.(map[string]any)
			if m["currency"] != "KZT" {
				continue
			}
			minor, err := money.ParseValue(m["payable"].(map[string]any)["value"].(string))
			return err == nil && minor >= 1_010_000_000
		}
		return false
	})
	settlement := d.env.AdminDo("POST", "/admin/v1/merchants/"+d.shop.MerchantID+"/settlements",
		map[string]any{"test": true, "currency": "RUB", "date": day}).Expect(t, 201).JSON(t)["id"].(string)
	kzAPI.Post("/v1/payouts", "layout-payout", map[string]any{"amount": map[string]any{"value": "9999999.99", "currency": "KZT"},
		"destination": map[string]any{"type": "card", "card_token": "tok_sandbox_4242"},
		"description": cut(strings.Repeat("Выплата за проданную бытовую технику ", 7), 256), "order_id": long("payout-", 128)}).Expect(t, 201)

	d.api.Post("/v1/refunds", "layout-refund", map[string]any{"payment_id": payment,
		"amount": map[string]any{"value": "149999.99", "currency": "RUB"}, "reason": description}).Expect(t, 201)
	dispute := d.api.Post("/v1/test/payments/"+payment+"/disputes", "layout-dispute", map[string]any{
		"amount": map[string]any{"value": "150000.00", "currency": "RUB"}, "reason_code": "13.1"}).Expect(t, 201).JSON(t)["id"].(string)

	// Evidence with the longest file name and comment, in the dispute's
	// rows.
	pdf := []byte("%PDF-1.4\n% receipt\n")
	name := cut(strings.Repeat("Кассовый_чек_и_накладная_на_доставку_", 8), 251) + ".pdf"
	up := d.api.Post("/v1/disputes/"+dispute+"/evidence/uploads", "layout-upload", map[string]any{
		"file_name": name, "content_type": "application/pdf", "size_bytes": len(pdf)}).Expect(t, 201).JSON(t)
	put, _ := http.NewRequest("PUT", up["upload_url"].(string), bytes.NewReader(pdf))
	put.Header.Set("Content-Type", "application/pdf")
	if resp, err := http.DefaultClient.Do(put); err != nil || resp.StatusCode != 200 {
		t.Fatalf("evidence upload: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	d.api.Post("/v1/disputes/"+dispute+"/evidence", "layout-evidence", map[string]any{"file_ids": []string{up["file_id"].(string)},
		"comment": cut(strings.Repeat("Товар доставлен покупателю и принят им без претензий, подпись в накладной. ", 60), 4096)}).Expect(t, 200)

	// A payment to refund from its page: the confirmation names the whole
	// refundable amount and the longest reason the form takes.
	toRefund := pay(d.api, "299999.99", "RUB", long("refund-order-", 128))
	d.api.WaitStatus(toRefund, "succeeded")
	refundReason := cut(strings.Repeat("Покупатель вернул товар надлежащего качества ", 6), 250)

	// A colleague with a long address, on the users' page and, after
	// the invitation, in the audit log; their setup link's page is
	// measured signed out.
	if _, setup, err := d.env.Accounts.CreateUser(context.Background(), nil, d.shop.MerchantID,
		"konstantin.konstantinopolsky.support-team@example-long-domain.kz", payd.RoleViewer); err != nil {
		t.Fatal(err)
	} else {
		*setupPath = "/dashboard/setup/" + setup
	}

	b := "/dashboard/test/"
	return []layoutPage{
		{"home", b + "?shop=" + d.shop.ID, nil}, // each round starts in the ru shop
		{"payments", b + "payments", nil},
		{"payments-all-shops", b + "payments?shops=all", nil},
		{"payment", b + "payments/" + payment, nil},
		{"refund-review", b + "payments/" + toRefund, []chromedp.Action[chromedp.Void]{
			chromedp.SetValue(chromedp.ID("refund-reason"), refundReason),
			chromedp.Click(chromedp.ID("refund-submit")),
			chromedp.WaitVisible(chromedp.ID("refund-confirm"))}},
		{"refunds", b + "refunds", nil},
		{"disputes", b + "disputes", nil},
		{"dispute", b + "disputes/" + dispute, []chromedp.Action[chromedp.Void]{chromedp.WaitVisible(chromedp.CSS("#evidence tbody tr"))}},
		{"links", b + "links", nil},
		{"link", b + "links/" + link, nil},
		{"payouts", b + "payouts", nil},
		{"balance", b + "balance", nil},
		{"settlement", b + "settlements/" + settlement, []chromedp.Action[chromedp.Void]{chromedp.WaitVisible(chromedp.CSS("#entries tbody tr"))}},
		{"developers", b + "developers", nil},
		{"keys", b + "developers/keys", nil},
		{"key-secret", b + "developers/keys", []chromedp.Action[chromedp.Void]{
			chromedp.Submit(chromedp.ID("rotate-form")),
			chromedp.WaitVisible(chromedp.ID("new-secret"))}},
		{"webhooks", b + "developers/webhooks", nil},
		{"webhook-secret", b + "developers/webhooks", []chromedp.Action[chromedp.Void]{
			chromedp.SetValue(chromedp.ID("url"), "https://hooks.example-merchant-with-a-long-name.ru/payd/webhooks/"+strings.Repeat("y", 120)),
			chromedp.SetValue(chromedp.ID("description"), description),
			chromedp.Click(chromedp.CSS(`input[value="payment.succeeded"]`)),
			chromedp.Submit(chromedp.ID("create-form")),
			chromedp.WaitVisible(chromedp.ID("new-secret"))}},
		{"webhook", b + "developers/webhooks/" + hook, nil},
		{"events", b + "developers/events", nil},
		{"embedding", b + "developers/embedding", nil},
		{"sandbox", b + "sandbox", nil},
		{"live-home", "/dashboard/", nil},
		{"users", "/dashboard/users", nil},
		{"audit", "/dashboard/audit", nil},
		{"account", "/dashboard/account", nil},
		{"second-factor", "/dashboard/account/second-factor", nil},
		{"not-found", b + "payments/pay_00000000000000000000000000", nil},
		// Last, as choosing a shop is remembered: the kz shop's long name
		// in the header, and its largest amounts.
		{"kz-home", b + "?shop=" + kzShop.ID, nil},
		{"kz-payments", b + "payments", nil},
		{"kz-payouts", b + "payouts", []chromedp.Action[chromedp.Void]{chromedp.WaitVisible(chromedp.CSS("#payouts tbody tr"))}},
	}
}

// The measurement can fail: a page wider than a phone, text spilling out
// of its box, a value pushed out of its card and two grid items on top of
// each other are each reported.
func TestLayoutCheckFindsProblems(t *testing.T) {
	site := newShopSite(t)
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>x</title></head><body>
<div id="wide" style="width:600px">wide</div>
<p id="spill" style="width:100px;white-space:nowrap">a sentence far too long for a hundred pixels</p>
<div id="card" style="width:200px;overflow:hidden"><span id="pushed" style="display:inline-block;margin-left:250px">500,00</span></div>
<div style="display:grid;grid-template-columns:100px 100px"><span id="one" style="width:150px;display:block">one</span><span id="two">two</span></div>
</body></html>`))
	}))
	t.Cleanup(bad.Close)
	tb := startBrowser(t, site.Server)
	tb.do("open a bad page on a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
		chromedp.Navigate(bad.URL), chromedp.WaitReady(chromedp.CSS("body")))
	found := strings.Join(get(tb, "measure", chromedp.Evaluate[[]string](layoutProblems)), "\n")
	for _, want := range []string{"the page is", "p#spill", "span#pushed", "span#one «one» and span#two overlap"} {
		if !strings.Contains(found, want) {
			t.Errorf("the measurement did not report %q; it reported:\n%s", want, found)
		}
	}
}
