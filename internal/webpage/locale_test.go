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

// TestParseAmount reads sums as payers type them on a page of each
// language: its own grouping and decimal marks, the plain 2500.00 form
// everywhere, and a refusal, never a guess, where a mark could part
// thousands or a fraction.
func TestParseAmount(t *testing.T) {
	t.Parallel()
	const nb, nnb, thin = "\u00a0", "\u202f", "\u2009"
	cases := []struct {
		lang, in string
		want     int64
		err      error
	}{
		// English: comma groups, dot parts the fraction.
		{"en", "2,500.00", 250000, nil},
		{"en", "2,500", 250000, nil},
		{"en", "1,500.5", 150050, nil},
		{"en", "5,000.00", 500000, nil},
		{"en", "1,234,567.89", 123456789, nil},
		{"en", "9,999,999,999,999.99", 999999999999999, nil},
		{"en", "1 500.50", 150050, nil},
		{"en", " 1500 ", 150000, nil},
		{"en", "1500,50", 150050, nil},
		{"en", "1 250,50", 125050, nil},
		{"en", "1,5", 150, nil},
		{"en", "1.500", 0, ErrAmountAmbiguous},
		{"en", "12.345", 0, ErrAmountAmbiguous},
		{"en", "1,500,50", 0, ErrAmountFormat},
		{"en", "2.500,00", 0, ErrAmountFormat},
		{"en", "1,50,000", 0, ErrAmountFormat},
		{"en", "1500,000", 0, ErrAmountFormat},
		{"en", "1,5000", 0, ErrAmountFormat},
		{"en", "1.500.000", 0, ErrAmountFormat},
		// Russian and Kazakh: spaces group, comma parts the fraction.
		{"ru", "2 500,00", 250000, nil},
		{"ru", "2" + nb + "500,00", 250000, nil},
		{"ru", "2" + nnb + "500,00", 250000, nil},
		{"ru", "1" + thin + "500", 150000, nil},
		{"ru", "5" + nb + "000,00", 500000, nil},
		{"ru", "1 500,5", 150050, nil},
		{"ru", "1500,50", 150050, nil},
		{"ru", "1,50", 150, nil},
		{"kk", "15 000,00", 1500000, nil},
		{"kk", "1 000 000", 100000000, nil},
		{"ru", "1,500", 0, ErrAmountAmbiguous},
		{"kk", "1,500", 0, ErrAmountAmbiguous},
		{"ru", "1.500", 0, ErrAmountAmbiguous},
		{"ru", "1 000,500", 0, ErrAmountAmbiguous},
		{"ru", "2,500.00", 0, ErrAmountFormat},
		{"ru", "2,500,000", 0, ErrAmountFormat},
		{"ru", "2.500,00", 0, ErrAmountFormat},
		{"kk", "1000,500", 0, ErrAmountFormat},
		// The plain form, in every language.
		{"en", "2500.00", 250000, nil},
		{"ru", "2500.00", 250000, nil},
		{"kk", "2500.00", 250000, nil},
		{"ru", "2 500.00", 250000, nil},
		{"en", "1500", 150000, nil},
		{"ru", "1500.5", 150050, nil},
		{"kk", "0.01", 1, nil},
		{"ru", "9999999999999.99", 999999999999999, nil},
		// What no language reads.
		{"ru", "0", 0, ErrAmountFormat},
		{"en", "0.00", 0, ErrAmountFormat},
		{"ru", "", 0, ErrAmountFormat},
		{"ru", "   ", 0, ErrAmountFormat},
		{"en", "abc", 0, ErrAmountFormat},
		{"en", "-5", 0, ErrAmountFormat},
		{"en", "+5", 0, ErrAmountFormat},
		{"en", "1e3", 0, ErrAmountFormat},
		{"en", "12.", 0, ErrAmountFormat},
		{"en", ".5", 0, ErrAmountFormat},
		{"ru", ",5", 0, ErrAmountFormat},
		{"en", "1.234.5", 0, ErrAmountFormat},
		{"en", "1500.505", 0, ErrAmountFormat},
		{"ru", "1  500", 0, ErrAmountFormat},
		{"ru", "15 00", 0, ErrAmountFormat},
		{"ru", "1500 ₽", 0, ErrAmountFormat},
		{"en", "RUB 1500", 0, ErrAmountFormat},
		{"en", "10000000000000", 0, ErrAmountFormat},
		{"en", "10,000,000,000,000", 0, ErrAmountFormat},
		{"ru", "١٥٠٠", 0, ErrAmountFormat},
	}
	for _, tc := range cases {
		got, err := For(tc.lang).ParseAmount(tc.in)
		if err != tc.err || got != tc.want {
			t.Errorf("%s ParseAmount(%q) = %d, %v; want %d, %v", tc.lang, tc.in, got, err, tc.want, tc.err)
		}
	}
	// What Amount writes reads back in its own language.
	for _, lang := range payd.Locales() {
		for _, minor := range []int64{1, 150050, 500000, 123456789, 999_999_999_999_999} {
			written := strings.TrimSuffix(strings.TrimSuffix(For(lang).Amount(minor, "RUB"), "\u00a0RUB"), "\u00a0₽")
			if got, err := For(lang).ParseAmount(written); err != nil || got != minor {
				t.Errorf("%s ParseAmount(%q), as Amount writes %d, = %d, %v", lang, written, minor, got, err)
			}
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
	}); !cmp.Equal(got, slices.Sorted(slices.Values(payd.Locales()))) {
		t.Fatalf("printers for %v, want payd.Locales() %v", got, payd.Locales())
	}
	files := readLocales(t)
	for _, m := range files["en"] {
		for _, lang := range []string{"ru", "kk"} {
			tr, ok := files[lang][m.ID]
			if !ok || tr.Translation.empty() || (tr.Translation.Select == nil && tr.Translation.Msg == m.Message.Msg) {
				t.Errorf("%q has no %s text", m.ID, lang)
				continue
			}
			for _, text := range tr.Translation.texts() {
				for _, ph := range m.Placeholders {
					if tr.Translation.Select != nil && ph.ID == tr.Translation.Select.Arg {
						continue
					}
					if !strings.Contains(text, "{"+ph.ID+"}") {
						t.Errorf("%q in %s: %q loses {%s}", m.ID, lang, text, ph.ID)
					}
				}
			}
		}
		if m.Translation.Select != nil || len(m.Placeholders) > 0 {
			continue
		}
		// A text without arguments reads as the file says in each language.
		for _, lang := range payd.Locales() {
			if got, want := For(lang).T(m.ID), files[lang][m.ID].Translation.Msg; got != want {
				t.Errorf("%s T(%q) = %q, want %q", lang, m.ID, got, want)
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

// TestPlainTextsKept: a text asked for without arguments is the printer's
// text in every language, on the first asking and from the cache after,
// and keys past the cache's bound are still translated, only not kept.
func TestPlainTextsKept(t *testing.T) {
	files := readLocales(t)
	for _, lang := range payd.Locales() {
		l := For(lang)
		for _, m := range files["en"] {
			if len(m.Placeholders) > 0 {
				continue
			}
			want := printers[lang].Sprintf(m.ID)
			for range 2 {
				if got := l.T(m.ID); got != want {
					t.Fatalf("%s %q = %q, want %q", lang, m.ID, got, want)
				}
			}
		}
	}
	if got := (Locale{}).T("Payments"); got != "Payments" {
		t.Errorf("the zero Locale's text = %q", got)
	}
	ru := For("ru")
	want := ru.T("Payments")
	plainCount.Store(maxPlain)
	defer plainCount.Store(0)
	if got := ru.T("a key asked for after the bound"); got != "a key asked for after the bound" {
		t.Errorf("past the bound: %q", got)
	}
	if _, kept := plain.Load(plainKey{"ru", "a key asked for after the bound"}); kept {
		t.Error("a key past the bound was kept")
	}
	if got := ru.T("Payments"); got != want || want == "Payments" {
		t.Errorf("a kept Russian text = %q, want %q, not the English", got, want)
	}
}
