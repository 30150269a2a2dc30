package linkpage

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

const linkID = "pl_00000000000000000000000000"

// newHandler is a page without a service: enough for what the page
// decides before it reads the link.
func newHandler() *Handler {
	return New(nil, []byte("page key"), slog.New(slog.DiscardHandler), nil, nil)
}

// TestBusyPageSignsOnlyItsTokens: while a one-time link has a payment in
// flight, the page offers to continue only the form its own cookie
// keeps, never signing a token the request chose.
func TestBusyPageSignsOnlyItsTokens(t *testing.T) {
	t.Parallel()
	h := newHandler()
	pg := &payd.LinkPage{Link: &payd.PaymentLink{ID: linkID, Region: payd.RegionRU}, State: payd.LinkPageBusy}
	issued := newToken()
	for _, tc := range []struct {
		name, cookie string
		token        string // the token continued; "" for no button
	}{
		{"NoCookie", "", ""},
		{"Issued", h.formCookie(linkID, issued, "1500.00"), issued},
		{"IssuedFixedSum", h.formCookie(linkID, issued, ""), issued},
		{"MadeUp", "chosen-token.1500.00", ""},
		{"MadeUpWithMAC", strings.Repeat("0", 64) + ".chosen-token.1500.00", ""},
		{"OtherLink", h.formCookie("pl_11111111111111111111111111", issued, "1500.00"), ""},
		{"OtherSum", strings.Replace(h.formCookie(linkID, issued, "1500.00"), "1500.00", "1.00", 1), ""},
		{"OtherToken", strings.Replace(h.formCookie(linkID, issued, "1500.00"), issued, "chosen-token", 1), ""},
		{"FormMACAsCookie", h.csrf(linkID, "chosen-token") + ".chosen-token.", ""},
		{"AnotherKey", New(nil, []byte("other key"), nil, nil, nil).formCookie(linkID, "chosen-token", ""), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "/links/"+linkID, nil)
			if tc.cookie != "" {
				r.AddCookie(&http.Cookie{Name: cookieName, Value: tc.cookie})
			}
			w := httptest.NewRecorder()
			h.closed(w, r, pg, payd.LinkPageBusy)
			body := w.Body.String()
			if w.Code != http.StatusConflict || !strings.Contains(body, `data-state="busy"`) {
				t.Fatalf("busy page: %d\n%s", w.Code, body)
			}
			if tc.token == "" {
				if strings.Contains(body, `id="continue"`) || strings.Contains(body, "chosen-token") || strings.Contains(body, `name="csrf"`) {
					t.Fatalf("the page signed a form it did not issue:\n%s", body)
				}
				return
			}
			if !strings.Contains(body, `id="continue"`) || !strings.Contains(body, `name="token" value="`+tc.token+`"`) ||
				!strings.Contains(body, `name="csrf" value="`+h.csrf(linkID, tc.token)+`"`) {
				t.Fatalf("the payer's own form is not continued:\n%s", body)
			}
		})
	}
}

// TestPaidPageSaysWhatWasPaid: a paid link names the shop, as the payment
// carries it, and the sum paid, in the page's language.
func TestPaidPageSaysWhatWasPaid(t *testing.T) {
	t.Parallel()
	h := newHandler()
	fixed := money.New(150000, "RUB")
	for _, tc := range []struct {
		name, lang string
		pg         *payd.LinkPage
		want       []string
	}{
		{"OpenSum", "en", &payd.LinkPage{Merchant: "Book Corner", State: payd.LinkPagePaid,
			Link: &payd.PaymentLink{ID: linkID, Description: "Donation", Currency: "RUB"},
			Paid: &payd.Payment{Amount: money.New(250050, "RUB"), MerchantDisplayName: "Book Corner Ltd"}},
			[]string{"Recipient: Book Corner Ltd", "Donation", "2,500.50\u00a0RUB", "Already paid"}},
		{"OpenSumRussian", "ru", &payd.LinkPage{Merchant: "Book Corner", State: payd.LinkPagePaid,
			Link: &payd.PaymentLink{ID: linkID, Description: "Donation", Currency: "RUB"},
			Paid: &payd.Payment{Amount: money.New(250050, "RUB"), MerchantDisplayName: "Book Corner Ltd"}},
			[]string{"Получатель: Book Corner Ltd", "2\u00a0500,50\u00a0₽", "Уже оплачено"}},
		{"FixedWithoutPayment", "kk", &payd.LinkPage{Merchant: "Book Corner", State: payd.LinkPagePaid,
			Link: &payd.PaymentLink{ID: linkID, Description: "Two books", Amount: &fixed, Currency: "RUB"}},
			[]string{"Алушы: Book Corner", "Two books", "1\u00a0500,00\u00a0₽"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "/links/"+linkID, nil)
			r.Header.Set("Accept-Language", tc.lang)
			w := httptest.NewRecorder()
			h.closed(w, r, tc.pg, payd.LinkPagePaid)
			body, _ := io.ReadAll(w.Body)
			for _, want := range tc.want {
				if !strings.Contains(string(body), want) {
					t.Errorf("paid page lacks %q:\n%s", want, body)
				}
			}
		})
	}
}
