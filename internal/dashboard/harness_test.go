package dashboard_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// visitor is a browser without JavaScript: a cookie jar and forms read
// from the pages as a browser would submit them.
type visitor struct {
	t    testing.TB
	env  *paydtest.Env
	c    *http.Client
	addr string // X-Forwarded-For, when the service trusts it
	pre  string // the signed-out forms' token
}

func newVisitor(t testing.TB, env *paydtest.Env) *visitor {
	jar, _ := cookiejar.New(nil)
	return &visitor{t: t, env: env, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

type page struct {
	status   int
	body     string
	location string
	header   http.Header
}

func (v *visitor) do(req *http.Request) page {
	v.t.Helper()
	if v.addr != "" {
		req.Header.Set("X-Forwarded-For", v.addr)
	}
	if req.Header.Get("Accept-Language") == "" {
		req.Header.Set("Accept-Language", "en")
	}
	resp, err := v.c.Do(req)
	if err != nil {
		v.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return page{status: resp.StatusCode, body: string(b), location: resp.Header.Get("Location"), header: resp.Header}
}

func (v *visitor) get(path string) page {
	v.t.Helper()
	req, _ := http.NewRequest("GET", v.env.API.URL+path, nil)
	return v.do(req)
}

// post sends a form as the dashboard's own page would: same origin.
func (v *visitor) post(path string, form url.Values) page {
	v.t.Helper()
	req, _ := http.NewRequest("POST", v.env.API.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return v.do(req)
}

// signedOutPost posts a form of signing in (sign-in, code, setup) with
// the token of the browser's pre-session cookie, read from the sign-in
// page as a browser would have it.
func (v *visitor) signedOutPost(path string, form url.Values) page {
	v.t.Helper()
	if v.pre == "" {
		v.pre = formOf(v.t, v.get("/dashboard/signin").body, "signin-form").Get("csrf")
	}
	form.Set("csrf", v.pre)
	return v.post(path, form)
}

// formOf returns the hidden inputs of the form with id in the page.
func formOf(t testing.TB, body, id string) url.Values {
	t.Helper()
	start := strings.Index(body, `id="`+id+`"`)
	if start < 0 {
		t.Fatalf("no form %q on the page:\n%s", id, body)
	}
	end := strings.Index(body[start:], "</form>")
	vals := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(body[start:start+end], -1) {
		vals.Set(m[1], html.UnescapeString(m[2]))
	}
	return vals
}

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)"`)

// signIn signs the visitor in and fails the test unless it worked.
func (v *visitor) signIn(email, password string) {
	v.t.Helper()
	p := v.signedOutPost("/dashboard/signin", url.Values{"email": {email}, "password": {password}, "next": {"/dashboard/"}})
	if p.status != http.StatusSeeOther || !isHome(p.location) {
		v.t.Fatalf("sign-in answered %d to %q:\n%s", p.status, p.location, p.body)
	}
}

// isHome reports whether location is a home page of the dashboard, of
// either mode, with or without a shop chosen: where a sign-in lands.
func isHome(location string) bool {
	u, err := url.Parse(location)
	return err == nil && (u.Path == "/dashboard/" || u.Path == "/dashboard/test/")
}

// newUser makes a dashboard user of the merchant with a password, as the
// operator and the setup link do.
func newUser(t testing.TB, env *paydtest.Env, merchantID string, role payd.Role) (email, password string) {
	t.Helper()
	ctx := context.Background()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	email = "staff-" + hex.EncodeToString(b) + "@shop.example"
	_, token, err := env.Accounts.CreateUser(ctx, nil, merchantID, email, role)
	if err != nil {
		t.Fatal(err)
	}
	password = "correct horse battery " + hex.EncodeToString(b)
	if _, err := env.Accounts.SetPassword(ctx, token, password, "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	return email, password
}

func idemKey() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// paidPayment makes a test payment of value through the API and pays it
// in the sandbox; two-stage leaves it waiting for capture.
func paidPayment(t *testing.T, c *paydtest.Client, value, orderID string, twoStage bool) string {
	t.Helper()
	body := map[string]any{"amount": map[string]any{"value": value, "currency": "RUB"}, "order_id": orderID,
		"capture": !twoStage, "confirmation": map[string]any{"type": "qr"}}
	id := c.Post("/v1/payments", idemKey(), body).Expect(t, 201).JSON(t)["id"].(string)
	c.Post("/v1/test/payments/"+id+"/simulate", idemKey(), map[string]any{"outcome": "succeed"}).Expect(t, 202)
	want := "succeeded"
	if twoStage {
		want = "waiting_for_capture"
	}
	c.WaitStatus(id, want)
	return id
}
