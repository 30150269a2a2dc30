package dashboard

import (
	stdjson "encoding/json"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// richPayment is a succeeded card payment with a customer, a description
// and metadata.
func richPayment() *payd.Payment {
	at := time.Date(2026, 11, 30, 12, 34, 56, 789_000_000, time.UTC)
	return &payd.Payment{ID: "pay_01M8ACYVQ3DNEV7HQKFPGB8KFS", Test: true, Status: payd.PaymentSucceeded,
		Amount: money.Amount{Minor: 123456, Currency: money.RUB}, OrderID: "order-10042", CreatedAt: at,
		Description: "Заказ №10042: «чайник» & <чашки>", Capture: true, Metadata: map[string]string{"cart": "c-77", "source": "web"},
		Customer:            &payd.Customer{Email: "buyer@example.com", Phone: "+79001234567", FullName: "Иван Петров"},
		MerchantDisplayName: "Shop", ConfirmationType: "redirect", ReturnURL: "https://shop.example/return",
		PaymentMethod: &payd.PaymentMethodData{Type: payd.MethodBankCard}, CapturedAmount: 123456, CapturedAt: &at}
}

// renderingOf is p's rendering as the store keeps it.
func renderingOf(tb testing.TB, p *payd.Payment) *payd.PaymentView {
	tb.Helper()
	b, err := stdjson.Marshal(p.View(""))
	if err != nil {
		tb.Fatal(err)
	}
	return &payd.PaymentView{ID: p.ID, CreatedAt: p.CreatedAt, JSON: string(b)}
}

// TestListedReadsWhatTheRenderingSays holds the rows' reader to a whole
// decoding of the same renderings: a payment with everything a row shows,
// one with none of the optional members, and texts that the rendering
// escapes.
func TestListedReadsWhatTheRenderingSays(t *testing.T) {
	bare := richPayment()
	bare.ID, bare.Status, bare.Description, bare.Customer, bare.PaymentMethod, bare.Metadata = "pay_01M8ACYVQ3DNEV7HQKFPGB8KFT", payd.PaymentPending, "", nil, nil, nil
	bare.Amount = money.Amount{Minor: 5, Currency: money.KZT}
	odd := richPayment()
	odd.Description = `"quoted" \ back\slash, tab\t, <b>&amp;</b>, ☃ and \u2028`
	odd.OrderID = "o/1?x=<y>"
	odd.Customer = &payd.Customer{Phone: "+77011234567"}
	for _, p := range []*payd.Payment{richPayment(), bare, odd} {
		v := renderingOf(t, p)
		got, err := listed(v)
		if err != nil {
			t.Fatalf("%s: %v", p.ID, err)
		}
		whole, err := v.Payment()
		if err != nil {
			t.Fatal(err)
		}
		want := listedPayment{ID: whole.ID, OrderID: whole.OrderID, Description: whole.Description, Status: whole.Status,
			CreatedAt: whole.CreatedAt, Minor: whole.Amount.Minor, Currency: whole.Amount.Currency}
		if m := whole.PaymentMethod; m != nil {
			want.Method = payd.MethodType(m.Type)
		}
		if c := whole.Customer; c != nil {
			want.Email, want.FullName, want.Phone = c.Email, c.FullName, c.Phone
		}
		if *got != want {
			t.Errorf("%s: read\n%+v\nwant\n%+v", p.ID, *got, want)
		}
	}
	for _, bad := range []string{`{"status":"pending"}`, `{"id":"pay_1","created_at":"yesterday"}`, `{"id":"pay_1","amount":{"value":"1.0.0","currency":"RUB"}}`, `not json`} {
		if got, err := listed(&payd.PaymentView{ID: "pay_1", JSON: bad}); err == nil {
			t.Errorf("%s read as %+v, want an error", bad, got)
		}
	}
}

// BenchmarkListed decodes a page of 50 payments' renderings as the
// payments list reads them.
func BenchmarkListed(b *testing.B) {
	v := renderingOf(b, richPayment())
	b.SetBytes(int64(len(v.JSON)) * pageRows)
	for b.Loop() {
		for range pageRows {
			if _, err := listed(v); err != nil {
				b.Fatal(err)
			}
		}
	}
}
