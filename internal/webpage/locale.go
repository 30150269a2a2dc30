package webpage

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/paydhq/payd"
)

// Locale is the language of one page: its texts come from the catalogue
// (catalogue.go, the files of locales/) and its amounts are written as a reader of that language
// expects. The zero Locale is English.
type Locale struct {
	lang string
	p    *message.Printer
	// zone is where the page's reader is, for its times; nil is UTC.
	zone *time.Location
}

// In is l for a reader in zone: the dashboard's pages show a shop's
// times in the shop's zone.
func (l Locale) In(zone *time.Location) Locale {
	l.zone = zone
	return l
}

// Zone is the zone of the page's times: UTC unless In set one.
func (l Locale) Zone() *time.Location {
	if l.zone == nil {
		return time.UTC
	}
	return l.zone
}

var (
	// langs are payd.Locales, and supported the same as tags, in the
	// same order.
	langs     = payd.Locales()
	supported = tagsOf(langs)
	matcher   = language.NewMatcher(supported)
	printers  = printersOf(supported)
)

func tagsOf(langs []string) []language.Tag {
	tags := make([]language.Tag, len(langs))
	for i, l := range langs {
		tags[i] = language.MustParse(l)
	}
	return tags
}

func printersOf(tags []language.Tag) map[string]*message.Printer {
	m := map[string]*message.Printer{}
	for _, t := range tags {
		m[t.String()] = message.NewPrinter(t, message.Catalog(catalogue))
	}
	return m
}

// RegionLanguage is the language of a region's payers when nothing else
// tells: Kazakh for kz, Russian for ru and for a page that knows no
// region (an unknown address), since both regions' payers read Russian.
func RegionLanguage(r payd.Region) string {
	if r == payd.RegionKZ {
		return "kk"
	}
	return "ru"
}

// Choose returns the language of a page: locale (the payment's
// confirmation.locale, one of payd.Locales) when set; else the browser's
// Accept-Language matched against payd.Locales; else the language of
// region. Every page of a payment chooses the same way, so its flow
// (checkout, bank page, 3-D Secure, closing page) keeps one language.
func Choose(r *http.Request, locale string, region payd.Region) Locale {
	if _, ok := printers[locale]; ok {
		return For(locale)
	}
	if lang, ok := acceptLanguage(r.Header.Get("Accept-Language")); ok {
		return For(lang)
	}
	return For(RegionLanguage(region))
}

// acceptLanguage returns the language of payd.Locales the header asks for
// first, weights considered, if it asks for any of them.
func acceptLanguage(header string) (string, bool) {
	if header == "" {
		return "", false
	}
	tags, _, err := language.ParseAcceptLanguage(header)
	if err != nil || len(tags) == 0 {
		return "", false
	}
	_, i, conf := matcher.Match(tags...)
	if conf == language.No {
		return "", false
	}
	return langs[i], true
}

// For returns the Locale of lang, one of payd.Locales; any other value
// gives English.
func For(lang string) Locale {
	if p, ok := printers[lang]; ok {
		return Locale{lang: lang, p: p}
	}
	return Locale{}
}

// Lang is the page's lang attribute: "ru", "kk" or "en".
func (l Locale) Lang() string {
	if l.lang == "" {
		return "en"
	}
	return l.lang
}

// T returns the catalogue's text for key (the English text) in the page's
// language, formatting args into it as fmt.Sprintf does. A key missing
// from the catalogue is shown as it is: names such as a payment scheme's
// pass through untranslated.
func (l Locale) T(key string, args ...any) string {
	p := l.p
	if p == nil {
		p = printers["en"]
	}
	if len(args) > 0 {
		return p.Sprintf(key, args...)
	}
	k := plainKey{l.lang, key}
	if s, ok := plain.Load(k); ok {
		return s.(string)
	}
	s := p.Sprintf(key)
	if plainCount.Load() < maxPlain {
		if _, loaded := plain.LoadOrStore(k, s); !loaded {
			plainCount.Add(1)
		}
	}
	return s
}

// plain holds the texts of keys asked for without arguments, by language:
// a list page asks for the same words on each of its rows, and formatting
// each through x/text/message made a printer every time. Keys are the
// code's and the templates' own, but a refusal's description may carry a
// caller's value, so the cache stops growing at maxPlain entries.
var (
	plain      sync.Map // plainKey → string
	plainCount atomic.Int64
)

const maxPlain = 4096

type plainKey struct{ lang, key string }
