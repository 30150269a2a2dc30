package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// desk is one dashboard test's world: payd with a shop at stage M5 (every
// section of the dashboard), a user of a role, and a browser.
type desk struct {
	env          *paydtest.Env
	shop         *paydtest.Shop
	api          *paydtest.Client
	tab          *tab
	base         string
	email, match string
}

func openDesk(t *testing.T, b paydtest.Backend, role payd.Role) *desk {
	t.Helper()
	chromiumPath(t)
	env := paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM5})
	shop := env.NewShop(payd.RegionRU, "")
	d := &desk{env: env, shop: shop, api: env.As(shop, false), base: env.API.URL, tab: startBrowser(t, newShopSite(t).Server)}
	d.email, d.match = d.user(t, role)
	return d
}

// user makes a dashboard user of the shop's merchant with a password.
func (d *desk) user(t *testing.T, role payd.Role) (email, password string) {
	t.Helper()
	email = fmt.Sprintf("%s-%d@shop.example", role, time.Now().UnixNano())
	_, token, err := d.env.Accounts.CreateUser(context.Background(), nil, d.shop.MerchantID, email, role)
	if err != nil {
		t.Fatal(err)
	}
	password = "a passphrase for " + string(role)
	if _, err := d.env.Accounts.SetPassword(context.Background(), token, password, "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	return email, password
}

// signIn fills the sign-in form as a person does.
func (d *desk) signIn(t *testing.T, email, password string) {
	t.Helper()
	d.tab.do("open the dashboard",
		chromedp.Navigate(d.base+"/dashboard/?lang=en"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="email"]`)))
	d.tab.do("sign in",
		chromedp.SendKeys(chromedp.CSS(`input[name="email"]`), email),
		chromedp.SendKeys(chromedp.CSS(`input[name="password"]`), password),
		chromedp.Click(chromedp.ID("signin")),
		chromedp.WaitVisible(chromedp.CSS(`nav.sections`)))
}

// pay makes a paid test payment through the API.
func (d *desk) pay(t *testing.T, value, orderID string) string {
	t.Helper()
	body := map[string]any{"amount": map[string]any{"value": value, "currency": "RUB"}, "order_id": orderID,
		"confirmation": map[string]any{"type": "qr"}}
	id := d.api.Post("/v1/payments", "e2e-"+orderID, body).Expect(t, 201).JSON(t)["id"].(string)
	d.api.Post("/v1/test/payments/"+id+"/simulate", "e2e-sim-"+orderID, map[string]any{"outcome": "succeed"}).Expect(t, 202)
	d.api.WaitStatus(id, "succeeded")
	return id
}

// TestDashboardSupportStory is a support agent's day, on both databases:
// a wrong password, then the right one; find order 4711 by its id, refund
// part of it; the refund is the API's. Every page passes axe-core.
func TestDashboardSupportStory(t *testing.T) {
	for _, b := range paydtest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			d := openDesk(t, b, payd.RoleSupport)
			id := d.pay(t, "1000.00", "order-4711")

			d.tab.do("open the dashboard",
				chromedp.Navigate(d.base+"/dashboard/?lang=en"),
				chromedp.WaitVisible(chromedp.CSS(`input[name="email"]`)))
			d.tab.checkAccessible(t, "sign-in")
			d.tab.do("sign in with a wrong password",
				chromedp.SendKeys(chromedp.CSS(`input[name="email"]`), d.email),
				chromedp.SendKeys(chromedp.CSS(`input[name="password"]`), "not the password"),
				chromedp.Click(chromedp.ID("signin")),
				chromedp.WaitVisible(chromedp.ID("signin-error")))
			if msg := get(d.tab, "read the refusal", chromedp.Text(chromedp.ID("signin-error"))); !strings.Contains(msg, "not right") {
				t.Fatalf("refusal = %q", msg)
			}
			d.signIn(t, d.email, d.match)
			d.tab.checkAccessible(t, "home")

			d.tab.do("search order 4711",
				chromedp.Navigate(d.base+"/dashboard/test/payments"),
				chromedp.WaitVisible(chromedp.ID("q")),
				chromedp.SendKeys(chromedp.ID("q"), "order-4711"),
				chromedp.Submit(chromedp.ID("q")))
			d.tab.waitFor(t, "the search's answer", `location.search.includes("q=order-4711") && document.readyState === "complete"`)
			d.tab.checkAccessible(t, "payments")
			d.tab.do("open the payment",
				chromedp.Click(chromedp.CSS(`#payments a[href$="`+id+`"]`)),
				chromedp.WaitVisible(chromedp.ID("refund-form")))
			d.tab.checkAccessible(t, "payment")
			d.tab.do("refund 250.50",
				chromedp.SendKeys(chromedp.ID("refund-amount"), "250.50"),
				chromedp.Click(chromedp.ID("refund-submit")),
				chromedp.WaitVisible(chromedp.ID("refund-confirm")),
				chromedp.Click(chromedp.ID("refund-confirm")),
				chromedp.WaitVisible(chromedp.CSS(`p.notice`)))
			if got := get(d.tab, "read the refunds", chromedp.Text(chromedp.ID("refunds"))); !strings.Contains(got, "250.50") {
				t.Fatalf("the page's refunds show %q", got)
			}
			refunds := d.api.Get("/v1/refunds?payment_id="+id).Expect(t, 200).JSON(t)["items"].([]any)
			if len(refunds) != 1 || refunds[0].(map[string]any)["amount"].(map[string]any)["value"] != "250.50" {
				t.Fatalf("refunds in the API = %v", refunds)
			}
			rid := refunds[0].(map[string]any)["id"].(string)
			paydtest.Eventually(t, "the refund's event", func() bool {
				return len(d.api.Get("/v1/events?object_id="+rid).Expect(t, 200).JSON(t)["items"].([]any)) == 1
			})
		})
	}
}

// A viewer sees no refund form, and a refund posted by hand from the page
// (as a user's script could) is refused and changes nothing.
func TestDashboardViewerCannotRefund(t *testing.T) {
	d := openDesk(t, paydtest.Backends(t)[0], payd.RoleViewer)
	id := d.pay(t, "100.00", "order-viewer")
	d.signIn(t, d.email, d.match)
	d.tab.do("open the payment",
		chromedp.Navigate(d.base+"/dashboard/test/payments/"+id),
		chromedp.WaitVisible(chromedp.ID("payment-id")))
	if n := get(d.tab, "count refund forms", chromedp.Evaluate[int](`document.querySelectorAll("#refund-form").length`)); n != 0 {
		t.Fatal("a viewer sees the refund form")
	}
	// The form a script could build: the session's CSRF token, a key and
	// an amount, sent to the refund route.
	get(d.tab, "post a refund by hand", chromedp.Evaluate[bool](`(() => {
		const f = document.createElement("form");
		f.method = "post";
		f.action = location.pathname + "/refunds";
		for (const [k, v] of [["csrf", document.querySelector('#signout-form input[name=csrf]').value],
				["idempotency_key", "dash_byhand0000000000000"], ["amount", "10.00"]]) {
			const i = document.createElement("input");
			i.type = "hidden"; i.name = k; i.value = v;
			f.appendChild(i);
		}
		document.body.appendChild(f);
		f.submit();
		return true;
	})()`))
	d.tab.do("wait for the answer", chromedp.WaitVisible(chromedp.ID("problem")))
	if msg := get(d.tab, "read the refusal", chromedp.Text(chromedp.ID("problem"))); !strings.Contains(msg, "role does not allow") {
		t.Fatalf("the hand-posted refund shows %q", msg)
	}
	if n := len(d.api.Get("/v1/refunds?payment_id="+id).Expect(t, 200).JSON(t)["items"].([]any)); n != 0 {
		t.Fatalf("%d refunds after the viewer's post", n)
	}
}

// dashboardPages are the pages every language and the accessibility check
// go through; PAYMENT stands for a payment's id.
var dashboardPages = []struct{ name, path, ready string }{
	{"home", "/dashboard/test/", "main h1"},
	{"payments", "/dashboard/test/payments", "#payments"},
	{"payment", "/dashboard/test/payments/PAYMENT", "#timeline"},
	{"users", "/dashboard/users", "#users"},
	{"audit", "/dashboard/audit", "main h1"},
	{"account", "/dashboard/account", "#totp-state"},
}

// Every page speaks ru, kk and en (the lang attribute and a translated
// heading) and passes axe-core; TestDashboardFitsEveryScreen measures
// that they fit.
func TestDashboardPagesInEachLanguage(t *testing.T) {
	d := openDesk(t, paydtest.Backends(t)[0], payd.RoleAdmin)
	id := d.pay(t, "1500.00", "order-lang")
	d.signIn(t, d.email, d.match)
	for _, lang := range []string{"ru", "kk", "en"} {
		for _, p := range dashboardPages {
			url := d.base + strings.ReplaceAll(p.path, "PAYMENT", id) + "?lang=" + lang
			d.tab.do("open "+p.name+" in "+lang, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(p.ready)))
			if got := get(d.tab, "lang of "+p.name, chromedp.Evaluate[string](`document.documentElement.lang`)); got != lang {
				t.Errorf("%s in %s: lang=%q", p.name, lang, got)
			}
			if lang != "en" {
				nav := get(d.tab, "navigation of "+p.name, chromedp.Text(chromedp.CSS(`nav.sections`)))
				if strings.Contains(nav, "Payments") || strings.Contains(nav, "Home") {
					t.Errorf("%s in %s shows English navigation: %q", p.name, lang, nav)
				}
			}
			if lang == "en" {
				d.tab.checkAccessible(t, p.name)
			}
		}
	}
}

// waitFor polls a condition in the page until it holds, within
// stepTimeout.
func (tb *tab) waitFor(t *testing.T, what, cond string) {
	t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(tb.ctx, time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](cond))
		cancel()
		if err == nil && ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: %s never held%s", what, cond, tb.where())
}
