package sandbank

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

var update = flag.Bool("update", false, "rewrite the golden pages in testdata/")

// TestPagesGolden renders every page of the bank in each language from
// fixed data and compares it with testdata/<page>.<lang>.golden; review a
// diff before refreshing them with -update.
func TestPagesGolden(t *testing.T) {
	a := &payd.SandboxAttempt{ID: "sbx_01J0000000000000000000000A", PaymentID: "pay_01J0000000000000000000000A",
		Method: payd.MethodBankCard, Amount: 150000, Currency: "RUB", Region: payd.RegionRU, State: stateCreated,
		CreatedAt: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)}
	kzt := *a
	kzt.Amount, kzt.Currency, kzt.Region = 1500000, "KZT", payd.RegionKZ
	// The app pages name the shop and what is paid for, as the payment
	// carries them.
	kzt.MerchantDisplayName, kzt.Description = "Book Corner", "Заказ: две книги"
	// The kz QR app page as its route renders it: a KZT kz_qr payment,
	// the app's own name and address.
	app, ok := appOf(payd.MethodKZQR)
	if !ok {
		t.Fatal("no app page for kz_qr")
	}
	kzqr := kzt
	kzqr.ID, kzqr.Method = "sbx_01J0000000000000000000000B", payd.MethodKZQR
	for _, lang := range payd.Locales() {
		l := webpage.For(lang)
		for _, pg := range []struct {
			name, template string
			v              view
		}{
			{"bank", "bank.html", view{L: l, Title: l.T("Pay"), Attempt: a, Amount: l.Amount(a.Amount, a.Currency), CSRF: "c5rf"}},
			{"3ds", "3ds.html", view{L: l, Title: "3-D Secure", Attempt: a, Amount: l.Amount(a.Amount, a.Currency), CSRF: "c5rf"}},
			{"sbp", "sbp.html", view{L: l, Title: l.T("SBP"), Attempt: &kzt, Amount: l.Amount(kzt.Amount, kzt.Currency), CSRF: "c5rf", Action: "/sandbox/sbp/" + kzt.ID}},
			{"kzqr", "sbp.html", view{L: l, Title: l.T(app.name), Attempt: &kzqr, Amount: l.Amount(kzqr.Amount, kzqr.Currency), CSRF: "c5rf", Action: app.path + kzqr.ID}},
			{"processed", "message.html", view{L: l, Title: l.T("Already processed"),
				Message: l.T("This operation was already processed; nothing was changed."), Next: next(a)}},
		} {
			var got bytes.Buffer
			if err := pages.ExecuteTemplate(&got, pg.template, pg.v); err != nil {
				t.Fatalf("%s in %s: %v", pg.name, lang, err)
			}
			golden(t, filepath.Join("testdata", pg.name+"."+lang+".golden"), got.Bytes())
		}
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
