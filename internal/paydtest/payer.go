package paydtest

import (
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Payer is a browser without JavaScript: it follows the hosted pages by
// their forms, one request at a time, and stops at each redirect.
type Payer struct {
	t      testing.TB
	client *http.Client
	base   string
	// AcceptLanguage, when set, is sent as the browser's Accept-Language.
	AcceptLanguage string
	// ForwardedFor, when set, is sent as X-Forwarded-For: the payer's
	// address as a proxy would name it (Options.TrustProxy).
	ForwardedFor string
}

// Payer returns a payer against the service's pages. It keeps the
// cookies pages set, as a browser does.
func (e *Env) Payer() *Payer {
	jar, _ := cookiejar.New(nil)
	return &Payer{t: e.T, base: e.API.URL, client: &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       10 * time.Second,
		Jar:           jar,
	}}
}

var fieldRE = regexp.MustCompile(`name="([a-z_]+)" value="([^"]*)"`)

// Field returns the value of the page's first hidden or filled form field
// name, or "".
func (pg *Page) Field(name string) string {
	for _, m := range fieldRE.FindAllStringSubmatch(pg.Body, -1) {
		if m[1] == name {
			return html.UnescapeString(m[2])
		}
	}
	return ""
}

// Page is a fetched page.
type Page struct {
	Status   int
	Body     string
	Location string
	Header   http.Header
}

func (p *Payer) abs(u string) string {
	if strings.HasPrefix(u, "http") {
		return u
	}
	return p.base + u
}

// Get fetches a page.
func (p *Payer) Get(u string) *Page {
	p.t.Helper()
	req, err := http.NewRequest(http.MethodGet, p.abs(u), nil)
	if err != nil {
		p.t.Fatalf("GET %s: %v", u, err)
	}
	resp, err := p.do(req)
	if err != nil {
		p.t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return &Page{Status: resp.StatusCode, Body: string(b), Location: resp.Header.Get("Location"), Header: resp.Header}
}

func (p *Payer) do(req *http.Request) (*http.Response, error) {
	if p.AcceptLanguage != "" {
		req.Header.Set("Accept-Language", p.AcceptLanguage)
	}
	if p.ForwardedFor != "" {
		req.Header.Set("X-Forwarded-For", p.ForwardedFor)
	}
	return p.client.Do(req)
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// CSRF returns the form token of a page.
func (pg *Page) CSRF() string {
	m := csrfRE.FindStringSubmatch(pg.Body)
	if m == nil {
		return ""
	}
	return m[1]
}

// Post submits a form to u with the fields given as alternating names and
// values.
func (p *Payer) Post(u string, kv ...string) *Page {
	p.t.Helper()
	form := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		form.Set(kv[i], kv[i+1])
	}
	req, err := http.NewRequest(http.MethodPost, p.abs(u), strings.NewReader(form.Encode()))
	if err != nil {
		p.t.Fatalf("POST %s: %v", u, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := p.do(req)
	if err != nil {
		p.t.Fatalf("POST %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return &Page{Status: resp.StatusCode, Body: string(b), Location: resp.Header.Get("Location"), Header: resp.Header}
}

// Choose opens the checkout page at confirmationURL, chooses method and
// returns the provider page the payer is sent to.
func (p *Payer) Choose(confirmationURL, method string) string {
	p.t.Helper()
	pg := p.Get(confirmationURL)
	if pg.Status != 200 {
		p.t.Fatalf("checkout page: %d\n%s", pg.Status, pg.Body)
	}
	res := p.Post(confirmationURL, "csrf", pg.CSRF(), "method", method)
	if res.Status != http.StatusSeeOther || res.Location == "" {
		p.t.Fatalf("choosing %s: %d %s\n%s", method, res.Status, res.Location, res.Body)
	}
	return res.Location
}

// PayCard presses pay on the bank page at bankURL and enters code on the
// 3-D Secure page; it returns where the payer is sent.
func (p *Payer) PayCard(bankURL, code string) *Page {
	p.t.Helper()
	pg := p.Get(bankURL)
	if pg.Status != 200 {
		p.t.Fatalf("bank page: %d\n%s", pg.Status, pg.Body)
	}
	res := p.Post(bankURL, "csrf", pg.CSRF(), "action", "pay")
	if res.Status != http.StatusSeeOther {
		p.t.Fatalf("pay: %d\n%s", res.Status, res.Body)
	}
	ds := p.Get(res.Location)
	return p.Post(res.Location, "csrf", ds.CSRF(), "code", code)
}
