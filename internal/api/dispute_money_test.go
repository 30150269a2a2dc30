package api_test

import (
	"encoding/csv"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// toNextMoscowHour moves the test clock to 01:00 of the next day in
// Moscow, so the steps after it fall in one day of the register.
func toNextMoscowHour(env *paydtest.Env) string {
	loc := payd.RegionRU.Location()
	now := env.Clock.Now().In(loc)
	next := time.Date(now.Year(), now.Month(), now.Day()+1, 1, 0, 0, 0, loc)
	env.Clock.Advance(next.Sub(now))
	return next.Format(time.DateOnly)
}

func shopStatus(t *testing.T, c *paydtest.Client) map[string]any {
	t.Helper()
	return c.Get("/v1/shop").Expect(t, 200).JSON(t)["settlement"].(map[string]any)["status"].(map[string]any)
}

// TestDisputeCascade follows the money of two disputes on one payment
// through every source of the cascade — unreleased part, available,
// reserve, deposit, then debt — and back when won, to the bank when lost,
// with the freezes the debt brings and the register of the day.
func TestDisputeCascade(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, c := startM2(t, b)
		env.AdminDo("PATCH", "/admin/v1/merchants/"+shop.MerchantID, map[string]any{"settlement_delay_days": 30}).Expect(t, 200)
		env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{
			"reserve": []any{map[string]any{"currency": "RUB", "percent_bps": 1000, "days": 30}},
		}).Expect(t, 200)
		pay := paidPayment(t, c, "1000.00") // fee 7.00, reserve 100.00, pending 893.00
		env.Clock.Advance(24 * time.Hour)
		day := toNextMoscowHour(env)
		waitLong(t, "pending release", func() bool { return balanceOf(t, c)["available"] == "893.00" })
		env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/deposit/hold", map[string]any{"test": true, "amount": rub("843.00")}).Expect(t, 200)

		// 1000.00 held: 50.00 of available, the payment's 100.00 of reserve,
		// the 843.00 deposit, and 7.00 of debt.
		first := openDispute(t, c, pay, map[string]any{})["id"].(string)
		want := map[string]string{"available": "-7.00", "pending": "0.00", "reserve": "0.00", "deposit": "0.00",
			"pending_refunds": "0.00", "disputed": "1000.00", "payable": "0.00"}
		if got := balanceOf(t, c); !equal(got, want) {
			t.Fatalf("balance under the first dispute = %v, want %v", got, want)
		}
		if st := shopStatus(t, c); st["payouts_frozen"] != true || st["frozen_reason"] != "negative_balance" {
			t.Fatalf("settlement status in debt = %v", st)
		}
		checkLedger(t, env)

		// Won: available and what the reserve lent come back to available,
		// the deposit to the deposit; the debt is gone and so is the freeze.
		simulateDispute(t, c, first, "won")
		waitDispute(t, c, first, "won")
		want = map[string]string{"available": "150.00", "pending": "0.00", "reserve": "0.00", "deposit": "843.00",
			"pending_refunds": "0.00", "disputed": "0.00", "payable": "150.00"}
		if got := balanceOf(t, c); !equal(got, want) {
			t.Fatalf("balance after the won dispute = %v, want %v", got, want)
		}
		if st := shopStatus(t, c); st["payouts_frozen"] != false || st["unfrozen_at"] == nil {
			t.Fatalf("settlement status after the won dispute = %v", st)
		}
		checkLedger(t, env)

		// Lost, with a fine and a fee: the hold goes to the bank, the whole
		// fee of the payment returns (7.00), and fine and fee are debt.
		second := openDispute(t, c, pay, map[string]any{"bank_fine_amount": rub("10.00"), "service_fee_amount": rub("5.00")})["id"].(string)
		simulateDispute(t, c, second, "lost")
		waitDispute(t, c, second, "lost")
		want = map[string]string{"available": "-15.00", "pending": "0.00", "reserve": "0.00", "deposit": "0.00",
			"pending_refunds": "0.00", "disputed": "0.00", "payable": "0.00"}
		if got := balanceOf(t, c); !equal(got, want) {
			t.Fatalf("balance after the lost dispute = %v, want %v", got, want)
		}
		p := c.Get("/v1/payments/"+pay).Expect(t, 200).JSON(t)
		if value(p, "charged_back_amount") != "1000.00" || value(p, "refundable_amount") != "0.00" || p["refundable"] != false ||
			value(p, "fee_refunded_amount") != "7.00" {
			t.Fatalf("payment after the lost dispute = %v", p)
		}
		if st := shopStatus(t, c); st["payouts_frozen"] != true || st["frozen_reason"] != "negative_balance" {
			t.Fatalf("settlement status after the lost dispute = %v", st)
		}
		var frozen, unfrozen int
		for _, it := range c.Get("/v1/events?limit=100").Expect(t, 200).JSON(t)["items"].([]any) {
			switch it.(map[string]any)["type"] {
			case "settlement.frozen":
				frozen++
			case "settlement.unfrozen":
				unfrozen++
			}
		}
		if frozen != 2 || unfrozen != 1 {
			t.Fatalf("settlement.frozen %d and settlement.unfrozen %d events, want 2 and 1", frozen, unfrozen)
		}
		checkLedger(t, env)
		// Nothing is left to dispute.
		c.Post("/v1/test/payments/"+pay+"/disputes", key(), map[string]any{}).ExpectError(t, 422, payd.CodeRefundExceedsCaptured, "amount.value")

		// The register of the day lists the disputes' money. Its net is
		// what the day added to payable money: −1000.00 to the bank, +7.00
		// fee back, −15.00 fine and fee, +100.00 the reserve gave up.
		env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/unfreeze", map[string]any{"test": true}).Expect(t, 200)
		env.Clock.Advance(24 * time.Hour)
		var st struct{ ID string }
		env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/settlements", map[string]any{"test": true, "currency": "RUB", "date": day}).
			Expect(t, 201).Decode(t, &st)
		got := c.Get("/v1/settlements/"+st.ID).Expect(t, 200).JSON(t)
		for field, want := range map[string]string{"chargebacks_amount": "1000.00", "bank_fines_amount": "10.00",
			"chargeback_fees_amount": "5.00", "disputes_amount": "2000.00", "reserve_released_amount": "100.00",
			"deposit_withheld_amount": "0.00", "gross_amount": "0.00", "net_amount": "-908.00"} {
			if value(got, field) != want {
				t.Errorf("settlement %s = %s, want %s (%v)", field, value(got, field), want, got)
			}
		}
		// The report lists the disputes' postings with their operations.
		resp, err := http.Get(got["report_url"].(string))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(resp.Body).ReadAll()
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		ops := map[string]int{}
		for _, row := range rows[1:] {
			if strings.HasPrefix(row[3], "dispute_") {
				ops[row[3]+" "+row[6]]++
				if row[4] != "dispute" || (row[5] != first && row[5] != second) {
					t.Errorf("report row %v does not name its dispute", row)
				}
			}
		}
		for _, want := range []string{"dispute_hold disputed", "dispute_hold reserve", "dispute_hold deposit", "dispute_hold available",
			"dispute_release disputed", "dispute_chargeback disputed", "dispute_bank_fine available", "dispute_service_fee available"} {
			if ops[want] == 0 {
				t.Errorf("report has no %q posting: %v", want, ops)
			}
		}
	})
}

// TestChargebackRatioFreeze checks the operator's chargeback-ratio rule:
// payouts freeze when chargebacks over the window pass it, once per shop of
// the merchant, and only an operator lifts that freeze.
func TestChargebackRatioFreeze(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, c := startM2(t, b)
		other := env.NewShop(payd.RegionKZ, shop.MerchantID)
		env.AdminDo("PATCH", "/admin/v1/merchants/"+shop.MerchantID, map[string]any{
			"chargeback": map[string]any{"ratio_bps": 5000, "window_days": 30, "min_count": 2},
		}).Expect(t, 200)
		env.AdminDo("PATCH", "/admin/v1/merchants/"+shop.MerchantID, map[string]any{"chargeback": map[string]any{"ratio_bps": 20000}}).
			ExpectError(t, 400, payd.CodeInvalidRequest, "chargeback.ratio_bps")
		pays := []string{paidPayment(t, c, "100.00"), paidPayment(t, c, "100.00"), paidPayment(t, c, "100.00")}

		// One chargeback is under the minimum count; a retrieval is no
		// chargeback.
		openDispute(t, c, pays[0], map[string]any{"amount": rub("50.00")})
		openDispute(t, c, pays[1], map[string]any{"amount": rub("50.00"), "kind": "retrieval"})
		if st := shopStatus(t, c); st["payouts_frozen"] != false {
			t.Fatalf("frozen under the rule: %v", st)
		}
		// Two chargebacks of three payments: 66% > 50%.
		d := openDispute(t, c, pays[2], map[string]any{"amount": rub("10.00")})
		st := shopStatus(t, c)
		if st["payouts_frozen"] != true || st["frozen_reason"] != "chargeback_ratio" {
			t.Fatalf("status over the rule: %v", st)
		}
		for _, s := range []*paydtest.Shop{shop, other} {
			n := len(env.As(s, false).Get("/v1/events?type=settlement.frozen").Expect(t, 200).JSON(t)["items"].([]any))
			if n != 1 {
				t.Fatalf("shop %s: %d settlement.frozen events, want 1", s.ID, n)
			}
		}
		// Winning a dispute does not lift it; an operator does.
		simulateDispute(t, c, d["id"].(string), "won")
		waitDispute(t, c, d["id"].(string), "won")
		if st := shopStatus(t, c); st["frozen_reason"] != "chargeback_ratio" {
			t.Fatalf("status after a won dispute: %v", st)
		}
		env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/unfreeze", map[string]any{"test": true}).Expect(t, 200)
		if st := shopStatus(t, c); st["payouts_frozen"] != false {
			t.Fatalf("status after the operator's unfreeze: %v", st)
		}
		checkLedger(t, env)
	})
}
