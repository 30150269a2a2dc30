package dashboard

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/paydhq/payd/internal/webpage"
)

// TestMoneyPagesTextsInCatalogue checks that every text the pages of
// refunds, disputes, links and payouts ask for (templates, Go code, the
// enums' words and the notices) is in the catalogue, so that none shows
// in English on a Russian or Kazakh page.
func TestMoneyPagesTextsInCatalogue(t *testing.T) {
	t.Parallel()
	tmplKey := regexp.MustCompile(`\.L\.T "((?:[^"\\]|\\.)*)"`)
	goKey := regexp.MustCompile(`\.T\(("(?:[^"\\]|\\.)*")`)
	var keys []string
	for _, name := range []string{"refunds", "disputes", "dispute", "links", "link", "payouts"} {
		src, err := os.ReadFile("templates/" + name + ".html")
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range tmplKey.FindAllStringSubmatch(string(src), -1) {
			k, _ := strconv.Unquote(`"` + m[1] + `"`)
			keys = append(keys, k)
		}
	}
	for _, name := range []string{"refunds.go", "disputes.go", "evidence.go", "links.go", "payouts.go", "moneyform.go"} {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range goKey.FindAllStringSubmatch(string(src), -1) {
			k, _ := strconv.Unquote(m[1])
			keys = append(keys, k)
		}
	}
	for _, k := range moneyLabels {
		for _, w := range k.words {
			keys = append(keys, w)
		}
	}
	for _, w := range moneyNotices {
		keys = append(keys, w)
	}
	if len(keys) < 50 {
		t.Fatalf("found only %d texts: the patterns no longer match the pages", len(keys))
	}
	for _, k := range keys {
		if !webpage.HasMessage(k) {
			t.Errorf("the catalogue lacks %q", k)
		}
	}
}
