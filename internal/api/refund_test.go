package api_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// paidPayment creates a QR (SBP) payment of value RUB and has the sandbox
// pay it; SBP's default fee is 0.70%.
func paidPayment(t *testing.T, c *paydtest.Client, value string) string {
	t.Helper()
	p := c.Post("/v1/payments", key(), newPayment(value, map[string]any{"confirmation": map[string]any{"type": "qr"}})).Expect(t, 201).JSON(t)
	id := p["id"].(string)
	c.Post("/v1/test/payments/"+id+"/simulate", key(), map[string]any{"outcome": "succeed"}).Expect(t, 202)
	c.WaitStatus(id, "succeeded")
	return id
}

func balanceOf(t *testing.T, c *paydtest.Client) map[string]string {
	t.Helper()
	items := c.Get("/v1/balance").Expect(t, 200).JSON(t)["items"].([]any)
	out := map[string]string{}
	for _, it := range items {
		m := it.(map[string]any)
		if m["currency"] != "RUB" {
			continue
		}
		for _, f := range []string{"available", "pending", "reserve", "deposit", "pending_refunds", "disputed", "payable"} {
			out[f] = m[f].(map[string]any)["value"].(string)
		}
	}
	return out
}

func refund(c *paydtest.Client, paymentID, value string, extra map[string]any) *paydtest.Response {
	body := map[string]any{"payment_id": paymentID, "amount": map[string]any{"value": value, "currency": "RUB"}}
	for k, v := range extra {
		body[k] = v
	}
	return c.Post("/v1/refunds", key(), body)
}

func waitRefund(t *testing.T, c *paydtest.Client, id, status string) map[string]any {
	t.Helper()
	var last map[string]any
	paydtest.Eventually(t, "refund "+id+" to be "+status, func() bool {
		last = c.Get("/v1/refunds/"+id).Expect(t, 200).JSON(t)
		return last["status"] == status
	})
	return last
}

func TestRefundLifecycleAndBalance(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		if got := c.Get("/v1/balance").Expect(t, 200).JSON(t)["items"].([]any); len(got) != 0 {
			t.Fatalf("a new merchant's balance = %v", got)
		}
		pay := paidPayment(t, c, "1000.00")
		want := map[string]string{"available": "0.00", "pending": "993.00", "reserve": "0.00", "deposit": "0.00", "pending_refunds": "0.00", "disputed": "0.00", "payable": "0.00"}
		if got := balanceOf(t, c); !equal(got, want) {
			t.Fatalf("after capture balance = %v, want %v", got, want)
		}
		created := refund(c, pay, "100.00", map[string]any{"reason": "damaged"}).Expect(t, 201).JSON(t)
		rid := created["id"].(string)
		if created["status"] != "pending" || created["order_id"] == "" || created["payment_id"] != pay {
			t.Fatalf("refund = %v", created)
		}
		// The sandbox decides the refund in a job that may already have
		// run: a refund still pending after the payment was read was
		// pending when it was read, and then counts in flight.
		got := c.Get("/v1/payments/"+pay).Expect(t, 200).JSON(t)
		if c.Get("/v1/refunds/"+rid).Expect(t, 200).JSON(t)["status"] == "pending" &&
			(got["pending_refunds_amount"].(map[string]any)["value"] != "100.00" || got["refunded_amount"].(map[string]any)["value"] != "0.00" ||
				got["refundable_amount"].(map[string]any)["value"] != "900.00") {
			t.Fatalf("payment with a refund in flight = %v", got)
		}
		done := waitRefund(t, c, rid, "succeeded")
		if done["succeeded_at"] == nil {
			t.Fatalf("succeeded refund = %v", done)
		}
		got = c.Get("/v1/payments/"+pay).Expect(t, 200).JSON(t)
		if got["refunded_amount"].(map[string]any)["value"] != "100.00" || got["fee_refunded_amount"].(map[string]any)["value"] != "0.70" ||
			got["pending_refunds_amount"].(map[string]any)["value"] != "0.00" {
			t.Fatalf("payment after the refund = %v", got)
		}
		want = map[string]string{"available": "0.70", "pending": "893.00", "reserve": "0.00", "deposit": "0.00", "pending_refunds": "0.00", "disputed": "0.00", "payable": "0.70"}
		if got := balanceOf(t, c); !equal(got, want) {
			t.Fatalf("after the refund balance = %v, want %v", got, want)
		}
		// The hold of one day on the service clock releases pending.
		env.Clock.Advance(24*time.Hour + time.Minute)
		waitLong(t, "pending released", func() bool { return balanceOf(t, c)["pending"] == "0.00" })
		if got := balanceOf(t, c); got["available"] != "893.70" {
			t.Fatalf("after release balance = %v", got)
		}
		// A failing refund gives the money back.
		failed := refund(c, pay, "50.00", map[string]any{"metadata": map[string]any{"sandbox_outcome": "decline", "sandbox_decline_code": "insufficient_funds"}}).Expect(t, 201).JSON(t)
		canceled := waitRefund(t, c, failed["id"].(string), "canceled")
		if canceled["cancellation_details"].(map[string]any)["reason"] != "insufficient_funds" {
			t.Fatalf("canceled refund = %v", canceled)
		}
		if got := balanceOf(t, c); got["available"] != "893.70" || got["pending_refunds"] != "0.00" {
			t.Fatalf("after a canceled refund balance = %v", got)
		}
		types := map[string]int{}
		var events struct{ Items []struct{ Type string } }
		c.Get("/v1/events?limit=100").Expect(t, 200).Decode(t, &events)
		for _, e := range events.Items {
			types[e.Type]++
		}
		if types["refund.succeeded"] != 1 || types["refund.canceled"] != 1 {
			t.Fatalf("events = %v", types)
		}
		// A second shop of the merchant sees the same balance; the live
		// contour is empty.
		kz := env.NewShop(payd.RegionKZ, shop.MerchantID)
		if got := balanceOf(t, env.As(kz, false)); !equal(got, balanceOf(t, c)) {
			t.Fatalf("another shop's view = %v", got)
		}
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
		if got := env.As(shop, true).Get("/v1/balance").Expect(t, 200).JSON(t)["items"].([]any); len(got) != 0 {
			t.Fatalf("live balance = %v", got)
		}
		// Lists.
		if n := len(c.Get("/v1/refunds?payment_id="+pay).Expect(t, 200).JSON(t)["items"].([]any)); n != 2 {
			t.Fatalf("%d refunds of the payment", n)
		}
		if n := len(c.Get("/v1/refunds?status=canceled").Expect(t, 200).JSON(t)["items"].([]any)); n != 1 {
			t.Fatalf("%d canceled refunds", n)
		}
		c.Get("/v1/refunds?status=done").ExpectError(t, 400, payd.CodeInvalidRequest, "status")
		env.As(env.NewShop(payd.RegionRU, ""), false).Get("/v1/refunds/"+rid).ExpectError(t, 404, payd.CodeNotFound, "")
		checkLedger(t, env)
	})
}

// checkLedger fails the test when a money invariant is broken.
func checkLedger(t testing.TB, env *paydtest.Env) {
	t.Helper()
	var res struct {
		OK       bool
		Problems []string
	}
	env.AdminDo("GET", "/admin/v1/ledger/check", nil).Expect(t, 200).Decode(t, &res)
	if !res.OK {
		t.Fatalf("ledger invariants broken: %v", res.Problems)
	}
}

func equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestRefundErrors(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		other := env.As(env.NewShop(payd.RegionRU, ""), false)
		pay := paidPayment(t, c, "1000.00")
		refund(other, pay, "10.00", nil).ExpectError(t, 404, payd.CodeNotFound, "")
		pending := c.Post("/v1/payments", key(), newPayment("100.00", nil)).Expect(t, 201).JSON(t)["id"].(string)
		refund(c, pending, "10.00", nil).ExpectError(t, 422, payd.CodeInvalidState, "")
		refund(c, pay, "1000.01", nil).ExpectError(t, 422, payd.CodeRefundExceedsCaptured, "")
		refund(c, pay, "0.00", nil).ExpectError(t, 400, payd.CodeInvalidRequest, "amount.value")
		refund(c, pay, "10", nil).ExpectError(t, 400, payd.CodeInvalidRequest, "amount.value")
		c.Post("/v1/refunds", key(), map[string]any{"payment_id": pay, "amount": map[string]any{"value": "10.00", "currency": "KZT"}}).
			ExpectError(t, 400, payd.CodeInvalidRequest, "amount.currency")
		c.Post("/v1/refunds", key(), map[string]any{"amount": map[string]any{"value": "10.00", "currency": "RUB"}}).
			ExpectError(t, 400, payd.CodeInvalidRequest, "payment_id")
		refund(c, pay, "10.00", map[string]any{"order_id": "mine"}).ExpectError(t, 400, payd.CodeInvalidRequest, "order_id")
		refund(c, pay, "10.00", map[string]any{"receipt": map[string]any{"items": []any{map[string]any{}}}}).ExpectError(t, 422, payd.CodeReceiptInvalid, "receipt")
		refund(c, pay, "10.00", map[string]any{"reason": string(make([]byte, 257))}).ExpectError(t, 400, payd.CodeInvalidRequest, "reason")
		// Released money is available; a refund beyond the payment's
		// unreleased part and the positive available is refused.
		env.Clock.Advance(24*time.Hour + time.Minute)
		waitLong(t, "pending released", func() bool { return balanceOf(t, c)["available"] == "993.00" })
		over := refund(c, pay, "993.01", nil)
		over.ExpectError(t, 422, payd.CodeInsufficientMerchantBalance, "")
		if d := over.JSON(t)["description"].(string); !strings.Contains(d, "needs 993.01 RUB") || !strings.Contains(d, "which is 993.00 RUB") {
			t.Fatalf("refusal %q does not name the sum needed and the available balance", d)
		}
		r := refund(c, pay, "993.00", nil).Expect(t, 201).JSON(t)
		waitRefund(t, c, r["id"].(string), "succeeded")
		if got := balanceOf(t, c); got["available"] != "6.95" {
			t.Fatalf("balance after refunding the available = %v", got)
		}
		// Nothing was left pending by the refused requests.
		if n := len(c.Get("/v1/refunds").Expect(t, 200).JSON(t)["items"].([]any)); n != 1 {
			t.Fatalf("%d refunds stored", n)
		}
	})
}

// TestRefundConcurrency sends 100 refunds at once against one payment: the
// refunded total never exceeds what the payment allows.
func TestRefundConcurrency(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		pay := paidPayment(t, c, "500.00")
		var wg sync.WaitGroup
		statuses := make([]*paydtest.Response, 100)
		for i := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = refund(c, pay, "10.00", nil)
			}()
		}
		wg.Wait()
		created := 0
		for _, r := range statuses {
			switch {
			case r.Status == 201:
				created++
			case r.Status == 422 && (r.ErrorCode() == string(payd.CodeRefundExceedsCaptured) || r.ErrorCode() == string(payd.CodeInsufficientMerchantBalance)):
			default:
				t.Fatalf("answer %d %s", r.Status, r.Body)
			}
		}
		// 500.00 captured, 3.50 fee: pending holds 496.50, so 49 refunds of
		// 10.00 fit the balance rule.
		if created != 49 {
			t.Fatalf("%d refunds created, want 49", created)
		}
		// The sandbox answers each refund at once; when all are done the
		// payment and the balance agree to the minor unit.
		var got map[string]any
		waitLong(t, "all refunds settled", func() bool {
			got = c.Get("/v1/payments/"+pay).Expect(t, 200).JSON(t)
			return got["pending_refunds_amount"].(map[string]any)["value"] == "0.00"
		})
		if got["refunded_amount"].(map[string]any)["value"] != "490.00" || got["refundable_amount"].(map[string]any)["value"] != "10.00" ||
			got["fee_refunded_amount"].(map[string]any)["value"] != "3.43" {
			t.Fatalf("payment = %v", got)
		}
		if bal := balanceOf(t, c); bal["pending_refunds"] != "0.00" || bal["pending"] != "6.50" || bal["available"] != "3.43" {
			t.Fatalf("balance = %v", bal)
		}
		checkLedger(t, env)
	})
}

// TestPayoutFreeze checks the automatic freeze at a negative available (a
// refund beyond available, allowed by the operator), its lifting, and a
// manual freeze: events once per shop, payable 0.00 while frozen.
func TestPayoutFreeze(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		second := env.NewShop(payd.RegionKZ, shop.MerchantID)
		c := env.As(shop, false)
		env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"refund_beyond_available": true}).Expect(t, 200)
		pay := paidPayment(t, c, "1000.00")
		env.Clock.Advance(24*time.Hour + time.Minute)
		waitLong(t, "release", func() bool { return balanceOf(t, c)["available"] == "993.00" })
		// 1000.00 back from 993.00 available: 7.00 of debt. The bank's
		// answer waits for the clock, so the freeze can be seen before it.
		r := refund(c, pay, "1000.00", map[string]any{"metadata": map[string]any{"sandbox_delay_seconds": "120"}}).Expect(t, 201).JSON(t)
		bal := balanceOf(t, c)
		if bal["available"] != "-7.00" || bal["payable"] != "0.00" {
			t.Fatalf("balance = %v", bal)
		}
		st := c.Get("/v1/shop").Expect(t, 200).JSON(t)["settlement"].(map[string]any)["status"].(map[string]any)
		if st["payouts_frozen"] != true || st["frozen_reason"] != "negative_balance" || st["frozen_at"] == nil {
			t.Fatalf("settlement status = %v", st)
		}
		for _, s := range []*paydtest.Shop{shop, second} {
			if n := len(env.As(s, false).Get("/v1/events?type=settlement.frozen").Expect(t, 200).JSON(t)["items"].([]any)); n != 1 {
				t.Fatalf("shop %s: %d settlement.frozen events, want 1", s.ID, n)
			}
		}
		env.Clock.Advance(2 * time.Minute)
		waitRefund(t, c, r["id"].(string), "succeeded")
		// The refund gave the whole fee back (7.00): available is 0.00 again,
		// and the automatic freeze is lifted.
		if bal := balanceOf(t, c); bal["available"] != "0.00" {
			t.Fatalf("balance after the refund = %v", bal)
		}
		st = c.Get("/v1/shop").Expect(t, 200).JSON(t)["settlement"].(map[string]any)["status"].(map[string]any)
		if st["payouts_frozen"] != false || st["unfrozen_at"] == nil {
			t.Fatalf("status after = %v", st)
		}
		if n := len(c.Get("/v1/events?type=settlement.unfrozen").Expect(t, 200).JSON(t)["items"].([]any)); n != 1 {
			t.Fatalf("%d settlement.unfrozen events", n)
		}
		// A deposit held from available, then released.
		env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/deposit/hold", map[string]any{"test": true,
			"amount": map[string]any{"value": "0.00", "currency": "RUB"}}).ExpectError(t, 400, payd.CodeInvalidRequest, "amount.value")
		env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/deposit/hold", map[string]any{"test": true,
			"amount": map[string]any{"value": "50.00", "currency": "RUB"}}).Expect(t, 200)
		if bal := balanceOf(t, c); bal["deposit"] != "50.00" || bal["available"] != "-50.00" {
			t.Fatalf("balance with a deposit = %v", bal)
		}
		env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/deposit/release", map[string]any{"test": true,
			"amount": map[string]any{"value": "50.01", "currency": "RUB"}}).ExpectError(t, 400, payd.CodeInvalidRequest, "amount.value")
		env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/deposit/release", map[string]any{"test": true,
			"amount": map[string]any{"value": "50.00", "currency": "RUB"}}).Expect(t, 200)
		if bal := balanceOf(t, c); bal["deposit"] != "0.00" || bal["available"] != "0.00" {
			t.Fatalf("balance after the release = %v", bal)
		}
		checkLedger(t, env)
		// A manual freeze of the live contour leaves the test contour alone.
		env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/freeze", map[string]any{"test": false, "reason": "manual_review"}).Expect(t, 200)
		if st := c.Get("/v1/shop").Expect(t, 200).JSON(t)["settlement"].(map[string]any)["status"].(map[string]any); st["payouts_frozen"] != false {
			t.Fatalf("test contour frozen by a live freeze: %v", st)
		}
		env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/freeze", map[string]any{"test": true, "reason": "bored"}).
			ExpectError(t, 400, payd.CodeInvalidRequest, "reason")
		env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/freeze", map[string]any{"test": true, "reason": "manual_review"}).Expect(t, 200)
		if st := c.Get("/v1/shop").Expect(t, 200).JSON(t)["settlement"].(map[string]any)["status"].(map[string]any); st["frozen_reason"] != "manual_review" {
			t.Fatalf("manual freeze: %v", st)
		}
	})
}
