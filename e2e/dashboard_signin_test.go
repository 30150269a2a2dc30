package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// In the browser: failed sign-ins from one address are throttled (the
// right password waits too), and a user with a second factor is asked
// for its code after the password; the code opens the dashboard.
func TestDashboardThrottleAndSecondFactor(t *testing.T) {
	chromiumPath(t)
	env := paydtest.Start(t, paydtest.Backends(t)[0], &paydtest.Options{Stage: payd.StageM5, AuthFailuresPerMinute: 2})
	shop := env.NewShop(payd.RegionRU, "")
	d := &desk{env: env, shop: shop, api: env.As(shop, false), base: env.API.URL, tab: startBrowser(t, newShopSite(t).Server)}
	email, password := d.user(t, payd.RoleViewer)

	try := func(pw string) {
		d.tab.do("sign in", chromedp.Navigate(d.base+"/dashboard/signin?lang=en"), chromedp.WaitVisible(chromedp.ID("signin")),
			chromedp.SendKeys(chromedp.CSS(`input[name="email"]`), email),
			chromedp.SendKeys(chromedp.CSS(`input[name="password"]`), pw),
			chromedp.Click(chromedp.ID("signin")))
	}
	for range 2 {
		try("not the password")
		d.tab.do("the refusal", chromedp.WaitVisible(chromedp.ID("signin-error")))
	}
	try(password)
	d.tab.do("the throttle", chromedp.WaitVisible(chromedp.ID("signin-error")))
	if msg := get(d.tab, "read it", chromedp.Text(chromedp.ID("signin-error"))); !strings.Contains(msg, "Too many failed sign-ins") {
		t.Fatalf("third try shows %q", msg)
	}

	// A second user turns the second factor on in the browser; its next
	// sign-in asks for the code after the password. (The address's tries
	// are spent for a minute: the throttles' clock moves on first.)
	env.AuthClock.Advance(2 * time.Minute)
	other, otherPassword := d.user(t, payd.RoleSupport)
	d.signIn(t, other, otherPassword)
	d.tab.do("begin the second factor",
		chromedp.Navigate(d.base+"/dashboard/account?lang=en"),
		chromedp.WaitVisible(chromedp.ID("totp-begin")),
		chromedp.Submit(chromedp.ID("totp-begin")),
		chromedp.WaitVisible(chromedp.ID("totp-secret")))
	d.tab.checkAccessible(t, "second factor enrolment")
	secret := get(d.tab, "read the key", chromedp.Value(chromedp.ID("totp-secret")))
	// The link opens the same key in the phone's authenticator app: an
	// otpauth: address, not the #ZgotmplZ html/template writes for an
	// address it does not know.
	if href := get(d.tab, "read the link", chromedp.Evaluate[string](`document.getElementById("totp-link").href`)); !strings.HasPrefix(href, "otpauth://totp/") || !strings.Contains(href, "secret="+secret) {
		t.Fatalf("authenticator link href = %q, want otpauth://totp/… with the key", href)
	}
	// An authenticator app counts real time, and so does the service's
	// check of its codes, whatever the sandboxes' clock says.
	code, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	d.tab.do("confirm it",
		chromedp.SendKeys(chromedp.ID("totp-code"), code),
		chromedp.Submit(chromedp.ID("totp-confirm")))
	d.tab.waitFor(t, "the second factor on", `document.getElementById("totp-state") && document.getElementById("totp-state").textContent === "On"`)
	d.tab.do("sign out", chromedp.Submit(chromedp.ID("signout-form")), chromedp.WaitVisible(chromedp.ID("signin")))

	try2 := func() {
		d.tab.do("sign in again", chromedp.Navigate(d.base+"/dashboard/signin?lang=en"), chromedp.WaitVisible(chromedp.ID("signin")),
			chromedp.SendKeys(chromedp.CSS(`input[name="email"]`), other),
			chromedp.SendKeys(chromedp.CSS(`input[name="password"]`), otherPassword),
			chromedp.Click(chromedp.ID("signin")),
			chromedp.WaitVisible(chromedp.ID("code")))
	}
	try2()
	d.tab.checkAccessible(t, "second factor code")
	// The next step's code (one step of drift is allowed): the
	// enrolment's own is never taken twice.
	next, _ := totp.GenerateCode(secret, time.Now().Add(30*time.Second))
	d.tab.do("enter the code",
		chromedp.SendKeys(chromedp.ID("code"), next),
		chromedp.Submit(chromedp.ID("code")),
		chromedp.WaitVisible(chromedp.CSS(`nav.sections`)))
}
