package e2e

// The payment link page in a real browser: a fixed sum paid through the
// sandbox bank, an open sum with a bad entry first, a reusable link paid
// twice, an expired link, and the page in each language.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// linkScenario is scenario at stage M5, with the service at hand for its
// clock.
type linkScenario struct {
	scenario
	env *paydtest.Env
}

func setupLinks(t *testing.T) *linkScenario {
	t.Helper()
	chromiumPath(t)
	env := paydtest.Start(t, paydtest.Backends(t)[0], &paydtest.Options{Stage: payd.StageM5})
	shop := env.NewShop(payd.RegionRU, "")
	env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"display_name": "Book Corner"}).Expect(t, 200)
	site := newShopSite(t)
	return &linkScenario{scenario: scenario{api: env.As(shop, false), site: site, tab: startBrowser(t, site.Server)}, env: env}
}

// createLink creates a link returning to the shop's site with the fields
// of extra and returns its id and url.
func (s *linkScenario) createLink(t *testing.T, extra map[string]any) (id, url string) {
	t.Helper()
	body := map[string]any{"description": "Order with two books", "return_url": s.site.URL + "/thanks"}
	for k, v := range extra {
		body[k] = v
	}
	l := s.api.Post("/v1/payment-links", fmt.Sprintf("e2e-link-%d", time.Now().UnixNano()), body).Expect(t, 201).JSON(t)
	id, _ = l["id"].(string)
	url, _ = l["url"].(string)
	if id == "" || url == "" {
		t.Fatalf("created link has no id or url: %v", l)
	}
	return id, url
}

// payFromLinkPage presses Pay on the open link page and goes on through
// the checkout, the sandbox bank and 3-D Secure back to the shop.
func (s *linkScenario) payFromLinkPage(t *testing.T) {
	t.Helper()
	s.tab.do("press pay on the link page", chromedp.Click(chromedp.ID("pay")))
	s.tab.do("reach the checkout page", chromedp.WaitVisible(chromedp.ID("method-bank_card")))
	if loc := get(s.tab, "checkout address", chromedp.Location()); !strings.Contains(loc, "/checkout/") {
		t.Fatalf("after Pay the browser is at %s", loc)
	}
	s.tab.do("choose card", chromedp.Click(chromedp.ID("method-bank_card")))
	s.tab.do("reach the sandbox bank page", chromedp.WaitVisible(chromedp.ID("pay")))
	s.tab.do("press pay at the bank", chromedp.Click(chromedp.ID("pay")))
	s.tab.do("reach the 3-D Secure page", chromedp.WaitVisible(chromedp.ID("code")))
	s.tab.do("enter the 3-D Secure code",
		chromedp.SendKeys(chromedp.ID("code"), "123456"),
		chromedp.Click(chromedp.ID("confirm")))
	s.expectReturned(t, s.site.URL+"/thanks")
}

func (s *linkScenario) link(t *testing.T, id string) map[string]any {
	t.Helper()
	return s.api.Get("/v1/payment-links/"+id).Expect(t, 200).JSON(t)
}

// waitLinkPayments waits until the link's n payments all succeeded.
func (s *linkScenario) waitLinkPayments(t *testing.T, id string, n int) []string {
	t.Helper()
	var ids []string
	paydtest.Eventually(t, fmt.Sprintf("%d succeeded payments of link %s", n, id), func() bool {
		ids = ids[:0]
		for _, p := range s.link(t, id)["payments"].([]any) {
			ids = append(ids, p.(string))
		}
		if len(ids) != n {
			return false
		}
		for _, p := range ids {
			if s.api.Get("/v1/payments/"+p).Expect(t, 200).JSON(t)["status"] != "succeeded" {
				return false
			}
		}
		return true
	})
	return ids
}

// clearAmount empties the amount field, as a payer selecting the entry
// and deleting it.
func clearAmount() chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](`document.getElementById("amount").value = ""`)
}

func TestLinkFixedAmountPaid(t *testing.T) {
	s := setupLinks(t)
	id, url := s.createLink(t, map[string]any{"amount": map[string]any{"value": "1500.00", "currency": "RUB"}, "order_id": "inv-e2e-1"})
	s.tab.do("open the link page", acceptLanguage("en"), chromedp.Navigate(url))
	s.expectPage(t, "the link page", "en", "amount", "1,500.00"+nbsp+"RUB")
	s.expectPage(t, "the link page", "en", "merchant", "Book Corner")
	s.payFromLinkPage(t)
	pays := s.waitLinkPayments(t, id, 1)
	paydtest.Eventually(t, "the link to be paid", func() bool { return s.link(t, id)["status"] == "paid" })
	if oid := s.api.Get("/v1/payments/"+pays[0]).Expect(t, 200).JSON(t)["order_id"]; oid != "inv-e2e-1" {
		t.Fatalf("the payment's order_id = %v", oid)
	}
	// The payer who comes back sees it paid, to whom and how much, with
	// the way back to the shop, and no button to pay again.
	s.tab.do("open the paid link", chromedp.Navigate(url))
	s.expectPage(t, "the paid link page", "en", "state", "Already paid")
	s.expectPage(t, "the paid link page", "en", "merchant", "Recipient: Book Corner")
	s.expectPage(t, "the paid link page", "en", "amount", "1,500.00"+nbsp+"RUB")
	if n := get(s.tab, "count pay buttons", chromedp.Evaluate[int](`document.querySelectorAll("#pay").length`)); n != 0 {
		t.Fatalf("the paid page has %d pay buttons", n)
	}
	s.tab.do("go back to the shop", chromedp.Click(chromedp.ID("back")))
	s.tab.do("land on the shop", chromedp.WaitVisible(chromedp.ID("thanks")))
}

func TestLinkOpenAmountBadEntryThenGood(t *testing.T) {
	s := setupLinks(t)
	id, url := s.createLink(t, map[string]any{"min_amount": map[string]any{"value": "100.00", "currency": "RUB"},
		"max_amount": map[string]any{"value": "5000.00", "currency": "RUB"}})
	s.tab.do("open the link page", acceptLanguage("en"), chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.ID("amount")))
	s.expectPage(t, "the open link page", "en", "range", "From 100.00"+nbsp+"RUB to 5,000.00"+nbsp+"RUB")
	s.tab.do("enter letters", chromedp.SendKeys(chromedp.ID("amount"), "abc"), chromedp.Click(chromedp.ID("pay")))
	s.expectPage(t, "the refused entry", "en", "amount-error", "Enter the amount in digits")
	s.tab.do("enter too much",
		// The old page's error goes first, so that the wait below sees
		// the next page's.
		chromedp.Evaluate[chromedp.Void](`document.getElementById("amount-error").remove()`),
		clearAmount(), chromedp.SendKeys(chromedp.ID("amount"), "6000"),
		chromedp.Click(chromedp.ID("pay")))
	s.expectPage(t, "the amount out of range", "en", "amount-error", "Enter an amount from 100.00"+nbsp+"RUB to 5,000.00"+nbsp+"RUB.")
	if v := get(s.tab, "the kept entry", chromedp.Evaluate[string](`document.getElementById("amount").value`)); v != "6000" {
		t.Fatalf("the field shows %q after the refusal, want the entry kept", v)
	}
	if got := s.link(t, id)["payments"].([]any); len(got) != 0 {
		t.Fatalf("refused entries made payments: %v", got)
	}
	s.tab.do("enter a good sum",
		clearAmount(), chromedp.SendKeys(chromedp.ID("amount"), "1 250,50"))
	s.payFromLinkPage(t)
	pays := s.waitLinkPayments(t, id, 1)
	if v := s.api.Get("/v1/payments/"+pays[0]).Expect(t, 200).JSON(t)["amount"].(map[string]any)["value"]; v != "1250.50" {
		t.Fatalf("the payment's amount = %v, want 1250.50", v)
	}
}

func TestLinkReusablePaidTwice(t *testing.T) {
	s := setupLinks(t)
	id, url := s.createLink(t, map[string]any{"amount": map[string]any{"value": "990.00", "currency": "RUB"}, "reusable": true,
		"order_id": "sub"})
	for round := 1; round <= 2; round++ {
		s.tab.do(fmt.Sprintf("open the link page, round %d", round), chromedp.Navigate(url), chromedp.WaitVisible(chromedp.ID("pay")))
		s.payFromLinkPage(t)
		s.waitLinkPayments(t, id, round)
	}
	l := s.link(t, id)
	if l["status"] != "active" {
		t.Fatalf("a reusable link after two payments is %v", l["status"])
	}
	for i, p := range l["payments"].([]any) {
		if oid := s.api.Get("/v1/payments/"+p.(string)).Expect(t, 200).JSON(t)["order_id"]; oid != fmt.Sprintf("sub-%d", i+1) {
			t.Fatalf("payment %d has order_id %v", i+1, oid)
		}
	}
}

func TestLinkExpiredPage(t *testing.T) {
	s := setupLinks(t)
	exp := s.env.Clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	id, url := s.createLink(t, map[string]any{"amount": map[string]any{"value": "100.00", "currency": "RUB"}, "expires_at": exp})
	s.env.Clock.Advance(2 * time.Hour)
	paydtest.Eventually(t, "the link to expire", func() bool { return s.link(t, id)["status"] == "expired" })
	s.tab.do("open the expired link", acceptLanguage("ru"), chromedp.Navigate(url))
	s.expectPage(t, "the expired link page", "ru", "state", "Срок действия ссылки истёк")
	s.expectPage(t, "the expired link page", "ru", "message", "Попросите у магазина новую")
	if n := get(s.tab, "count forms", chromedp.Evaluate[int](`document.forms.length`)); n != 0 {
		t.Fatalf("the expired page has %d forms", n)
	}
}

// TestLinkPageLanguages: the browser's language chooses the page's, in
// each of ru, kk and en, with amounts written for it; the page fits a
// phone without sideways scrolling.
func TestLinkPageLanguages(t *testing.T) {
	const width, height = 390, 844
	s := setupLinks(t)
	_, url := s.createLink(t, map[string]any{"min_amount": map[string]any{"value": "1500.00", "currency": "RUB"}})
	for _, tt := range []struct{ header, lang, pay, label, rangeStart string }{
		{"ru-RU,ru;q=0.9", "ru", "Оплатить", "Сумма к оплате", "От 1" + nbsp + "500,00" + nbsp + "₽"},
		{"kk-KZ,kk;q=0.9", "kk", "Төлеу", "Төленетін сома", "1" + nbsp + "500,00" + nbsp + "₽ бастап"},
		{"en-US,en;q=0.9", "en", "Pay", "Amount to pay", "From 1,500.00" + nbsp + "RUB"},
	} {
		s.tab.do("open the link page in "+tt.lang,
			chromedp.EmulateViewport(width, height, chromedp.EmulateMobile, chromedp.EmulatePortrait),
			acceptLanguage(tt.header), chromedp.Navigate(url))
		s.expectPage(t, "the "+tt.lang+" link page", tt.lang, "pay", tt.pay)
		s.expectPage(t, "the "+tt.lang+" link page", tt.lang, "range", tt.rangeStart)
		if got := get(s.tab, "label", chromedp.Evaluate[string](`document.querySelector('label[for="amount"]').innerText`)); !strings.Contains(got, tt.label) {
			t.Fatalf("%s label = %q, want %q", tt.lang, got, tt.label)
		}
		if tt.lang != "en" {
			s.expectNoEnglish(t, "the "+tt.lang+" link page")
		}
		if fits := get(s.tab, "measure the page",
			chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`)); !fits {
			t.Fatalf("the %s link page scrolls sideways at %dpx", tt.lang, width)
		}
	}
}
