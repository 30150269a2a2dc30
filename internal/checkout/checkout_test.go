package checkout

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

var update = flag.Bool("update", false, "rewrite the golden pages in testdata/")

// TestPageGolden renders the hosted page and its closed page in each
// language from fixed data and compares them with
// testdata/<page>.<lang>.golden; review a diff before refreshing them
// with -update.
func TestPageGolden(t *testing.T) {
	for _, lang := range payd.Locales() {
		l := webpage.For(lang)
		for _, pg := range []struct {
			name string
			v    view
		}{
			{"checkout", view{L: l, Title: l.T("Pay %s", "Book Corner"), Merchant: "Book Corner",
				Amount: l.Amount(150000, "RUB"), Description: "Заказ: две книги", Test: true, CSRF: "c5rf",
				Methods: []method{{payd.MethodBankCard, l.T(labels[payd.MethodBankCard])}, {payd.MethodSBP, l.T(labels[payd.MethodSBP])}}}},
			{"closed", view{L: l, Title: l.T("Payment page unavailable"),
				Message: l.T("This payment page was already used, has expired, or does not exist. Return to the shop to try again.")}},
		} {
			var got bytes.Buffer
			if err := page.Execute(&got, pg.v); err != nil {
				t.Fatalf("%s in %s: %v", pg.name, lang, err)
			}
			path := filepath.Join("testdata", pg.name+"."+lang+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if diff := cmp.Diff(string(want), got.String()); diff != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
			}
		}
	}
}
