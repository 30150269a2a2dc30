package e2e

// The payer's language in a real browser: one page per language, and the
// Russian one followed through the whole card flow.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/paydhq/payd"
)

const nbsp = "\u00a0"

// createLocalized creates a payment of value in currency with
// confirmation.locale (none when empty) and no return_url, so that the
// bank ends on its own closing page; it returns the confirmation_url.
func (s *scenario) createLocalized(t *testing.T, value, currency, locale string) string {
	t.Helper()
	conf := map[string]any{"type": "redirect"}
	if locale != "" {
		conf["locale"] = locale
	}
	body := map[string]any{
		"amount":       map[string]any{"value": value, "currency": currency},
		"order_id":     fmt.Sprintf("e2e-%d", time.Now().UnixNano()),
		"description":  "Заказ: две книги",
		"confirmation": conf,
	}
	created := s.api.Post("/v1/payments", fmt.Sprintf("e2e-idem-%d", time.Now().UnixNano()), body).Expect(t, 201).JSON(t)
	conf, _ = created["confirmation"].(map[string]any)
	url, _ := conf["confirmation_url"].(string)
	if url == "" {
		t.Fatalf("created payment has no confirmation_url: %v", created)
	}
	return url
}

// acceptLanguage makes the browser send header as its Accept-Language.
func acceptLanguage(header string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, network.SetExtraHTTPHeaders,
			network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": header}})
		return err
	})
}

// expectPage checks the page's lang and that the element id shows text.
func (s *scenario) expectPage(t *testing.T, what, lang, id, text string) {
	t.Helper()
	s.tab.do("reach "+what, chromedp.WaitVisible(chromedp.ID(id)))
	if got := get(s.tab, what+" lang", chromedp.Evaluate[string](`document.documentElement.lang`)); got != lang {
		t.Fatalf("%s has lang %q, want %q%s", what, got, lang, s.tab.where())
	}
	if got := get(s.tab, what+" text", chromedp.Text(chromedp.ID(id))); !strings.Contains(got, text) {
		t.Fatalf("%s shows %q in #%s, want %q%s", what, got, id, text, s.tab.where())
	}
}

// TestRussianPagesKeepTheirLanguage: confirmation.locale ru outranks the
// browser's English, and every page of the card flow stays Russian.
func TestRussianPagesKeepTheirLanguage(t *testing.T) {
	s := setup(t)
	url := s.createLocalized(t, "1500.00", "RUB", "ru")
	s.tab.do("open the checkout page", chromedp.Navigate(url))
	s.expectPage(t, "the checkout page", "ru", "amount", "1"+nbsp+"500,00"+nbsp+"₽")
	s.expectPage(t, "the checkout page", "ru", "method-bank_card", "Банковская карта")
	s.expectNoEnglish(t, "the checkout page")
	s.tab.do("choose card", chromedp.Click(chromedp.ID("method-bank_card")))
	s.expectPage(t, "the bank page", "ru", "pay", "Оплатить")
	s.expectNoEnglish(t, "the bank page")
	s.tab.do("press pay", chromedp.Click(chromedp.ID("pay")))
	s.expectPage(t, "the 3-D Secure page", "ru", "confirm", "Подтвердить")
	s.expectNoEnglish(t, "the 3-D Secure page")
	s.tab.do("enter the 3-D Secure code",
		chromedp.SendKeys(chromedp.ID("code"), "123456"),
		chromedp.Click(chromedp.ID("confirm")))
	s.expectPage(t, "the closing page", "ru", "title", "Готово")
	s.expectNoEnglish(t, "the closing page")
	if loc := get(s.tab, "closing page address", chromedp.Location()); !strings.HasSuffix(loc, "/done") {
		t.Fatalf("after 3-D Secure the browser is at %s, want the bank's closing page", loc)
	}
}

// TestKazakhBrowserGetsKazakh: no locale, a Kazakh browser, a kz shop.
func TestKazakhBrowserGetsKazakh(t *testing.T) {
	s := setupIn(t, payd.RegionKZ)
	url := s.createLocalized(t, "15000.00", "KZT", "")
	s.tab.do("open the checkout page in Kazakh", acceptLanguage("kk-KZ,kk;q=0.9"), chromedp.Navigate(url))
	s.expectPage(t, "the checkout page", "kk", "amount", "15"+nbsp+"000,00"+nbsp+"₸")
	s.expectPage(t, "the checkout page", "kk", "method-bank_card", "Банк картасы")
	s.expectNoEnglish(t, "the kk checkout page")
	s.tab.do("choose card", chromedp.Click(chromedp.ID("method-bank_card")))
	s.expectPage(t, "the kk bank page", "kk", "pay", "Төлеу")
	s.expectNoEnglish(t, "the kk bank page")
}

// TestEnglishBrowserGetsEnglish: no locale and a browser that asks for
// English. The header is set rather than left to Chromium, whose default
// follows the machine's locale; the page must win over the ru shop's
// region.
func TestEnglishBrowserGetsEnglish(t *testing.T) {
	s := setup(t)
	url := s.createLocalized(t, "1500.00", "RUB", "")
	s.tab.do("open the checkout page in English", acceptLanguage("en-US,en;q=0.9"), chromedp.Navigate(url))
	s.expectPage(t, "the checkout page", "en", "amount", "1,500.00"+nbsp+"RUB")
	s.expectPage(t, "the checkout page", "en", "method-bank_card", "Bank card")
}
