package e2e

import (
	"context"
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

// office is the back office in one browser tab, where staff members take
// turns: each signs in after the previous one's cookies are gone.
type office struct {
	env *paydtest.Env
	tab *tab
}

const staffPassword = "correct horse battery staple"

// seasoned makes a staff member whose second factor is enrolled already
// and returns its secret.
func (o *office) seasoned(t *testing.T, email string, role payd.StaffRole) (secret string) {
	t.Helper()
	_, secret, err := o.env.Accounts.SeedStaff(context.Background(), email, role, staffPassword)
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// leave forgets the tab's cookies, as a browser closed would.
func (o *office) leave() {
	o.tab.do("forget the session", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, network.ClearBrowserCookies, cdp.Empty{})
		return err
	}))
}

// password signs in with email's password and waits for what comes next
// (the code, the enrolment or the home page: waitID).
func (o *office) password(email, waitID string) {
	o.tab.do("sign in as "+email, chromedp.Navigate(o.env.Admin.URL+"/office/signin?lang=en"), chromedp.WaitVisible(chromedp.ID("signin")),
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), staffPassword),
		chromedp.Click(chromedp.ID("signin")),
		chromedp.WaitVisible(chromedp.ID(waitID)))
}

// signIn signs a seasoned member in: password, then the code.
func (o *office) signIn(t *testing.T, email, secret string) {
	t.Helper()
	o.password(email, "code")
	code, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	o.tab.do("enter the code", chromedp.SendKeys(chromedp.ID("code"), code), chromedp.Submit(chromedp.ID("code-form")),
		chromedp.WaitVisible(chromedp.CSS("nav.sections")))
}

// TestBackOfficeTwoPeopleApprove walks four eyes in the browser: a new
// finance member's first sign-in enrols its second factor before anything
// else; it proposes approving a register, which stays a draft and offers
// it no confirmation of its own; a second finance member confirms it from
// the approvals queue; a support member who posts the register's next
// step by a form made by hand is refused, and nothing changes.
func TestBackOfficeTwoPeopleApprove(t *testing.T) {
	chromiumPath(t)
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	o := &office{env: env, tab: startBrowser(t, nil)}
	ctx := context.Background()
	mer, err := env.Service.CreateMerchant(ctx, payd.MerchantCreate{Name: "Registered"})
	if err != nil {
		t.Fatal(err)
	}
	day := env.Clock.Now().In(payd.RegionRU.Location()).AddDate(0, 0, -1).Format("2006-01-02")
	reg, err := env.Service.FormSettlement(ctx, mer.ID, false, money.RUB, day)
	if err != nil {
		t.Fatal(err)
	}

	_, token, err := env.Accounts.CreateStaff(ctx, payd.BreakGlass("127.0.0.1"), "first@operator.test", payd.StaffFinance)
	if err != nil {
		t.Fatal(err)
	}
	o.tab.do("set the password", chromedp.Navigate(env.Admin.URL+"/office/setup/"+token+"?lang=en"), chromedp.WaitVisible(chromedp.ID("password_again")),
		chromedp.SendKeys(chromedp.ID("password"), staffPassword),
		chromedp.SendKeys(chromedp.ID("password_again"), staffPassword),
		chromedp.Submit(chromedp.ID("setup-form")),
		chromedp.WaitVisible(chromedp.ID("signin")))
	o.password("first@operator.test", "enroll-begin")
	o.tab.checkAccessible(t, "the enrolment")
	o.tab.do("begin the enrolment", chromedp.Submit(chromedp.ID("enroll-begin")), chromedp.WaitVisible(chromedp.ID("totp-secret")))
	o.tab.checkAccessible(t, "the enrolment's key")
	secret := get(o.tab, "read the key", chromedp.Text(chromedp.ID("totp-secret")))
	code, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	o.tab.do("turn it on", chromedp.SendKeys(chromedp.ID("code"), code), chromedp.Submit(chromedp.ID("enroll-confirm")),
		chromedp.WaitVisible(chromedp.ID("no-proposals")))

	o.tab.do("open the register queue", chromedp.Navigate(env.Admin.URL+"/office/settlements?status=draft"),
		chromedp.WaitVisible(chromedp.ID("register-"+reg.ID)))
	o.tab.checkAccessible(t, "the register queue")
	o.tab.do("propose the approval", chromedp.Click(chromedp.CSS(`#register-`+reg.ID+` form[action$="/approve"] button`)),
		chromedp.WaitVisible(chromedp.CSS("p.notice")))
	if st := storedRegister(t, env, reg.ID); st.Status != payd.SettlementDraft {
		t.Fatalf("the register after a proposal is %s, want draft", st.Status)
	}
	o.tab.do("open the approvals", chromedp.Navigate(env.Admin.URL+"/office/"), chromedp.WaitVisible(chromedp.ID("proposals")))
	o.tab.checkAccessible(t, "the approvals")
	if n := get(o.tab, "count own confirmations", chromedp.Evaluate[int](`document.querySelectorAll('#proposals form[action$="/confirm"]').length`)); n != 0 {
		t.Fatalf("the proposer is offered %d confirmations of its own proposal", n)
	}
	o.leave()

	o.signIn(t, "second@operator.test", o.seasoned(t, "second@operator.test", payd.StaffFinance))
	o.tab.do("confirm the approval", chromedp.WaitVisible(chromedp.ID("proposals")),
		chromedp.Click(chromedp.CSS(`#proposals form[action$="/confirm"] button`)),
		chromedp.WaitVisible(chromedp.ID("no-proposals")))
	if st := storedRegister(t, env, reg.ID); st.Status != payd.SettlementApproved {
		t.Fatalf("the register after the confirmation is %s, want approved", st.Status)
	}
	o.leave()

	o.signIn(t, "support@operator.test", o.seasoned(t, "support@operator.test", payd.StaffSupport))
	get(o.tab, "post the next step by hand", chromedp.Evaluate[bool](`(() => {
		const f = document.createElement("form");
		f.method = "post";
		f.action = "/office/settlements/`+reg.ID+`/send";
		const csrf = document.querySelector('#signout-form input[name="csrf"]').cloneNode();
		f.appendChild(csrf);
		document.body.appendChild(f);
		f.submit();
		return true;
	})()`))
	o.tab.do("the refusal", chromedp.WaitVisible(chromedp.ID("problem")))
	if msg := get(o.tab, "read the refusal", chromedp.Text(chromedp.ID("problem"))); !strings.Contains(msg, "Your role does not allow this") {
		t.Fatalf("the hand-posted form answered %q", msg)
	}
	if st := storedRegister(t, env, reg.ID); st.Status != payd.SettlementApproved {
		t.Fatalf("the register after a refused step is %s, want approved", st.Status)
	}
}

func storedRegister(t *testing.T, env *paydtest.Env, id string) (st *payd.Settlement) {
	t.Helper()
	err := env.Instance.Store.View(context.Background(), func(tx payd.Tx) (err error) {
		st, err = tx.SettlementGet(context.Background(), id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// officePages are the back office's pages the layout test measures, with
// an element each waits for: a merchant's shop, a payment of it and a
// dispute on that payment.
func officePages(shop *paydtest.Shop, payment, dispute string) []struct{ name, path, ready string } {
	return []struct{ name, path, ready string }{
		{"approvals", "/office/", "main"},
		{"registers", "/office/settlements?status=draft", "main"},
		{"merchants", "/office/merchants", "merchants"},
		{"merchant", "/office/merchants/" + shop.MerchantID, "merchant-facts"},
		{"shop", "/office/shops/" + shop.ID, "shop-facts"},
		{"disputes", "/office/disputes?test=true", "disputes"},
		{"dispute", "/office/disputes/" + dispute, "dispute-facts"},
		{"payment", "/office/payments?id=" + payment, "payment-id"},
		{"discrepancies", "/office/discrepancies", "main"},
		{"routes", "/office/routes", "main"},
		{"ledger", "/office/ledger", "main"},
		{"staff", "/office/staff", "staff"},
		{"audit", "/office/audit", "audit"},
	}
}

// disputedPayment makes a sandbox payment of shop, paid, and opens on it
// the dispute a bank reported; it returns both ids.
func disputedPayment(t *testing.T, env *paydtest.Env, shop *paydtest.Shop) (payment, dispute string) {
	t.Helper()
	c := env.As(shop, false)
	p := c.Post("/v1/payments", "office-pay", map[string]any{
		"amount": map[string]any{"value": "299999.99", "currency": "RUB"}, "order_id": strings.Repeat("o", 128),
		"description": strings.Repeat("Длинное описание заказа ", 5), "confirmation": map[string]any{"type": "qr"},
	}).Expect(t, 201).JSON(t)
	payment = p["id"].(string)
	c.Post("/v1/test/payments/"+payment+"/simulate", "office-sim", map[string]any{"outcome": "succeed"}).Expect(t, 202)
	c.WaitStatus(payment, "succeeded")
	d := env.AdminDo("POST", "/admin/v1/payments/"+payment+"/disputes", map[string]any{"kind": "chargeback",
		"reason_code": "4853"}).Expect(t, 201).JSON(t)
	return payment, d["id"].(string)
}

// TestBackOfficeFitsEveryScreen opens the back office's pages, signed out
// and signed in, at the phone and desktop widths in Russian and English,
// and measures that nothing runs past the screen or out of its box;
// axe-core checks each in English on a desktop and in Russian on a phone.
func TestBackOfficeFitsEveryScreen(t *testing.T) {
	chromiumPath(t)
	env := paydtest.Start(t, paydtest.Backends(t)[0], &paydtest.Options{Stage: payd.StageM2})
	o := &office{env: env, tab: startBrowser(t, nil)}
	shop := env.NewShop(payd.RegionRU, "")
	payment, dispute := disputedPayment(t, env, shop)
	const email = "a-rather-long-name.of-an-administrator@operations.operator.payd.test"
	secret := o.seasoned(t, email, payd.StaffAdmin)
	_, setup, err := env.Accounts.CreateStaff(context.Background(), payd.BreakGlass("127.0.0.1"), "new@operator.test", payd.StaffSupport)
	if err != nil {
		t.Fatal(err)
	}
	check := func(screen, lang, page string) {
		t.Helper()
		for _, p := range get(o.tab, "measure "+page, chromedp.Evaluate[[]string](layoutProblems)) {
			t.Errorf("%s, %s, %s: %s", page, screen, lang, p)
		}
		if lang == "en" && screen == "desktop" || lang == "ru" && screen == "phone" {
			o.tab.checkAccessible(t, page+", "+screen+", "+lang)
		}
	}
	size := func(i int) {
		s := screens[i]
		opts := []chromedp.EmulateViewportOption{}
		if s.mobile {
			opts = append(opts, chromedp.EmulateMobile, chromedp.EmulatePortrait)
		}
		o.tab.do("set the screen to "+s.name, chromedp.EmulateViewport(s.width, s.height, opts...))
	}
	langs := []string{"ru", "en"}
	for i, s := range screens {
		size(i)
		for _, lang := range langs {
			o.leave()
			o.tab.do("open the sign-in", chromedp.Navigate(env.Admin.URL+"/office/signin?lang="+lang), chromedp.WaitVisible(chromedp.ID("signin")))
			check(s.name, lang, "sign-in")
			o.tab.do("open the setup", chromedp.Navigate(env.Admin.URL+"/office/setup/"+setup+"?lang="+lang), chromedp.WaitVisible(chromedp.ID("password_again")))
			check(s.name, lang, "setup")
			o.password(email, "code")
			check(s.name, lang, "second-factor code")
		}
	}
	// One sign-in for the signed-in pages: a code is used once.
	code, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	o.tab.do("enter the code", chromedp.SendKeys(chromedp.ID("code"), code), chromedp.Submit(chromedp.ID("code-form")),
		chromedp.WaitVisible(chromedp.CSS("nav.sections")))
	for i, s := range screens {
		size(i)
		for _, lang := range langs {
			for _, p := range officePages(shop, payment, dispute) {
				o.tab.do("open "+p.name, chromedp.Navigate(env.Admin.URL+p.path+sep(p.path)+"lang="+lang), chromedp.WaitVisible(chromedp.ID(p.ready)))
				if got := get(o.tab, "the page's language", chromedp.Evaluate[string](`document.documentElement.lang`)); got != lang {
					t.Fatalf("%s: lang=%q, want %s%s", p.name, got, lang, o.tab.where())
				}
				check(s.name, lang, p.name)
			}
		}
	}
}
