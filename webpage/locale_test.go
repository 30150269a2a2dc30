package webpage

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paydhq/payd"
)

func TestChoose(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, locale, accept string
		region               payd.Region
		want                 string
	}{
		{"LocaleWinsOverBrowser", "ru", "en-US,en;q=0.9", payd.RegionKZ, "ru"},
		{"LocaleKazakh", "kk", "", payd.RegionRU, "kk"},
		{"LocaleEnglish", "en", "ru-RU,ru", payd.RegionRU, "en"},
		{"BrowserRussian", "", "ru", payd.RegionKZ, "ru"},
		{"BrowserKazakhWithRegion", "", "kk-KZ,kk;q=0.9", payd.RegionRU, "kk"},
		{"BrowserEnglish", "", "en-US,en;q=0.9", payd.RegionRU, "en"},
		{"BrowserWeights", "", "en;q=0.3,kk;q=0.8", payd.RegionRU, "kk"},
		{"BrowserFirstKnown", "", "de-DE,de;q=0.9,ru;q=0.5", payd.RegionKZ, "ru"},
		{"BrowserKyrgyzReadsRussian", "", "ky-KG", payd.RegionKZ, "ru"},
		{"BrowserUnknownFallsToRegionKZ", "", "de-DE,fr;q=0.5", payd.RegionKZ, "kk"},
		{"BrowserUnknownFallsToRegionRU", "", "ja", payd.RegionRU, "ru"},
		{"BrowserMalformed", "", ";;q=x", payd.RegionKZ, "kk"},
		{"NothingKZ", "", "", payd.RegionKZ, "kk"},
		{"NothingRU", "", "", payd.RegionRU, "ru"},
		{"NoPaymentNoBrowser", "", "", "", "ru"},
		{"NoPaymentBrowser", "", "kk", "", "kk"},
		{"UnknownStoredLocaleIgnored", "de", "", payd.RegionKZ, "kk"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/checkout/x", nil)
			if tc.accept != "" {
				r.Header.Set("Accept-Language", tc.accept)
			}
			if got := Choose(r, tc.locale, tc.region).Lang(); got != tc.want {
				t.Fatalf("Choose(%q, Accept-Language %q, region %q) = %s, want %s", tc.locale, tc.accept, tc.region, got, tc.want)
			}
		})
	}
}

func TestAmount(t *testing.T) {
	t.Parallel()
	const nb = "\u00a0"
	cases := []struct {
		lang     string
		minor    int64
		currency string
		want     string
	}{
		{"ru", 150000, "RUB", "1" + nb + "500,00" + nb + "₽"},
		{"kk", 1500000, "KZT", "15" + nb + "000,00" + nb + "₸"},
		{"ru", 1500000, "KZT", "15" + nb + "000,00" + nb + "₸"},
		{"kk", 150000, "RUB", "1" + nb + "500,00" + nb + "₽"},
		{"ru", 1005, "USD", "10,05" + nb + "$"},
		{"ru", 99999999, "EUR", "999" + nb + "999,99" + nb + "€"},
		{"ru", 7, "RUB", "0,07" + nb + "₽"},
		{"ru", 100000000, "RUB", "1" + nb + "000" + nb + "000,00" + nb + "₽"},
		{"ru", 999_999_999_999_999, "RUB", "9" + nb + "999" + nb + "999" + nb + "999" + nb + "999,99" + nb + "₽"},
		{"ru", -150000, "RUB", "-1" + nb + "500,00" + nb + "₽"},
		{"en", 150000, "RUB", "1,500.00" + nb + "RUB"},
		{"en", 1500000, "KZT", "15,000.00" + nb + "KZT"},
		{"en", 100, "USD", "1.00" + nb + "USD"},
		{"en", 123456789, "EUR", "1,234,567.89" + nb + "EUR"},
		{"en", 0, "RUB", "0.00" + nb + "RUB"},
	}
	for _, tc := range cases {
		if got := For(tc.lang).Amount(tc.minor, tc.currency); got != tc.want {
			t.Errorf("%s Amount(%d, %s) = %q, want %q", tc.lang, tc.minor, tc.currency, got, tc.want)
		}
	}
}

// TestCatalogue checks that every text has all three languages, keeps
// the arguments of its key, and is found by the printers.
func TestCatalogue(t *testing.T) {
	t.Parallel()
	if got := slices.Sorted(func(yield func(string) bool) {
		for l := range printers {
			if !yield(l) {
				return
			}
		}
	}); !cmp.Equal(got, slices.Sorted(slices.Values(payd.Locales))) {
		t.Fatalf("printers for %v, want payd.Locales %v", got, payd.Locales)
	}
	seen := map[string]bool{}
	for _, m := range messages {
		if seen[m.en] {
			t.Errorf("%q twice in the catalogue", m.en)
		}
		seen[m.en] = true
		for lang, text := range map[string]string{"ru": m.ru, "kk": m.kk} {
			if text == "" || text == m.en {
				t.Errorf("%q has no %s text", m.en, lang)
			}
			if strings.Count(text, "%s") != strings.Count(m.en, "%s") {
				t.Errorf("%q in %s: %q loses an argument", m.en, lang, text)
			}
		}
		for lang, text := range map[string]string{"en": m.en, "ru": m.ru, "kk": m.kk} {
			var args []any
			for range strings.Count(m.en, "%s") {
				args = append(args, "X")
			}
			if got, want := For(lang).T(m.en, args...), strings.ReplaceAll(text, "%s", "X"); got != want {
				t.Errorf("%s T(%q) = %q, want %q", lang, m.en, got, want)
			}
		}
	}
	if got := For("ru").T("Pay %s", "Book Corner"); got != "Оплата: Book Corner" {
		t.Errorf("ru T(Pay %%s) = %q", got)
	}
	if got := For("kk").T("Kaspi QR"); got != "Kaspi QR" {
		t.Errorf("a name outside the catalogue = %q, want it as it is", got)
	}
	if got := (Locale{}).T("Pay"); got != "Pay" {
		t.Errorf("zero Locale T(Pay) = %q", got)
	}
}
