package api_test

import (
	"context"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/money"
)

// TestLivePayoutThroughRoutedAdapter sends a live payout through the
// adapter seam: the operator routes live sbp payouts to the adapter, the
// adapter alone receives the destination, and its word decides the
// payout. Routes name live payout adapters only.
func TestLivePayoutThroughRoutedAdapter(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		bank := paydtest.NewLiveProvider("acquirer")
		payer := paydtest.NewLivePayoutProvider("payout_bank")
		env := paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM5, LiveProviders: []payd.Provider{bank},
			LivePayoutProviders: []payd.PayoutProvider{payer}})
		shop := env.NewShop(payd.RegionRU, "")
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
		env.AdminDo("PUT", "/admin/v1/provider-routes", map[string]any{
			"region": "ru", "method": payd.MethodSBP, "currency": money.RUB, "providers": []string{"acquirer"}}).Expect(t, 200)
		// A payout route names payout adapters, and a payout kind the
		// region offers.
		for _, bad := range []map[string]any{
			{"region": "ru", "method": "payout_sbp", "currency": "RUB", "providers": []string{"acquirer"}},
			{"region": "ru", "method": "payout_sbp", "currency": "RUB", "providers": []string{"sandbox_payouts"}},
			{"region": "kz", "method": "payout_sbp", "currency": "KZT", "providers": []string{"payout_bank"}},
			{"region": "ru", "method": "payout_wallet", "currency": "RUB", "providers": []string{"payout_bank"}},
		} {
			env.AdminDo("PUT", "/admin/v1/provider-routes", bad).Expect(t, 400)
		}
		env.AdminDo("PUT", "/admin/v1/provider-routes", map[string]any{
			"region": "ru", "method": "payout_sbp", "currency": "RUB", "providers": []string{"payout_bank"}}).Expect(t, 200)

		live := env.As(shop, true)
		env.ToMorning(payd.RegionRU)
		pay := live.Post("/v1/payments", key(), qrPayment("1000.00")).Expect(t, 201).JSON(t)["id"].(string)
		var p payd.Payment
		env.AdminDo("GET", "/admin/v1/payments/"+pay, nil).Expect(t, 200).Decode(t, &p)
		if err := bank.Notify(context.Background(), env.Service, payd.Notification{ID: "n1", Kind: payd.NotifySucceeded, ProviderPaymentID: p.ProviderPaymentID}); err != nil {
			t.Fatal(err)
		}
		live.WaitStatus(pay, "succeeded")
		env.Clock.Advance(25 * time.Hour)
		waitLong(t, "live available", func() bool { return payoutBalance(t, live)["available"] == "993.00" })

		// A card payout has no route: 503, nothing reserved.
		live.Post("/v1/payouts", key(), map[string]any{"amount": rub("10.00"),
			"destination": map[string]any{"type": "card", "card_token": "tok_live_abcdef_4242"}}).ExpectError(t, 503, payd.CodeProviderUnavailable, "")
		po := live.Post("/v1/payouts", key(), map[string]any{"amount": rub("500.00"), "order_id": "live-1",
			"destination": map[string]any{"type": "sbp", "phone": "+79001234567", "bank_id": "100000000111"}}).Expect(t, 201).JSON(t)
		id := po["id"].(string)
		if po["test"] != false || po["destination_masked"] != "+7 *** ***-**-67" {
			t.Fatalf("live payout = %v", po)
		}
		got := payer.Accepted()
		if len(got) != 1 || got[0].Phone != "+79001234567" || got[0].BankID != "100000000111" {
			t.Fatalf("the adapter received %+v", got)
		}
		if got := payoutBalance(t, live); got["available"] != "490.50" || got["pending_payouts"] != "502.50" {
			t.Fatalf("live balance with the payout reserved = %v", got)
		}
		waitPayout(t, live, id, "processing")
		// The adapter decides; the service asks again after its backoff.
		payer.Decide(payd.PayoutResult{Status: payd.PayoutSucceeded})
		env.Clock.Advance(2 * time.Minute)
		done := waitPayout(t, live, id, "succeeded")
		if done["succeeded_at"] == nil {
			t.Errorf("succeeded payout without succeeded_at: %v", done)
		}
		if got := payoutBalance(t, live); got["available"] != "490.50" || got["pending_payouts"] != "0.00" {
			t.Fatalf("live balance after the payout = %v", got)
		}
		if n := len(env.As(shop, false).Get("/v1/payouts").Expect(t, 200).JSON(t)["items"].([]any)); n != 0 {
			t.Fatalf("the test key lists %d live payouts", n)
		}
		checkLedger(t, env)
	})
}
