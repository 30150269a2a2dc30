package api_test

// The payer's language (docs/payments.md, Payer's language): every page of
// a payment speaks confirmation.locale, else the browser's
// Accept-Language, else the shop region's language, and writes amounts as
// a reader of that language expects.

import (
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/openapi"
)

// nbsp is the no-break space of amounts in Russian and Kazakh.
const nbsp = "\u00a0"

// localePayment is a create request in region's currency with locale (none
// when empty) and no return_url, so the bank ends on its own closing page.
func localePayment(value, currency, locale, confirmation string) map[string]any {
	conf := map[string]any{"type": confirmation}
	if locale != "" {
		conf["locale"] = locale
	}
	body := newPayment(value, nil)
	body["amount"] = map[string]any{"value": value, "currency": currency}
	body["description"] = "Заказ: две книги"
	body["confirmation"] = conf
	return body
}

// wantPage fails unless pg answered status in language lang with every
// text of want.
func wantPage(t *testing.T, what string, pg *paydtest.Page, status int, lang string, want ...string) {
	t.Helper()
	if pg.Status != status || !strings.Contains(pg.Body, `<html lang="`+lang+`">`) {
		t.Fatalf("%s: %d, want %d in lang %q:\n%s", what, pg.Status, status, lang, pg.Body)
	}
	for _, w := range want {
		if !strings.Contains(pg.Body, w) {
			t.Fatalf("%s lacks %q:\n%s", what, w, pg.Body)
		}
	}
}

func TestPayerLanguage(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		ru := env.As(env.NewShop(payd.RegionRU, ""), false)
		kz := env.As(env.NewShop(payd.RegionKZ, ""), false)
		create := func(t *testing.T, c *paydtest.Client, body map[string]any) map[string]any {
			t.Helper()
			return c.Post("/v1/payments", key(), body).Expect(t, 201).JSON(t)
		}
		confirmationURL := func(created map[string]any) string {
			return created["confirmation"].(map[string]any)["confirmation_url"].(string)
		}

		// The case of the report: locale ru wins over an English browser,
		// and the whole card flow stays in Russian.
		t.Run("LocaleKeepsTheFlow", func(t *testing.T) {
			payer := env.Payer()
			payer.AcceptLanguage = "en-US,en;q=0.9"
			url := confirmationURL(create(t, ru, localePayment("1500.00", "RUB", "ru", "redirect")))
			wantPage(t, "checkout", payer.Get(url), 200, "ru",
				"Выберите способ оплаты", "Банковская карта", "1"+nbsp+"500,00"+nbsp+"₽", "Заказ: две книги", "ТЕСТОВЫЙ ПЛАТЁЖ")
			bank := payer.Choose(url, "bank_card")
			pg := payer.Get(bank)
			wantPage(t, "bank page", pg, 200, "ru", "Оплатить", "Отказ: недостаточно средств", "1"+nbsp+"500,00"+nbsp+"₽")
			csrf := pg.CSRF()
			// A form with a wrong token: the page's own error, in Russian.
			wantPage(t, "bank page, stale form", payer.Post(bank, "csrf", "00", "action", "pay"), 403, "ru", "Форма устарела")
			ds := payer.Post(bank, "csrf", csrf, "action", "pay")
			if ds.Status != 303 {
				t.Fatalf("pay: %d\n%s", ds.Status, ds.Body)
			}
			dsPage := payer.Get(ds.Location)
			wantPage(t, "3-D Secure", dsPage, 200, "ru", "Подтвердите платёж", "Одноразовый код", "1"+nbsp+"500,00"+nbsp+"₽")
			done := payer.Post(ds.Location, "csrf", dsPage.CSRF(), "code", "123456")
			if done.Status != 303 || !strings.HasSuffix(done.Location, "/done") {
				t.Fatalf("after 3-D Secure: %d %s", done.Status, done.Location)
			}
			wantPage(t, "closing page", payer.Get(done.Location), 200, "ru", "Готово", "Эту страницу можно закрыть")
			wantPage(t, "second 3-D Secure", payer.Post(ds.Location, "csrf", dsPage.CSRF(), "code", "123456"), 409, "ru", "Уже обработано")
			wantPage(t, "bank page after the decision", payer.Get(bank), 200, "ru", "Банк уже принял решение")
			wantPage(t, "used checkout", payer.Get(url), 404, "ru", "Страница оплаты недоступна")
			wantPage(t, "checkout, stale form", payer.Post(url, "csrf", "00", "method", "bank_card"), 403, "ru", "Форма устарела")
		})

		t.Run("BrowserWithoutLocale", func(t *testing.T) {
			payer := env.Payer()
			payer.AcceptLanguage = "kk-KZ,kk;q=0.9,ru;q=0.8"
			url := confirmationURL(create(t, ru, localePayment("1500.00", "RUB", "", "redirect")))
			wantPage(t, "checkout", payer.Get(url), 200, "kk", "Төлем тәсілін таңдаңыз", "Банк картасы", "1"+nbsp+"500,00"+nbsp+"₽")
			wantPage(t, "bank page", payer.Get(payer.Choose(url, "bank_card")), 200, "kk", "Төлеу")
		})

		t.Run("RegionWithoutLocaleOrBrowser", func(t *testing.T) {
			payer := env.Payer()
			url := confirmationURL(create(t, kz, localePayment("15000.00", "KZT", "", "redirect")))
			wantPage(t, "kz checkout", payer.Get(url), 200, "kk", "Төлем тәсілін таңдаңыз", "15"+nbsp+"000,00"+nbsp+"₸")
			url = confirmationURL(create(t, ru, localePayment("1500.00", "RUB", "", "redirect")))
			wantPage(t, "ru checkout", payer.Get(url), 200, "ru", "Выберите способ оплаты", "1"+nbsp+"500,00"+nbsp+"₽")
			// A browser asking for none of the three falls to the region too.
			payer.AcceptLanguage = "de-DE,de;q=0.9"
			url = confirmationURL(create(t, kz, localePayment("15000.00", "KZT", "", "redirect")))
			wantPage(t, "kz checkout, German browser", payer.Get(url), 200, "kk", "15"+nbsp+"000,00"+nbsp+"₸")
		})

		t.Run("English", func(t *testing.T) {
			payer := env.Payer()
			payer.AcceptLanguage = "ru-RU,ru"
			url := confirmationURL(create(t, ru, localePayment("1500.00", "RUB", "en", "redirect")))
			wantPage(t, "checkout", payer.Get(url), 200, "en", "Choose how to pay", "Bank card", "1,500.00"+nbsp+"RUB")
		})

		t.Run("RegionForms", func(t *testing.T) {
			for locale, lang := range map[string]string{"ru_RU": "ru", "ru-KZ": "ru", "kk_KZ": "kk", "kk-KZ": "kk", "en-US": "en", "en_GB": "en"} {
				url := confirmationURL(create(t, kz, localePayment("15000.00", "KZT", locale, "redirect")))
				wantPage(t, "checkout of "+locale, env.Payer().Get(url), 200, lang)
			}
		})

		t.Run("QR", func(t *testing.T) {
			created := create(t, ru, localePayment("1500.00", "RUB", "kk", "qr"))
			page := created["confirmation"].(map[string]any)["confirmation_data"].(string)
			// The app names the shop, as the payment carries it, and what
			// is paid for.
			shop, _ := created["merchant_display_name"].(string)
			if shop == "" {
				t.Fatalf("payment without merchant_display_name: %v", created)
			}
			wantPage(t, "SBP page", env.Payer().Get(page), 200, "kk", "СБП · Sandbox Bank қосымшасы", "Төлемді растау", "1"+nbsp+"500,00"+nbsp+"₽",
				"Алушы: "+html.EscapeString(shop), "Заказ: две книги")
		})

		t.Run("PageWithoutPayment", func(t *testing.T) {
			payer := env.Payer()
			wantPage(t, "unknown checkout", payer.Get("/checkout/unknown-token"), 404, "ru", "Страница оплаты недоступна")
			wantPage(t, "unknown bank page", payer.Get("/sandbox/bank/sbx_unknown"), 404, "ru", "Не найдено")
			payer.AcceptLanguage = "kk"
			wantPage(t, "unknown checkout, Kazakh browser", payer.Get("/checkout/unknown-token"), 404, "kk", "Төлем беті қолжетімсіз")
		})

		t.Run("UnknownLocale", func(t *testing.T) {
			for _, locale := range []string{"de", "RU", "ru-ru", "ru_RUS", "ru-", "russian", "kz", "en-001", " ru"} {
				ru.Post("/v1/payments", key(), localePayment("1500.00", "RUB", locale, "redirect")).
					ExpectError(t, 400, payd.CodeInvalidRequest, "confirmation.locale")
			}
		})
	})
}

// TestLocalePatternAgrees checks that the pattern of ConfirmationLocale in
// the OpenAPI document accepts exactly what the service accepts.
func TestLocalePatternAgrees(t *testing.T) {
	t.Parallel()
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Pattern string `json:"pattern"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapi.JSON(), &doc); err != nil {
		t.Fatal(err)
	}
	pattern := doc.Components.Schemas["ConfirmationLocale"].Pattern
	re, err := regexp.Compile(pattern)
	if pattern == "" || err != nil {
		t.Fatalf("ConfirmationLocale pattern %q: %v", pattern, err)
	}
	for _, s := range []string{"", "ru", "kk", "en", "ru-RU", "ru_RU", "kk_KZ", "kk-KZ", "en-US", "en_GB", "ru-KZ",
		"de", "RU", "Ru", "ru-ru", "ru_RUS", "ru-", "ru_", "russian", "kz", "kk-kz", "en-001", " ru", "ru ", "ru-R1", "ru.RU", "ru-RU-x"} {
		_, ok := payd.ParseLocale(s)
		if s == "" {
			ok = true // left out
		}
		if re.MatchString(s) != ok {
			t.Errorf("%q: the document's pattern says %v, the service %v", s, re.MatchString(s), ok)
		}
	}
}
