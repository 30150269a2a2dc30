package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

var (
	latinLetter    = regexp.MustCompile(`[A-Za-z]`)
	cyrillicLetter = regexp.MustCompile(`\p{Cyrillic}`)
)

// payerNames are the words a Russian or Kazakh payer's page writes in
// Latin letters as they are: the sandbox bank's and the schemes' names,
// currencies.
var payerNames = map[string]bool{
	"payd": true, "Sandbox": true, "Bank": true, "Secure": true, "SBP": true, "QR": true, "RUB": true, "KZT": true,
	"USD": true, "EUR": true, "Visa": true, "Mastercard": true, "Mir": true, "Kaspi": true, "CVC": true, "CVV": true,
}

// merchantTexts are the test data's texts the merchant wrote, which a page
// shows as written, in whatever language: the shop's display name and the
// orders' descriptions.
var merchantTexts = []string{"Book Corner", "Order with two books"}

// expectNoEnglish fails on any word in Latin letters the page shows (its
// text as a reader sees it, with placeholders and accessible names) that
// is not a name, an id or a code: an English text left on a payer's page
// in Russian or Kazakh. A word with a digit or a mark inside (3-D, an
// id, an address) is a code.
func (s *scenario) expectNoEnglish(t *testing.T, what string) {
	t.Helper()
	text := get(s.tab, what+" text", chromedp.Evaluate[string](`document.body.innerText + " " +
		[...document.querySelectorAll("[placeholder],[aria-label],[title],img[alt]")].map(e =>
			[e.getAttribute("placeholder"), e.getAttribute("aria-label"), e.getAttribute("title"), e.getAttribute("alt")].join(" ")).join(" ")`))
	for _, m := range merchantTexts {
		text = strings.ReplaceAll(text, m, " ")
	}
	for _, w := range englishWords(text) {
		t.Errorf("%s: %q is not in the page's language%s", what, w, s.tab.where())
	}
}

func englishWords(text string) []string {
	var out []string
	for _, w := range strings.Fields(text) {
		w = strings.Trim(w, "()[]{},.;:!?«»\"'“”—–·…%+=*")
		if w == "" || !latinLetter.MatchString(w) || cyrillicLetter.MatchString(w) || payerNames[w] ||
			strings.ContainsAny(w, "0123456789_.@/:=#?&-") {
			continue
		}
		out = append(out, w)
	}
	return out
}

func TestEnglishWordsFindsEnglish(t *testing.T) {
	got := englishWords("Оплата: 1 500,00 ₽ · Sandbox Bank · 3-D Secure · pay_01ABC Try again · Банковская карта")
	if strings.Join(got, " ") != "Try again" {
		t.Errorf("englishWords = %q, want [Try again]", got)
	}
}
