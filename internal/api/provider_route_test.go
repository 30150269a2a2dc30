package api_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/money"
)

// liveBundle is a service with two live providers and an activated ru shop.
type liveBundle struct {
	env           *paydtest.Env
	shop          *paydtest.Shop
	live          *paydtest.Client
	first, second *paydtest.LiveProvider
}

func setupLive(t *testing.T, b paydtest.Backend) *liveBundle {
	t.Helper()
	lb := &liveBundle{first: paydtest.NewLiveProvider("live_first"), second: paydtest.NewLiveProvider("live_second")}
	lb.env = paydtest.Start(t, b, &paydtest.Options{LiveProviders: []payd.Provider{lb.first, lb.second}})
	lb.shop = lb.env.NewShop(payd.RegionRU, "")
	lb.env.AdminDo("POST", "/admin/v1/shops/"+lb.shop.ID+"/activate", nil).Expect(t, 200)
	lb.live = lb.env.As(lb.shop, true)
	return lb
}

// route sets the live route of region, method and currency.
func (lb *liveBundle) route(t *testing.T, region payd.Region, method string, c money.Currency, providers ...string) {
	t.Helper()
	lb.env.AdminDo("PUT", "/admin/v1/provider-routes", map[string]any{
		"region": region, "method": method, "currency": c, "providers": providers,
	}).Expect(t, 200)
}

// attempts returns the payment's provider and its attempts as
// "provider result", as operators see them.
func (lb *liveBundle) attempts(t *testing.T, id string) (string, []string) {
	t.Helper()
	var p payd.Payment
	lb.env.AdminDo("GET", "/admin/v1/payments/"+id, nil).Expect(t, 200).Decode(t, &p)
	out := []string{}
	for _, a := range p.Attempts {
		out = append(out, a.Provider+" "+a.Result)
	}
	return p.Provider, out
}

func qrPayment(value string) map[string]any {
	return newPayment(value, map[string]any{"confirmation": map[string]any{"type": "qr"}})
}

func wantStrings(t *testing.T, what string, want, got []string) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, d)
	}
}

func TestLiveProviderRouting(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		t.Run("FirstProvider", func(t *testing.T) {
			t.Parallel()
			lb := setupLive(t, b)
			lb.route(t, payd.RegionRU, payd.MethodSBP, money.RUB, "live_first", "live_second")
			pay := lb.live.Post("/v1/payments", key(), qrPayment("100.00")).Expect(t, 201).JSON(t)
			id := pay["id"].(string)
			if pay["test"] != false || pay["status"] != "pending" {
				t.Fatalf("live payment = %v", pay)
			}
			provider, attempts := lb.attempts(t, id)
			if provider != "live_first" {
				t.Errorf("provider %q, want live_first", provider)
			}
			wantStrings(t, "attempts", []string{"live_first created"}, attempts)
			wantStrings(t, "live_first attempts", []string{id}, lb.first.Attempts())
			wantStrings(t, "live_second attempts", []string{}, lb.second.Attempts())
		})

		t.Run("ErrProviderTimeout", func(t *testing.T) {
			t.Parallel()
			lb := setupLive(t, b)
			lb.route(t, payd.RegionRU, payd.MethodSBP, money.RUB, "live_first", "live_second")
			lb.first.SetTimeout(true)
			id := lb.live.Post("/v1/payments", key(), qrPayment("100.00")).Expect(t, 201).JSON(t)["id"].(string)
			provider, attempts := lb.attempts(t, id)
			if provider != "live_second" {
				t.Errorf("provider %q, want live_second after live_first timed out", provider)
			}
			wantStrings(t, "attempts", []string{"live_first timeout", "live_second created"}, attempts)

			// With every candidate timing out nothing is created.
			lb.second.SetTimeout(true)
			body := qrPayment("100.00")
			lb.live.Post("/v1/payments", key(), body).ExpectError(t, 503, payd.CodeProviderUnavailable, "")
			var page struct{ Items []map[string]any }
			lb.live.Get("/v1/payments?limit=100").Expect(t, 200).Decode(t, &page)
			if len(page.Items) != 1 {
				t.Errorf("%d live payments after a failed cascade, want the first one only", len(page.Items))
			}
		})

		t.Run("NoMatchingRow", func(t *testing.T) {
			t.Parallel()
			lb := setupLive(t, b)
			card := map[string]any{"payment_method": map[string]any{"type": "bank_card"}}
			lb.live.Post("/v1/payments", key(), newPayment("100.00", card)).ExpectError(t, 503, payd.CodeProviderUnavailable, "")

			// Rows that differ in region, currency or method do not apply.
			lb.route(t, payd.RegionKZ, payd.MethodBankCard, money.KZT, "live_first")
			lb.route(t, payd.RegionRU, payd.MethodBankCard, money.USD, "live_first")
			lb.route(t, payd.RegionRU, payd.MethodSBP, money.RUB, "live_first")
			lb.live.Post("/v1/payments", key(), newPayment("100.00", card)).ExpectError(t, 503, payd.CodeProviderUnavailable, "")
			wantStrings(t, "live_first attempts", []string{}, lb.first.Attempts())

			lb.route(t, payd.RegionRU, payd.MethodBankCard, money.RUB, "live_second")
			k, body := key(), newPayment("100.00", card)
			created := lb.live.Post("/v1/payments", k, body).Expect(t, 201).JSON(t)

			// Deleting the row turns live payments away again.
			lb.env.AdminDo("DELETE", "/admin/v1/provider-routes/ru/bank_card/RUB", nil).Expect(t, 200)
			lb.live.Post("/v1/payments", key(), newPayment("100.00", card)).ExpectError(t, 503, payd.CodeProviderUnavailable, "")
			// A replay of the payment made before still gets its first
			// answer (Idempotency: a replay returns the original response
			// with 200), not the route's absence.
			replay := lb.live.Post("/v1/payments", k, body).Expect(t, 200).JSON(t)
			if replay["id"] != created["id"] {
				t.Errorf("replay answered payment %v, want %v", replay["id"], created["id"])
			}
		})

		t.Run("NoRegisteredProviderInRow", func(t *testing.T) {
			t.Parallel()
			lb := setupLive(t, b)
			// The operator API refuses such a row; one that reached the
			// table anyway (an adapter dropped from the build, a manual
			// edit) must still never send a live payment to a sandbox bank.
			r := &payd.ProviderRoute{Region: payd.RegionRU, Method: payd.MethodSBP, Currency: money.RUB,
				Providers: []string{"sandbox", "gone_bank", "sandbox_backup"}}
			if err := lb.env.Instance.Store.Tx(t.Context(), func(tx payd.Tx) error { return tx.ProviderRoutePut(t.Context(), r) }); err != nil {
				t.Fatal(err)
			}
			lb.live.Post("/v1/payments", key(), qrPayment("100.00")).ExpectError(t, 503, payd.CodeProviderUnavailable, "")

			// Test payments ignore the table and keep the sandbox banks.
			id := lb.env.As(lb.shop, false).Post("/v1/payments", key(), qrPayment("100.00")).Expect(t, 201).JSON(t)["id"].(string)
			if provider, _ := lb.attempts(t, id); provider != "sandbox" {
				t.Errorf("test payment provider %q, want sandbox", provider)
			}
		})

		t.Run("PaymentMethods", func(t *testing.T) {
			t.Parallel()
			lb := setupLive(t, b)
			available := func(c *paydtest.Client) map[string]bool {
				t.Helper()
				var page struct{ Items []payd.PaymentMethodInfo }
				c.Get("/v1/payment-methods").Expect(t, 200).Decode(t, &page)
				out := map[string]bool{}
				for _, m := range page.Items {
					out[m.Type+" "+string(m.Currencies[0])] = m.Available
				}
				return out
			}
			// A route only to providers this build lacks counts as none.
			r := &payd.ProviderRoute{Region: payd.RegionRU, Method: payd.MethodBankCard, Currency: money.USD,
				Providers: []string{"gone_bank"}}
			if err := lb.env.Instance.Store.Tx(t.Context(), func(tx payd.Tx) error { return tx.ProviderRoutePut(t.Context(), r) }); err != nil {
				t.Fatal(err)
			}
			lb.route(t, payd.RegionRU, payd.MethodSBP, money.RUB, "live_first")
			lb.route(t, payd.RegionKZ, payd.MethodBankCard, money.KZT, "live_first")
			want := map[string]bool{"bank_card RUB": false, "bank_card USD": false, "bank_card EUR": false,
				"sbp RUB": true, "installments RUB": false}
			if d := cmp.Diff(want, available(lb.live)); d != "" {
				t.Errorf("live key's available methods (-want +got):\n%s", d)
			}
			// The test key's sandbox takes every offered method.
			want = map[string]bool{"bank_card RUB": true, "bank_card USD": true, "bank_card EUR": true,
				"sbp RUB": true, "installments RUB": false}
			if d := cmp.Diff(want, available(lb.env.As(lb.shop, false))); d != "" {
				t.Errorf("test key's available methods (-want +got):\n%s", d)
			}
		})

		t.Run("Checkout", func(t *testing.T) {
			t.Parallel()
			lb := setupLive(t, b)
			// Only SBP has a route: an open payment is taken, and its page
			// offers SBP alone.
			lb.route(t, payd.RegionRU, payd.MethodSBP, money.RUB, "live_second", "live_first")
			pay := lb.live.Post("/v1/payments", key(), newPayment("100.00", nil)).Expect(t, 201).JSON(t)
			url := pay["confirmation"].(map[string]any)["confirmation_url"].(string)
			payer := lb.env.Payer()
			page := payer.Get(url)
			if page.Status != 200 || strings.Contains(page.Body, `value="bank_card"`) || !strings.Contains(page.Body, `value="sbp"`) {
				t.Fatalf("checkout page of a live payment routed for sbp only: %d\n%s", page.Status, page.Body)
			}
			if res := payer.Post(url, "csrf", page.CSRF(), "method", "bank_card"); res.Status != 422 {
				t.Errorf("choosing bank_card without a route: %d, want 422\n%s", res.Status, res.Body)
			}
			to := payer.Choose(url, "sbp")
			if !strings.HasPrefix(to, "https://live_second.example/pay/") {
				t.Errorf("payer sent to %q, want live_second's page", to)
			}
			wantStrings(t, "live_second attempts", []string{pay["id"].(string)}, lb.second.Attempts())
		})
	})
}
