package dashboard_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/pquerna/otp/totp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

var setupURL = regexp.MustCompile(`id="setup-url" value="([^"]+)"`)

// An admin invites a user; the setup link is shown once, sets the
// password, and the new user signs in with the role given. A viewer
// cannot open the users page, and the audit log names who invited whom.
func TestInviteAndSetPassword(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		adminEmail, adminPassword := newUser(t, env, shop.MerchantID, payd.RoleAdmin)
		admin := newVisitor(t, env)
		admin.signIn(adminEmail, adminPassword)

		users := admin.get("/dashboard/users")
		form := formOf(t, users.body, "invite-form")
		form.Set("email", "new.support@shop.example")
		form.Set("role", "support")
		p := admin.post("/dashboard/users", form)
		m := setupURL.FindStringSubmatch(p.body)
		if p.status != 200 || m == nil {
			t.Fatalf("invite = %d\n%s", p.status, p.body)
		}
		link, _ := url.Parse(m[1])
		if again := admin.get("/dashboard/users"); strings.Contains(again.body, link.Path) {
			t.Fatal("the setup link is shown again")
		}
		// The same email again is refused next to the form.
		if p := admin.post("/dashboard/users", form); p.status != http.StatusConflict || !strings.Contains(p.body, `id="invite-error"`) {
			t.Fatalf("second invite = %d", p.status)
		}

		newcomer := newVisitor(t, env)
		setup := newcomer.get(link.Path)
		if setup.status != 200 {
			t.Fatalf("setup page = %d", setup.status)
		}
		if p := newcomer.signedOutPost(link.Path, url.Values{"password": {"short"}, "password_again": {"short"}}); p.status == 200 && !strings.Contains(p.body, "alert") {
			t.Fatalf("a short password was taken: %d", p.status)
		}
		pw := "a long enough passphrase"
		if p := newcomer.signedOutPost(link.Path, url.Values{"password": {pw}, "password_again": {pw}}); p.status != 200 || !strings.Contains(p.body, "Sign in to payd") {
			t.Fatalf("set password = %d\n%s", p.status, p.body)
		}
		if p := newcomer.signedOutPost(link.Path, url.Values{"password": {pw + "2"}, "password_again": {pw + "2"}}); p.status == 200 && !strings.Contains(p.body, `role="alert"`) {
			t.Fatal("the setup link worked twice")
		}
		newcomer.signIn("new.support@shop.example", pw)
		if p := newcomer.get("/dashboard/users"); p.status != http.StatusForbidden {
			t.Fatalf("support opened the users page: %d", p.status)
		}

		audit := admin.get("/dashboard/audit")
		for _, want := range []string{"Invite user", "Set password", adminEmail} {
			if !strings.Contains(audit.body, want) {
				t.Errorf("audit log lacks %q:\n%s", want, audit.body)
			}
		}
	})
}

// With the merchant's policy on, a user without a second factor can open
// only its enrolment; once enrolled, every sign-in asks for a code, a
// wrong or reused code is refused, and the right one opens the session.
func TestSecondFactor(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	shop := env.NewShop(payd.RegionRU, "")
	email, password := newUser(t, env, shop.MerchantID, payd.RoleAdmin)
	v := newVisitor(t, env)
	v.signIn(email, password)
	policy := formOf(t, v.get("/dashboard/users").body, "policy-form")
	policy.Set("require", "1")
	if p := v.post("/dashboard/users/policy", policy); p.status != http.StatusSeeOther {
		t.Fatalf("policy = %d", p.status)
	}

	other, otherPassword := newUser(t, env, shop.MerchantID, payd.RoleViewer)
	u := newVisitor(t, env)
	p := u.signedOutPost("/dashboard/signin", url.Values{"email": {other}, "password": {otherPassword}})
	if p.status != http.StatusSeeOther || p.location != "/dashboard/account/second-factor" {
		t.Fatalf("sign-in under the policy = %d to %q", p.status, p.location)
	}
	if p := u.get("/dashboard/test/payments"); p.status != http.StatusSeeOther || p.location != "/dashboard/account/second-factor" {
		t.Fatalf("a page before enrolment = %d to %q", p.status, p.location)
	}
	begun := u.post("/dashboard/account/second-factor", formOf(t, u.get("/dashboard/account/second-factor").body, "totp-begin"))
	secret := regexp.MustCompile(`id="totp-secret" class="mono" value="([A-Z2-7]+)"`).FindStringSubmatch(begun.body)
	if secret == nil {
		t.Fatalf("no secret shown:\n%s", begun.body)
	}
	// The link opens the same secret in an authenticator app:
	// html/template would have written #ZgotmplZ for an otpauth: address.
	link := regexp.MustCompile(`<a href="([^"]*)" id="totp-link">`).FindStringSubmatch(begun.body)
	if link == nil {
		t.Fatalf("no authenticator link:\n%s", begun.body)
	}
	href, err := url.Parse(html.UnescapeString(link[1]))
	if err != nil || href.Scheme != "otpauth" || href.Host != "totp" || href.Query().Get("secret") != secret[1] {
		t.Fatalf("authenticator link href = %q, want otpauth://totp/… with secret=%s", link[1], secret[1])
	}
	confirm := formOf(t, begun.body, "totp-confirm")
	confirm.Set("code", "000000")
	if p := u.post("/dashboard/account/second-factor/confirm", confirm); p.status == http.StatusSeeOther {
		t.Fatal("a wrong code turned the second factor on")
	}
	code, _ := totp.GenerateCode(secret[1], env.Clock.Now())
	confirm.Set("code", code)
	if p := u.post("/dashboard/account/second-factor/confirm", confirm); p.status != http.StatusSeeOther {
		t.Fatalf("confirm = %d\n%s", p.status, p.body)
	}
	if p := u.get("/dashboard/test/payments"); p.status != 200 {
		t.Fatalf("after enrolment = %d", p.status)
	}

	// A new sign-in: password, then the code; the code just used is
	// refused, the next step's is taken.
	fresh := newVisitor(t, env)
	if p := fresh.signedOutPost("/dashboard/signin", url.Values{"email": {other}, "password": {otherPassword}, "next": {"/dashboard/"}}); !strings.HasPrefix(p.location, "/dashboard/signin/code") {
		t.Fatalf("sign-in with a second factor = %d to %q", p.status, p.location)
	}
	if p := fresh.get("/dashboard/"); p.location != "/dashboard/signin/code" {
		t.Fatalf("home before the code = %d to %q", p.status, p.location)
	}
	if p := fresh.signedOutPost("/dashboard/signin/code", url.Values{"code": {code}}); p.status != http.StatusUnauthorized {
		t.Fatalf("a reused code = %d", p.status)
	}
	env.Clock.Advance(30e9)
	next, _ := totp.GenerateCode(secret[1], env.Clock.Now())
	if p := fresh.signedOutPost("/dashboard/signin/code", url.Values{"code": {next}, "next": {"/dashboard/"}}); p.status != http.StatusSeeOther || p.location != "/dashboard/" {
		t.Fatalf("the right code = %d to %q\n%s", p.status, p.location, p.body)
	}
	if p := fresh.get("/dashboard/"); p.status != 200 {
		t.Fatalf("home after the code = %d", p.status)
	}
}
