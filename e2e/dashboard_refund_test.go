package e2e

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// A refund from the payment's page as a support agent makes it: the page
// shows a pending refund; an amount above what is refundable is refused
// with the typed amount and reason kept; an empty amount is named as the
// whole refundable amount; the confirmation names the amount and what
// stays refundable; a double submit of the confirmation that bypasses
// the page's script is one refund; the refunds table shows each refund's
// reason and who asked for it.
func TestDashboardRefundIsConfirmed(t *testing.T) {
	for _, b := range paydtest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			d := openDesk(t, b, payd.RoleSupport)
			id := d.pay(t, "1000.00", "order-confirm")
			// Answered by the sandbox on the service clock, which does not
			// move here: pending while the page is looked at.
			d.api.Post("/v1/refunds", "e2e-pending-refund", map[string]any{"payment_id": id, "reason": "damaged in transit",
				"amount":   map[string]any{"value": "300.00", "currency": "RUB"},
				"metadata": map[string]any{"sandbox_delay_seconds": "120"}}).Expect(t, 201)
			d.signIn(t, d.email, d.match)
			d.tab.do("open the payment",
				chromedp.Navigate(d.base+"/dashboard/test/payments/"+id),
				chromedp.WaitVisible(chromedp.ID("refund-form")))
			if got := get(d.tab, "read the pending line", chromedp.Text(chromedp.ID("refund-pending"))); !strings.Contains(got, "300.00") {
				t.Fatalf("pending refunds show %q", got)
			}

			d.tab.do("refund more than is left",
				chromedp.SendKeys(chromedp.ID("refund-amount"), "800"),
				chromedp.SendKeys(chromedp.ID("refund-reason"), "wrong size"),
				chromedp.Click(chromedp.ID("refund-submit")),
				chromedp.WaitVisible(chromedp.ID("refund-error")))
			d.tab.checkAccessible(t, "payment with a refused refund")
			if amount, reason := get(d.tab, "read the amount", chromedp.Value(chromedp.ID("refund-amount"))),
				get(d.tab, "read the reason", chromedp.Value(chromedp.ID("refund-reason"))); amount != "800" || reason != "wrong size" {
				t.Fatalf("after the refusal the form holds %q and %q, want what was typed", amount, reason)
			}

			get(d.tab, "empty the amount", chromedp.Evaluate[bool](`(document.getElementById("refund-amount").value = "") === ""`))
			d.tab.do("refund with the amount empty",
				chromedp.Click(chromedp.ID("refund-submit")),
				chromedp.WaitVisible(chromedp.ID("refund-confirm")))
			if got := get(d.tab, "read the amount named", chromedp.Text(chromedp.ID("confirm-amount"))); !strings.Contains(got, "the whole refundable amount") || !strings.Contains(got, "700.00") {
				t.Fatalf("the confirmation of an empty amount says %q", got)
			}
			d.tab.do("go back",
				chromedp.Click(chromedp.ID("refund-back")),
				chromedp.WaitVisible(chromedp.ID("refund-form")))

			d.tab.do("refund 200",
				chromedp.SendKeys(chromedp.ID("refund-amount"), "200"),
				chromedp.SendKeys(chromedp.ID("refund-reason"), "size did not fit"),
				chromedp.Click(chromedp.ID("refund-submit")),
				chromedp.WaitVisible(chromedp.ID("refund-confirm")))
			d.tab.checkAccessible(t, "refund confirmation")
			if amount, left := get(d.tab, "read the amount named", chromedp.Text(chromedp.ID("confirm-amount"))),
				get(d.tab, "read what is left", chromedp.Text(chromedp.ID("confirm-left"))); !strings.Contains(amount, "200.00") || !strings.Contains(left, "500.00") {
				t.Fatalf("the confirmation names %q, leaving %q", amount, left)
			}
			if n := len(d.api.Get("/v1/refunds?payment_id="+id).Expect(t, 200).JSON(t)["items"].([]any)); n != 1 {
				t.Fatalf("%d refunds before the confirmation, want the API's 1", n)
			}
			// The confirmation posted twice at once, past the script that
			// stops a second click (as the browser's own session): the
			// form's idempotency key makes one refund of it.
			form := get(d.tab, "read the confirmation", chromedp.Evaluate[map[string]string](
				`Object.fromEntries(new FormData(document.getElementById("refund-confirm-form")))`))
			var cookies []*network.Cookie
			d.tab.do("read the session", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				res, err := cdp.Call(ctx, tg, network.GetCookies, network.GetCookiesParams{})
				cookies = res.Cookies
				return err
			}))
			vals := url.Values{}
			for k, v := range form {
				vals.Set(k, v)
			}
			statuses := make([]int, 2)
			var wg sync.WaitGroup
			for i := range statuses {
				wg.Go(func() {
					req, _ := http.NewRequest("POST", d.base+"/dashboard/test/payments/"+id+"/refunds", strings.NewReader(vals.Encode()))
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
					for _, c := range cookies {
						req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
					}
					resp, err := http.DefaultTransport.RoundTrip(req)
					if err != nil {
						return
					}
					resp.Body.Close()
					statuses[i] = resp.StatusCode
				})
			}
			wg.Wait()
			// Each is the refund (303) or, while the other is still
			// being made, the contract's idempotency_in_progress (409).
			done := 0
			for _, st := range statuses {
				switch st {
				case http.StatusSeeOther:
					done++
				case http.StatusConflict:
				default:
					t.Fatalf("the two posts answered %v, want 303 or 409", statuses)
				}
			}
			if done == 0 {
				t.Fatalf("the two posts answered %v: neither made the refund", statuses)
			}
			d.tab.do("confirm",
				chromedp.Click(chromedp.ID("refund-confirm")),
				chromedp.WaitVisible(chromedp.CSS(`p.notice`)))
			refunds := d.api.Get("/v1/refunds?payment_id="+id).Expect(t, 200).JSON(t)["items"].([]any)
			if len(refunds) != 2 {
				t.Fatalf("%d refunds after the confirmation sent three times, want 2: %v", len(refunds), refunds)
			}
			table := get(d.tab, "read the refunds", chromedp.Text(chromedp.ID("refunds")))
			for _, want := range []string{"size did not fit", d.email, "damaged in transit", "API key"} {
				if !strings.Contains(table, want) {
					t.Errorf("the refunds table lacks %q:\n%s", want, table)
				}
			}
		})
	}
}

// A viewer whose selected shop is the kz shop follows a colleague's link
// to a payment of the ru shop: the payment opens, the ru shop is now
// selected, and the page says so.
func TestDashboardColleaguesLinkOpensInItsShop(t *testing.T) {
	for _, b := range paydtest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			d := openDesk(t, b, payd.RoleViewer)
			kz := d.env.NewShop(payd.RegionKZ, d.shop.MerchantID)
			id := d.pay(t, "1000.00", "order-shared")
			d.signIn(t, d.email, d.match)
			d.tab.do("pick the kz shop",
				chromedp.Navigate(d.base+"/dashboard/test/payments"),
				chromedp.WaitVisible(chromedp.ID("shop-pick")),
				chromedp.SetValue(chromedp.ID("shop-pick"), kz.ID),
				chromedp.Submit(chromedp.ID("shop-pick")))
			d.tab.waitFor(t, "the kz shop's list", `location.search.includes("shop=`+kz.ID+`") && document.readyState === "complete"`)
			d.tab.do("follow the colleague's link",
				chromedp.Navigate(d.base+"/dashboard/test/payments/"+id),
				chromedp.WaitVisible(chromedp.ID("payment-id")))
			d.tab.checkAccessible(t, "payment opened in its shop")
			if notice := get(d.tab, "read the notice", chromedp.Text(chromedp.CSS(`p.notice`))); !strings.Contains(notice, "Opened in the shop Shop ru") {
				t.Fatalf("notice %q", notice)
			}
			if got := get(d.tab, "read the selected shop", chromedp.Value(chromedp.ID("shop-pick"))); got != d.shop.ID {
				t.Fatalf("selected shop %s, want %s", got, d.shop.ID)
			}
		})
	}
}

// Signing in lands where the payments are: the merchant's only payment
// is a test payment of its second shop, and the first page is that
// shop's test home showing it, not the first shop's empty live day.
func TestDashboardSignInLandsWhereThePaymentsAre(t *testing.T) {
	for _, b := range paydtest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			d := openDesk(t, b, payd.RoleViewer)
			kz := d.env.NewShop(payd.RegionKZ, d.shop.MerchantID)
			d.env.As(kz, false).Post("/v1/payments", "e2e-kz-payment", map[string]any{
				"amount": map[string]any{"value": "2000.00", "currency": "KZT"}, "order_id": "order-kz",
				"confirmation": map[string]any{"type": "qr"}}).Expect(t, 201)
			d.signIn(t, d.email, d.match)
			loc, err := url.Parse(get(d.tab, "read the address", chromedp.Location()))
			if err != nil {
				t.Fatal(err)
			}
			if loc.Path != "/dashboard/test/" {
				t.Fatalf("the first page is %s, want the test home", loc)
			}
			if got := get(d.tab, "read the selected shop", chromedp.Value(chromedp.ID("shop-pick"))); got != kz.ID {
				t.Fatalf("selected shop %s, want the kz shop %s", got, kz.ID)
			}
			if today := get(d.tab, "read today", chromedp.Text(chromedp.CSS(`section[aria-labelledby="today"]`))); strings.Contains(today, "No payments yet today") {
				t.Fatalf("the first page shows no payments:\n%s", today)
			}
		})
	}
}
