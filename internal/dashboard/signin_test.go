package dashboard_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// A good password opens a session in an HttpOnly, SameSite=Lax cookie; a
// wrong password and an unknown email get the same page; signing out ends
// the session on the server, not only in the browser.
func TestSignIn(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		email, password := newUser(t, env, shop.MerchantID, payd.RoleViewer)
		v := newVisitor(t, env)

		if p := v.get("/dashboard/"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/dashboard/signin") {
			t.Fatalf("home without a session = %d to %q, want the sign-in page", p.status, p.location)
		}
		wrong := v.signedOutPost("/dashboard/signin", url.Values{"email": {email}, "password": {password + "x"}})
		unknown := v.signedOutPost("/dashboard/signin", url.Values{"email": {"nobody@shop.example"}, "password": {password}})
		for name, p := range map[string]page{"wrong password": wrong, "unknown email": unknown} {
			if p.status != http.StatusUnauthorized || !strings.Contains(p.body, "The email or the password is not right.") {
				t.Errorf("%s: %d\n%s", name, p.status, p.body)
			}
			if p.header.Get("Set-Cookie") != "" && strings.Contains(p.header.Get("Set-Cookie"), "payd_session=") {
				t.Errorf("%s set a session cookie", name)
			}
		}

		p := v.signedOutPost("/dashboard/signin", url.Values{"email": {strings.ToUpper(email)}, "password": {password}, "next": {"/dashboard/payments"}})
		if p.status != http.StatusSeeOther || p.location != "/dashboard/payments" {
			t.Fatalf("sign-in = %d to %q", p.status, p.location)
		}
		cookie := p.header.Get("Set-Cookie")
		for _, attr := range []string{"payd_session=", "HttpOnly", "SameSite=Lax", "Path=/dashboard/"} {
			if !strings.Contains(cookie, attr) {
				t.Errorf("session cookie %q lacks %s", cookie, attr)
			}
		}
		if strings.Contains(cookie, "Secure") {
			t.Errorf("session cookie over plain HTTP is Secure: %q", cookie)
		}
		home := v.get("/dashboard/")
		if home.status != http.StatusOK || !strings.Contains(home.body, email) {
			t.Fatalf("home = %d\n%s", home.status, home.body)
		}
		csp := home.header.Get("Content-Security-Policy")
		for _, d := range []string{"frame-ancestors 'none'", "script-src 'self'", "default-src 'none'"} {
			if !strings.Contains(csp, d) {
				t.Errorf("CSP %q lacks %s", csp, d)
			}
		}
		if strings.Contains(csp, "unsafe-inline") {
			t.Errorf("CSP allows inline code: %q", csp)
		}

		// A sign-in form posted from another site is refused before
		// anything is read.
		req, _ := http.NewRequest("POST", env.API.URL+"/dashboard/signin", strings.NewReader(url.Values{"email": {email}, "password": {password}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		if p := v.do(req); p.status != http.StatusForbidden {
			t.Errorf("cross-site sign-in = %d, want 403", p.status)
		}

		// Without the browser's pre-session token the form is refused:
		// another site cannot sign a visitor in to an account of its own.
		if p := newVisitor(t, env).post("/dashboard/signin", url.Values{"email": {email}, "password": {password}}); p.status != http.StatusForbidden {
			t.Errorf("sign-in without the form's token = %d, want 403", p.status)
		}

		// Sign out: the old cookie, replayed, no longer opens a page.
		old := v.c.Jar.Cookies(mustURL(t, env.API.URL+"/dashboard/"))
		csrf := formOf(t, home.body, "signout-form")
		if p := v.post("/dashboard/signout", csrf); p.status != http.StatusSeeOther {
			t.Fatalf("sign out = %d", p.status)
		}
		replay := newVisitor(t, env)
		replay.c.Jar.SetCookies(mustURL(t, env.API.URL+"/dashboard/"), old)
		if p := replay.get("/dashboard/"); p.status != http.StatusSeeOther {
			t.Fatalf("the signed-out session still opens home: %d", p.status)
		}
	})
}

// Failed sign-ins are throttled per address and, from many addresses, per
// account; the page says to wait and does not say whether the email
// exists.
func TestSignInThrottle(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], &paydtest.Options{TrustProxy: true, AuthFailuresPerMinute: 3})
	shop := env.NewShop(payd.RegionRU, "")
	email, password := newUser(t, env, shop.MerchantID, payd.RoleAdmin)

	one := newVisitor(t, env)
	one.addr = "203.0.113.7"
	for range 3 {
		if p := one.signedOutPost("/dashboard/signin", url.Values{"email": {"nobody@shop.example"}, "password": {"wrong"}}); p.status != http.StatusUnauthorized {
			t.Fatalf("failed sign-in = %d", p.status)
		}
	}
	// The address is out of tries: even the right password waits.
	if p := one.signedOutPost("/dashboard/signin", url.Values{"email": {email}, "password": {password}}); p.status != http.StatusTooManyRequests ||
		!strings.Contains(p.body, "Too many failed sign-ins") {
		t.Fatalf("fourth try from the address = %d\n%s", p.status, p.body)
	}

	if p := one.signedOutPost("/dashboard/signin", url.Values{"email": {email}, "password": {password}}); p.header.Get("Retry-After") == "" {
		t.Fatal("the refusal says not when to come back (Retry-After)")
	}

	// The account is guessed at from ten other addresses, one guess each:
	// an eleventh address is refused for this account, with the same
	// text an unknown email guessed as often gets, and may still sign in
	// to another.
	for _, target := range []string{email, "stranger@shop.example"} {
		for i := range 10 {
			v := newVisitor(t, env)
			v.addr = fmt.Sprintf("198.51.100.%d", i+1)
			if p := v.signedOutPost("/dashboard/signin", url.Values{"email": {target}, "password": {"wrong"}}); p.status != http.StatusUnauthorized {
				t.Fatalf("guess from %s = %d", v.addr, p.status)
			}
		}
		eleven := newVisitor(t, env)
		eleven.addr = "198.51.100.200"
		p := eleven.signedOutPost("/dashboard/signin", url.Values{"email": {target}, "password": {password}})
		if p.status != http.StatusTooManyRequests || !strings.Contains(p.body, "Too many failed sign-ins to this account") || p.header.Get("Retry-After") != "900" {
			t.Fatalf("%s, guessed ten times, from a fresh address = %d (Retry-After %q)\n%s", target, p.status, p.header.Get("Retry-After"), p.body)
		}
	}
	four := newVisitor(t, env)
	four.addr = "198.51.100.201"
	other, otherPassword := newUser(t, env, shop.MerchantID, payd.RoleViewer)
	four.signIn(other, otherPassword)
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestFailedSignInsNotice: the owner of an account guessed at is told, on
// the first page after signing in, how many attempts failed since the
// previous sign-in; the sign-in after that tells nothing again.
func TestFailedSignInsNotice(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], &paydtest.Options{TrustProxy: true})
	shop := env.NewShop(payd.RegionRU, "")
	email, password := newUser(t, env, shop.MerchantID, payd.RoleAdmin)
	for i := range 3 {
		v := newVisitor(t, env)
		v.addr = fmt.Sprintf("203.0.113.%d", i+1)
		if p := v.signedOutPost("/dashboard/signin", url.Values{"email": {email}, "password": {"guess"}}); p.status != http.StatusUnauthorized {
			t.Fatalf("guess = %d", p.status)
		}
	}
	owner := newVisitor(t, env)
	owner.signIn(email, password)
	if body := owner.get("/dashboard/").body; !strings.Contains(body, `id="failed-sign-ins"`) || !strings.Contains(body, "there were 3 failed attempts") {
		t.Fatalf("the home page after three failures tells nothing:\n%s", body)
	}
	again := newVisitor(t, env)
	again.signIn(email, password)
	if body := again.get("/dashboard/").body; strings.Contains(body, `id="failed-sign-ins"`) {
		t.Fatal("the next sign-in tells of the same failures again")
	}
}
