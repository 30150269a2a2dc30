package dashboard_test

import (
	"encoding/csv"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// The payments list filters by method (the one used, else the one the
// payment is restricted to), refuses a method it does not know, and a
// merchant of several shops lists all of them at once: rows of every
// shop of the merchant and of no other, each opening in its own shop, a
// payment id found in any of them, an export of all of them; the merged
// pages of all shops hold every payment once, newest first.
func TestPaymentsByMethodAndAcrossShops(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shopA := env.NewShop(payd.RegionRU, "")
		shopB := env.NewShop(payd.RegionRU, shopA.MerchantID)
		stranger := env.NewShop(payd.RegionRU, "")
		a, bc := env.As(shopA, false), env.As(shopB, false)
		sbpA := paidPayment(t, a, "10.00", "order-sbp-a", false)
		cardA := a.Post("/v1/payments", idemKey(), map[string]any{"amount": map[string]any{"value": "12.00", "currency": "RUB"},
			"order_id": "order-card-a", "payment_method": map[string]any{"type": "bank_card"},
			"confirmation": map[string]any{"type": "redirect", "return_url": "https://shop.example/back"}}).Expect(t, 201).JSON(t)["id"].(string)
		sbpB := paidPayment(t, bc, "11.00", "order-sbp-b", false)
		paidPayment(t, env.As(stranger, false), "13.00", "order-stranger", false)

		v := newVisitor(t, env)
		v.signIn(newUser(t, env, shopA.MerchantID, payd.RoleViewer))
		inA := "/dashboard/test/payments?shop=" + shopA.ID
		for _, c := range []struct {
			query    string
			has, not []string
		}{
			{"", []string{sbpA, cardA}, []string{sbpB, "order-stranger"}},
			{"&method=sbp", []string{sbpA}, []string{cardA, sbpB}},
			{"&method=bank_card", []string{cardA}, []string{sbpA, sbpB}},
			{"&shops=all", []string{sbpA, cardA, sbpB, "?shop=" + shopB.ID}, []string{"order-stranger"}},
			{"&shops=all&method=sbp", []string{sbpA, sbpB}, []string{cardA, "order-stranger"}},
		} {
			p := v.get(inA + c.query)
			if p.status != 200 {
				t.Fatalf("payments%s = %d\n%s", c.query, p.status, p.body)
			}
			for _, s := range c.has {
				if !strings.Contains(p.body, s) {
					t.Errorf("payments%s does not show %s", c.query, s)
				}
			}
			for _, s := range c.not {
				if strings.Contains(p.body, s) {
					t.Errorf("payments%s shows %s", c.query, s)
				}
			}
		}
		if p := v.get(inA + "&method=cash"); p.status != http.StatusBadRequest || !strings.Contains(p.body, "(method)") {
			t.Fatalf("an unknown method = %d, want 400 naming the parameter\n%s", p.status, p.body)
		}
		if p := v.get(inA + "&shops=some"); p.status != http.StatusBadRequest || !strings.Contains(p.body, "(shops)") {
			t.Fatalf("shops=some = %d, want 400 naming the parameter", p.status)
		}

		// A payment id of the other shop: not found in the chosen shop,
		// found among all and opened in its own shop.
		if p := v.get(inA + "&q=" + sbpB); p.status != 200 || strings.Contains(p.body, "payments/"+sbpB) {
			t.Fatalf("shop A's search for shop B's payment = %d, links it: %v", p.status, strings.Contains(p.body, "payments/"+sbpB))
		}
		found := v.get(inA + "&shops=all&q=" + sbpB)
		if found.status != http.StatusSeeOther || found.location != "/dashboard/test/payments/"+sbpB+"?shop="+shopB.ID {
			t.Fatalf("search among all shops = %d to %q", found.status, found.location)
		}
		if p := v.get(found.location); p.status != 200 || !strings.Contains(p.body, "order-sbp-b") {
			t.Fatalf("shop B's payment opened from the list = %d", p.status)
		}

		p := v.get("/dashboard/test/payments.csv?shops=all")
		rows, err := csv.NewReader(strings.NewReader(p.body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		shopOf := map[string]string{}
		for _, r := range rows[1:] {
			shopOf[r[0]] = r[len(r)-1]
		}
		want := map[string]string{sbpA: shopA.ID, cardA: shopA.ID, sbpB: shopB.ID}
		if len(shopOf) != len(want) || rows[0][len(rows[0])-1] != "shop_id" {
			t.Fatalf("export of all shops: %v, want %v", shopOf, want)
		}
		for id, sh := range want {
			if shopOf[id] != sh {
				t.Errorf("export of all shops: %s in %q, want %q", id, shopOf[id], sh)
			}
		}

		// Pages of two across both shops hold each payment once, in order.
		ps := []*payd.Principal{}
		for _, id := range []string{shopA.ID, shopB.ID} {
			sh, err := env.Service.GetShop(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			ps = append(ps, &payd.Principal{Shop: sh, Mode: payd.ModeTest})
		}
		for _, order := range []string{"more-1", "more-2", "more-3"} {
			paidPayment(t, bc, "14.00", order, false)
		}
		params := &payd.PaymentListParams{ListParams: payd.ListParams{Limit: 2}}
		var got []*payd.PaymentView
		for range 10 {
			page, err := env.Service.ListPaymentsOfShops(t.Context(), ps, params)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, page.Items...)
			if page.Next == nil {
				break
			}
			params.After = page.Next
		}
		if len(got) != 6 {
			t.Fatalf("pages across shops hold %d payments, want 6", len(got))
		}
		if !slices.IsSortedFunc(got, func(x, y *payd.PaymentView) int {
			if c := y.CreatedAt.Compare(x.CreatedAt); c != 0 {
				return c
			}
			return strings.Compare(y.ID, x.ID)
		}) {
			t.Fatal("pages across shops are not newest first")
		}
		seen := map[string]bool{}
		for _, pv := range got {
			if seen[pv.ID] {
				t.Fatalf("%s listed twice", pv.ID)
			}
			seen[pv.ID] = true
		}
	})
}
