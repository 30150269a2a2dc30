package linkpage

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

// TestPageGolden renders the link page in its states and each language
// from fixed data and compares them with testdata/<page>.<lang>.golden;
// review a diff before refreshing them with -update.
func TestPageGolden(t *testing.T) {
	for _, lang := range payd.Locales() {
		l := webpage.For(lang)
		for _, pg := range []struct {
			name string
			v    view
		}{
			{"fixed", view{L: l, State: payd.LinkPageOpen, Title: l.T("Pay %s", "Book Corner"), Merchant: "Book Corner",
				Description: "Заказ: две книги", Amount: l.Amount(150000, "RUB"), Currency: "RUB", Token: "t0ken", CSRF: "c5rf", Test: true}},
			{"open", view{L: l, State: payd.LinkPageOpen, Title: l.T("Pay %s", "Book Corner"), Merchant: "Book Corner",
				Description: "Donation", Currency: "RUB", Open: true, Entered: "99",
				Range: l.T("From %s to %s", l.Amount(10000, "RUB"), l.Amount(500000, "RUB")),
				Error: l.T("Enter an amount from %s to %s.", l.Amount(10000, "RUB"), l.Amount(500000, "RUB")), Token: "t0ken", CSRF: "c5rf"}},
			{"busy", view{L: l, State: payd.LinkPageBusy, Title: l.T("Payment in progress"),
				Message:  l.T("A payment through this link has been started and is not finished yet. Wait for it to finish; if it fails, the link can be paid again."),
				Continue: true, Token: "t0ken", CSRF: "c5rf", Entered: "1500.00"}},
			{"paid", view{L: l, State: payd.LinkPagePaid, Title: l.T("Already paid"), Merchant: "Book Corner",
				Description: "Заказ: две книги", Amount: l.Amount(250050, "RUB"),
				Message: l.T("This link has already been paid. No second payment is needed."), ReturnURL: "https://shop.example.com/back"}},
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
