package dashboard_test

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// The refund form asks to confirm before anything is made, naming the
// amount and what stays refundable; an empty amount is named as the
// whole refundable amount; a refused amount comes back in the form with
// its reason; a confirmation without an amount is refused, not read as
// everything.
func TestRefundConfirmationStep(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		id := paidPayment(t, c, "1000.00", "order-confirm", false)
		support := signedIn(t, env, shop, payd.RoleSupport)
		refunds := func() int { return len(items(t, c, "/v1/refunds?payment_id="+id)) }

		for _, tc := range []struct {
			name, amount, reason string
			// Either the confirmation's words, or the refusal's status.
			amountShown, left string
			// value is the amount the confirmation posts.
			value   string
			refused int
		}{
			{name: "PartOfIt", amount: "300", reason: "one book back", amountShown: "300.00 RUB", left: "700.00 RUB", value: "300.00"},
			{name: "EmptyIsTheWhole", amount: "", amountShown: "the whole refundable amount, 1,000.00 RUB", left: "0.00 RUB", value: "1000.00"},
			{name: "ErrAboveRefundable", amount: "1000.01", reason: "too much", refused: http.StatusUnprocessableEntity},
			{name: "ErrNotAnAmount", amount: "12,5,0", reason: "typo", refused: http.StatusBadRequest},
		} {
			t.Run(tc.name, func(t *testing.T) {
				form := formOf(t, support.get("/dashboard/test/payments/"+id).body, "refund-form")
				form.Set("amount", tc.amount)
				form.Set("reason", tc.reason)
				p := support.post("/dashboard/test/payments/"+id+"/refunds/review", form)
				if tc.refused != 0 {
					refusedForm := section(p.body, "refund-form")
					if p.status != tc.refused || !strings.Contains(refusedForm, `id="refund-error"`) ||
						!strings.Contains(refusedForm, `value="`+html.EscapeString(tc.amount)+`"`) ||
						!strings.Contains(refusedForm, `value="`+tc.reason+`"`) {
						t.Fatalf("review of %q = %d, want %d with the typed amount and reason kept:\n%s", tc.amount, p.status, tc.refused, refusedForm)
					}
					return
				}
				got := text(p.body)
				if p.status != http.StatusOK || !strings.Contains(got, `id="confirm-amount">`+tc.amountShown+`<`) ||
					!strings.Contains(got, `id="confirm-left">`+tc.left+`<`) {
					t.Fatalf("review of %q = %d, want %q and %q left:\n%s", tc.amount, p.status, tc.amountShown, tc.left, p.body)
				}
				if got := formOf(t, p.body, "refund-confirm-form").Get("amount"); got != tc.value {
					t.Errorf("the confirmation posts amount %q, want %q", got, tc.value)
				}
				if n := refunds(); n != 0 {
					t.Fatalf("%d refunds after the review alone, want 0", n)
				}
			})
		}

		// A confirmation posted without its amount (by hand, or by an
		// old page) is refused and makes nothing.
		confirm := byHand(t, support)
		confirm.Set("reason", "no amount")
		p := support.post("/dashboard/test/payments/"+id+"/refunds", confirm)
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, "Enter the amount to refund.") {
			t.Fatalf("confirmation without an amount = %d\n%s", p.status, p.body)
		}
		if n := refunds(); n != 0 {
			t.Fatalf("%d refunds after a confirmation without an amount, want 0", n)
		}

		// The confirmation refunds exactly what it named.
		form := formOf(t, support.get("/dashboard/test/payments/"+id).body, "refund-form")
		form.Set("amount", "300")
		review := support.post("/dashboard/test/payments/"+id+"/refunds/review", form)
		if p := support.post("/dashboard/test/payments/"+id+"/refunds", formOf(t, review.body, "refund-confirm-form")); p.status != http.StatusSeeOther {
			t.Fatalf("confirmation = %d\n%s", p.status, section(p.body, "refund-form"))
		}
		all := items(t, c, "/v1/refunds?payment_id="+id)
		if len(all) != 1 || all[0].(map[string]any)["amount"].(map[string]any)["value"] != "300.00" {
			t.Fatalf("refunds after confirming 300 = %v", all)
		}
	})
}

// The payment's page shows a pending refund beside what is refunded and
// refundable, and each refund's reason and who asked for it: the user of
// the dashboard, or the API key.
func TestRefundsShowPendingReasonAndWho(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		id := paidPayment(t, c, "1000.00", "order-who", false)
		// The sandbox answers this one on the service clock, which does
		// not move here: it stays pending.
		c.Post("/v1/refunds", idemKey(), map[string]any{"payment_id": id, "reason": "damaged in transit",
			"amount":   map[string]any{"value": "300.00", "currency": "RUB"},
			"metadata": map[string]any{"sandbox_delay_seconds": "120"}}).Expect(t, 201)

		email, password := newUser(t, env, shop.MerchantID, payd.RoleSupport)
		support := newVisitor(t, env)
		support.signIn(email, password)
		page := support.get("/dashboard/test/payments/" + id)
		body := text(page.body)
		for _, want := range []string{`id="refund-pending">300.00 RUB<`, `id="refundable">700.00 RUB<`, `id="refunded">0.00 RUB<`} {
			if !strings.Contains(body, want) {
				t.Errorf("payment page lacks %s", want)
			}
		}
		form := formOf(t, page.body, "refund-form")
		form.Set("amount", "200")
		form.Set("reason", "size did not fit")
		review := support.post("/dashboard/test/payments/"+id+"/refunds/review", form)
		if !strings.Contains(text(review.body), `id="confirm-left">500.00 RUB<`) {
			t.Fatalf("review beside a pending refund:\n%s", review.body)
		}
		if p := support.post("/dashboard/test/payments/"+id+"/refunds", formOf(t, review.body, "refund-confirm-form")); p.status != http.StatusSeeOther {
			t.Fatalf("confirmation = %d\n%s", p.status, p.body)
		}
		table := section(support.get("/dashboard/test/payments/"+id).body, "refunds")
		table = table[:strings.Index(table, "</table>")]
		rows := strings.Split(table, "<tr id=")[1:]
		if len(rows) != 2 {
			t.Fatalf("%d refund rows, want 2:\n%s", len(rows), table)
		}
		byReason := map[string]string{}
		for _, r := range rows {
			for _, reason := range []string{"damaged in transit", "size did not fit"} {
				if strings.Contains(r, `data-label="Reason">`+reason+`<`) {
					byReason[reason] = r
				}
			}
		}
		if r := byReason["size did not fit"]; !strings.Contains(r, `data-label="Refunded by">`+email+`<`) {
			t.Errorf("the dashboard's refund row does not name %s:\n%s", email, r)
		}
		if r := byReason["damaged in transit"]; !strings.Contains(r, "API key") || !strings.Contains(r, `class="mono">key_`) {
			t.Errorf("the API's refund row does not name its key:\n%s", r)
		}
	})
}

// text is a page's HTML with its entities read and its no-break spaces
// (which amounts are written with) as plain spaces, for checks of words.
func text(body string) string {
	return strings.ReplaceAll(html.UnescapeString(body), "\u00a0", " ")
}
