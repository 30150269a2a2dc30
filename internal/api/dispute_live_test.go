package api_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/money"
)

// livePaymentAtBank starts a service at stage M2 whose live SBP payments
// go to a live bank adapter, with an activated shop, and creates a live
// QR payment of 1000.00 there; it returns the payment as the service keeps
// it (with the bank's id for it).
func livePaymentAtBank(t *testing.T, b paydtest.Backend) (*paydtest.Env, *paydtest.Shop, *paydtest.Client, *paydtest.LiveProvider, *payd.Payment) {
	t.Helper()
	bank := paydtest.NewLiveProvider("acquirer")
	env := paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM2, LiveProviders: []payd.Provider{bank}})
	shop := env.NewShop(payd.RegionRU, "")
	env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
	env.AdminDo("PUT", "/admin/v1/provider-routes", map[string]any{
		"region": "ru", "method": payd.MethodSBP, "currency": money.RUB, "providers": []string{"acquirer"}}).Expect(t, 200)
	live := env.As(shop, true)
	id := live.Post("/v1/payments", key(), qrPayment("1000.00")).Expect(t, 201).JSON(t)["id"].(string)
	var p payd.Payment
	env.AdminDo("GET", "/admin/v1/payments/"+id, nil).Expect(t, 200).Decode(t, &p)
	return env, shop, live, bank, &p
}

// TestLiveDisputeByBankNotification opens and decides a live dispute by the
// bank's signed notifications, through the provider seam: each is applied
// once, and one that cannot apply is kept as a discrepancy.
func TestLiveDisputeByBankNotification(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, live, bank, p := livePaymentAtBank(t, b)
		pay := p.ID
		ctx := context.Background()
		notify := func(n payd.Notification) {
			t.Helper()
			n.ProviderPaymentID = p.ProviderPaymentID
			if err := bank.Notify(ctx, env.Service, n); err != nil {
				t.Fatalf("notification %s: %v", n.ID, err)
			}
		}
		notify(payd.Notification{ID: "n1", Kind: payd.NotifySucceeded})
		live.WaitStatus(pay, "succeeded")

		deadline := env.Clock.Now().Add(5 * 24 * time.Hour).UTC().Truncate(time.Second)
		fine := int64(1000)
		opened := payd.Notification{ID: "n2", Kind: payd.NotifyDisputeOpened, Amount: 25000, Dispute: &payd.DisputeNotice{
			ID: "cb-1", Kind: payd.DisputeChargeback, ReasonCode: "10.4", EvidenceDeadline: &deadline, BankFine: &fine}}
		notify(opened)
		notify(opened)   // the same notification again: applied once
		opened.ID = "n3" // the bank's dispute again: a discrepancy
		notify(opened)
		items := live.Get("/v1/disputes").Expect(t, 200).JSON(t)["items"].([]any)
		if len(items) != 1 {
			t.Fatalf("live disputes %v, want one", items)
		}
		d := items[0].(map[string]any)
		id := d["id"].(string)
		if d["status"] != "opened" || d["test"] != false || value(d, "amount") != "250.00" || value(d, "bank_fine_amount") != "10.00" ||
			d["reason_code"] != "10.4" || d["evidence_deadline_at"] != deadline.Format(time.RFC3339) {
			t.Fatalf("live dispute = %v", d)
		}
		if got := env.As(shop, false).Get("/v1/disputes").Expect(t, 200).JSON(t)["items"].([]any); len(got) != 0 {
			t.Fatalf("the test key lists live disputes: %v", got)
		}

		notify(payd.Notification{ID: "n4", Kind: payd.NotifyDisputeEvidenceRequired, Dispute: &payd.DisputeNotice{ID: "cb-1"}})
		waitDispute(t, live, id, "evidence_required")
		notify(payd.Notification{ID: "n5", Kind: payd.NotifyDisputeWon, Dispute: &payd.DisputeNotice{ID: "cb-404"}})
		notify(payd.Notification{ID: "n6", Kind: payd.NotifyDisputeLost, Dispute: &payd.DisputeNotice{ID: "cb-1", Resolution: "fraud confirmed"}})
		d = waitDispute(t, live, id, "lost")
		if d["resolution"] != "fraud confirmed" {
			t.Fatalf("lost dispute = %v", d)
		}
		notify(payd.Notification{ID: "n7", Kind: payd.NotifyDisputeWon, Dispute: &payd.DisputeNotice{ID: "cb-1"}})
		if got := live.Get("/v1/payments/"+pay).Expect(t, 200).JSON(t); value(got, "charged_back_amount") != "250.00" {
			t.Fatalf("payment after the lost dispute = %v", got)
		}
		var disc struct{ Items []payd.Discrepancy }
		env.AdminDo("GET", "/admin/v1/discrepancies", nil).Expect(t, 200).Decode(t, &disc)
		var kinds []string
		for _, x := range disc.Items {
			kinds = append(kinds, x.NotificationID+" "+string(x.Kind))
		}
		wantStrings(t, "discrepancies", []string{"n7 dispute_won", "n5 dispute_won", "n3 dispute_opened"}, kinds)
		checkLedger(t, env)
	})
}

// TestLiveDisputeOpenedTwiceAtOnce: the bank's notification of one dispute
// arriving many times at once, under different notification ids, opens
// the dispute once and holds its sum once; a notification that lost the
// race fails whole and, handled again as its job would be, is kept as a
// discrepancy.
func TestLiveDisputeOpenedTwiceAtOnce(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, live, bank, p := livePaymentAtBank(t, b)
		pay := p.ID
		ctx := context.Background()
		if err := bank.Notify(ctx, env.Service, payd.Notification{ID: "ok", Kind: payd.NotifySucceeded, ProviderPaymentID: p.ProviderPaymentID}); err != nil {
			t.Fatal(err)
		}
		live.WaitStatus(pay, "succeeded")

		const n = 8
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				note := payd.Notification{ID: fmt.Sprintf("race-%d", i), Kind: payd.NotifyDisputeOpened, Amount: 40000,
					ProviderPaymentID: p.ProviderPaymentID, Dispute: &payd.DisputeNotice{ID: "cb-race"}}
				for try := 0; ; try++ {
					err := bank.Notify(ctx, env.Service, note)
					if err == nil {
						return
					}
					if try == 5 {
						t.Errorf("notification %s: %v", note.ID, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		if items := live.Get("/v1/disputes").Expect(t, 200).JSON(t)["items"].([]any); len(items) != 1 {
			t.Fatalf("disputes after %d notifications at once: %v, want one", n, items)
		}
		if got := live.Get("/v1/payments/" + pay).JSON(t); value(got, "disputed_amount") != "400.00" {
			t.Fatalf("payment = %v, want 400.00 held once", got)
		}
		var disc struct{ Items []payd.Discrepancy }
		env.AdminDo("GET", "/admin/v1/discrepancies", nil).Expect(t, 200).Decode(t, &disc)
		if len(disc.Items) != n-1 {
			t.Fatalf("%d discrepancies, want %d: %v", len(disc.Items), n-1, disc.Items)
		}
		checkLedger(t, env)
	})
}
