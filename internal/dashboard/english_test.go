package dashboard_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestNoEnglishOnRussianOrKazakhPages visits every page of the dashboard,
// and the pages of its refusals (a refund above the refundable amount, an
// origin written wrong, a payment that does not exist), in Russian and in
// Kazakh, and fails on any word in Latin letters that is not a name, an
// id or a code: an English text left in a page, a label or a refusal of
// the service.
func TestNoEnglishOnRussianOrKazakhPages(t *testing.T) {
	t.Parallel()
	env, shop, c := startM5(t, paydtest.Backends(t)[0])
	pay := paidPayment(t, c, "1300.00", "order-words", false)
	c.Post("/v1/refunds", idemKey(), map[string]any{"payment_id": pay, "amount": map[string]any{"value": "100.00", "currency": "RUB"}}).Expect(t, 201)
	other := paidPayment(t, c, "900.00", "order-dispute", false)
	dsp := c.Post("/v1/test/payments/"+other+"/disputes", idemKey(), map[string]any{
		"amount": map[string]any{"value": "300.00", "currency": "RUB"}, "reason_code": "13.1"}).Expect(t, 201).JSON(t)["id"].(string)
	hook := c.Post("/v1/webhook-endpoints", idemKey(), map[string]any{"url": "https://hooks.example.com/payd", "events": []string{"payment.succeeded"}}).
		Expect(t, 201).JSON(t)["id"].(string)
	admin := signedIn(t, env, shop, payd.RoleAdmin)
	base := "/dashboard/test/"
	paths := []string{"", "payments", "payments/" + pay, "payments/" + other, "refunds", "disputes", "disputes/" + dsp,
		"links", "payouts", "balance", "developers", "developers/keys", "developers/webhooks", "developers/webhooks/" + hook,
		"developers/events", "developers/embedding", "sandbox", "users", "audit", "account"}

	for _, lang := range []string{"ru", "kk"} {
		get := func(path string) page {
			t.Helper()
			req, _ := http.NewRequest("GET", env.API.URL+path, nil)
			req.Header.Set("Accept-Language", lang)
			return admin.do(req)
		}
		post := func(path string, form map[string][]string) page {
			t.Helper()
			req, _ := http.NewRequest("POST", env.API.URL+path, strings.NewReader(encode(form)))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			req.Header.Set("Accept-Language", lang)
			return admin.do(req)
		}
		check := func(what string, p page) {
			t.Helper()
			for _, w := range latinWords(visibleText(p.body)) {
				t.Errorf("%s %s: %q is not in the page's language", lang, what, w)
			}
		}
		for _, path := range paths {
			p := get(base + path)
			if p.status != http.StatusOK {
				t.Fatalf("%s %s = %d", lang, path, p.status)
			}
			check(path, p)
		}
		check("sign-in", get("/dashboard/signin"))

		// A refund above the refundable amount.
		form := formOf(t, get(base+"payments/"+pay).body, "refund-form")
		form.Set("amount", "5000")
		p := post(base+"payments/"+pay+"/refunds/review", form)
		if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="refund-error"`) {
			t.Fatalf("%s refund above the refundable amount = %d\n%s", lang, p.status, p.body)
		}
		if !strings.Contains(html.UnescapeString(p.body), "1\u00a0200,00\u00a0₽") {
			t.Errorf("%s: the refusal does not name the refundable amount as the page writes amounts", lang)
		}
		check("refund refused", p)
		// The question before a refund.
		form = formOf(t, get(base+"payments/"+pay).body, "refund-form")
		form.Set("amount", "100")
		if p = post(base+"payments/"+pay+"/refunds/review", form); p.status != http.StatusOK {
			t.Fatalf("%s refund review = %d\n%s", lang, p.status, p.body)
		}
		check("refund confirmation", p)
		// An origin written without its scheme.
		form = formOf(t, get(base+"developers/embedding").body, "embedding-form")
		form.Set("origins", "shop.example.com/path")
		p = post(base+"developers/embedding", form)
		if p.status != http.StatusBadRequest {
			t.Fatalf("%s wrong origin = %d\n%s", lang, p.status, p.body)
		}
		check("origin refused", p)
		// A payment that does not exist.
		p = get(base + "payments/pay_00000000000000000000000000")
		if p.status != http.StatusNotFound {
			t.Fatalf("%s missing payment = %d", lang, p.status)
		}
		check("missing payment", p)
	}
}

// TestLatinWordsFindsEnglish checks the check itself: an English message
// left on a page is found, names, ids and codes are not.
func TestLatinWordsFindsEnglish(t *testing.T) {
	body := `<html><head><title>Платёж</title><style>.a{color:red}</style></head><body>
<p class="error">payment not found</p><p title="Refunded">Возврат pay_01ABC · payment.succeeded · 1 300,00 RUB · SBP · payd</p>
<input placeholder="Search"><a href="/dashboard/payments">Платежи</a></body></html>`
	got := latinWords(visibleText(body))
	want := []string{"payment", "not", "found", "Refunded", "Search"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("latinWords = %q, want %q", got, want)
	}
}

var (
	// hiddenParts are not read as text: scripts, styles, comments, and
	// the JSON of events and code samples (<pre>, <code>), which is data.
	hiddenParts = regexp.MustCompile(`(?is)<(script|style|pre|code)\b.*?</(script|style|pre|code)>|<!--.*?-->`)
	// monoParts are the pages' ids and the API's values as they are
	// (class "mono": a payment's id, a dispute's status in the API).
	monoParts = regexp.MustCompile(`(?s)<(span|dd|td|a)\b[^>]*class="[^"]*\bmono\b[^"]*"[^>]*>[^<]*</(span|dd|td|a)>`)
	// shownAttr are the attributes a reader sees or hears: a field's
	// placeholder, an accessible name, a hover title, an image's text.
	shownAttr = regexp.MustCompile(`(?i)\s(?:placeholder|aria-label|title|alt|data-confirm)="([^"]*)"`)
	tag       = regexp.MustCompile(`(?s)<[^>]*>`)
	latin     = regexp.MustCompile(`[A-Za-z]`)
	cyrillic  = regexp.MustCompile(`\p{Cyrillic}`)
)

// visibleText is what a reader of the page sees: its text and the
// attributes shown to them, entities read.
func visibleText(body string) string {
	body = hiddenParts.ReplaceAllString(body, " ")
	body = monoParts.ReplaceAllString(body, " ")
	var attrs []string
	for _, m := range shownAttr.FindAllStringSubmatch(body, -1) {
		attrs = append(attrs, m[1])
	}
	return html.UnescapeString(tag.ReplaceAllString(body, " ") + " " + strings.Join(attrs, " "))
}

// allowed are the names and codes a Russian or Kazakh page writes in
// Latin letters as they are: the service's and the sandbox's names,
// currencies, payment schemes, file types, protocols.
var allowed = map[string]bool{
	"payd": true, "RUB": true, "KZT": true, "USD": true, "EUR": true, "SBP": true, "QR": true, "UTC": true,
	"PDF": true, "JPEG": true, "PNG": true, "CSV": true, "JSON": true, "HTTP": true, "HTTPS": true, "API": true,
	"URL": true, "https": true, "RFC": true, "id": true, "ms": true, "MiB": true, "Sandbox": true, "Bank": true, "Secure": true, "HMAC": true,
	"SHA-256": true, "Kaspi": true, "Visa": true, "Mastercard": true, "Mir": true, "IBAN": true, "BIC": true, "ID": true, "POST": true, "GET": true,
	"English": true,
	// The test's own data: the shop's name and the orders' ids.
	"Shop": true, "ru": true, "order-words": true, "order-dispute": true,
}

// latinWords are the words of text in Latin letters that are neither
// allowed nor ids and codes: a word with a digit, an underscore, a dot,
// an @, a slash or a colon inside it (pay_01…, payment.succeeded, an
// email, an address, 3-D, 13.1) is one, and so is a word that is partly
// Cyrillic (API-ключи).
func latinWords(text string) []string {
	var out []string
	for _, w := range strings.Fields(text) {
		w = strings.Trim(w, "()[]{},.;:!?«»\"'“”—–·…%+=*")
		if w == "" || !latin.MatchString(w) || cyrillic.MatchString(w) || allowed[w] || strings.ContainsAny(w, "0123456789_.@/:=#?&") {
			continue
		}
		out = append(out, w)
	}
	return out
}

func encode(form map[string][]string) string {
	var b strings.Builder
	for k, vs := range form {
		for _, v := range vs {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(k) + "=" + url.QueryEscape(v))
		}
	}
	return b.String()
}
