package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// dashboardUser is the dev.json member of the demo admin.
type dashboardUser struct {
	URL      string `json:"url"`
	Email    string `json:"email"`
	Password string `json:"password"`
}

// desk is the dashboard's side of the run: the demo admin's session cookie
// and the shop whose payments pages it reads.
type desk struct {
	client *http.Client
	base   string // http://127.0.0.1:port
	shopID string
	cookie string // payd_session=…
}

var preCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// nextPage is the href of a list page's rel="next" link, or nil. It is
// found with two byte searches from the link's end: a regular expression
// over a page of 50 rows cost this load generator more CPU than payd spent
// making the page, on the cores the two share.
func nextPage(page []byte) []byte {
	end := bytes.Index(page, []byte(`" rel="next">`))
	if end < 0 {
		return nil
	}
	const open = `<a href="`
	start := bytes.LastIndex(page[:end], []byte(open))
	if start < 0 || bytes.IndexByte(page[start+len(open):end], '"') >= 0 {
		return nil
	}
	return page[start+len(open) : end]
}

// signIn signs the demo admin in as a browser does: the sign-in page
// gives its pre-session cookie and form token, the post answers with the
// session cookie.
func signIn(ctx context.Context, client *http.Client, base, shopID string, u dashboardUser) (*desk, error) {
	if u.Email == "" {
		return nil, errors.New("dev.json has no dashboard user")
	}
	// The session cookie comes with the sign-in's redirect, which is
	// read rather than followed.
	noFollow := *client
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	client = &noFollow
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/dashboard/signin", nil)
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := preCSRF.FindSubmatch(body)
	var pre string
	for _, c := range resp.Cookies() {
		if c.Name == "payd_pre" {
			pre = c.Name + "=" + c.Value
		}
	}
	if m == nil || pre == "" {
		return nil, fmt.Errorf("sign-in page: status %d, no form token", resp.StatusCode)
	}
	form := url.Values{"csrf": {html.UnescapeString(string(m[1]))}, "email": {u.Email}, "password": {u.Password}, "next": {"/dashboard/"}}
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, base+"/dashboard/signin", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Cookie", pre)
	resp, err = client.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == "payd_session" && c.Value != "" {
			return &desk{client: client, base: base, shopID: shopID, cookie: c.Name + "=" + c.Value}, nil
		}
	}
	return nil, fmt.Errorf("sign-in: status %d, no session", resp.StatusCode)
}

// pagesWorker walks the shop's test payments in the dashboard, 50 rows a
// page, following the "older" link, and starts over at the end; each page
// is one operation. It is the API's list phase as a person sees it.
func (d *desk) pagesWorker(int) op {
	next := ""
	return func(ctx context.Context, _ int64) error {
		path := "/dashboard/test/payments?shop=" + url.QueryEscape(d.shopID)
		if next != "" {
			// The link keeps the list's filters, not the shop, which a
			// browser remembers in a cookie this client does not keep.
			path = "/dashboard/test/payments" + next + "&shop=" + url.QueryEscape(d.shopID)
		}
		b, err := d.get(ctx, path)
		next = ""
		if err != nil {
			return err
		}
		if !bytes.Contains(b, []byte(`id="payments"`)) {
			return errors.New("dashboard payments: no rows")
		}
		if m := nextPage(b); m != nil {
			next = html.UnescapeString(string(m))
		}
		return nil
	}
}

// get reads a signed-in page: an error unless it answers 200.
func (d *desk) get(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Cookie", d.cookie)
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("dashboard %s: status %d: %v", path, resp.StatusCode, err)
	}
	return b, nil
}

// dashPage is one page of the dashpages phase.
type dashPage struct{ name, path string }

// pages are the signed-in dashboard's pages of the shop's test data that
// the stage payd runs at (v1) serves, each read on its own in the
// dashpages phase: every page a person waits on, the payment's own page
// at paymentID. Disputes, payment links, payouts and the embedded form's
// page belong to later stages.
func (d *desk) pages(paymentID string) []dashPage {
	shop := "?shop=" + url.QueryEscape(d.shopID)
	out := []dashPage{
		{"home", ""}, {"payments", "payments"}, {"payment", "payments/" + url.PathEscape(paymentID)},
		{"refunds", "refunds"}, {"balance", "balance"}, {"developers", "developers"}, {"keys", "developers/keys"},
		{"webhooks", "developers/webhooks"}, {"events", "developers/events"},
		{"sandbox", "sandbox"}, {"users", "users"}, {"audit", "audit"}, {"account", "account"},
	}
	for i := range out {
		out[i].path = "/dashboard/test/" + out[i].path + shop
	}
	return out
}

// pageWorker reads one page again and again.
func (d *desk) pageWorker(path string) func(int) op {
	return func(int) op {
		return func(ctx context.Context, _ int64) error {
			_, err := d.get(ctx, path)
			return err
		}
	}
}
