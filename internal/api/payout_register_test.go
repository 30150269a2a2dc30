package api_test

import (
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/sandpayout"
)

// TestPayoutRegister checks that the register of a day counts its payouts
// apart from the other money — reserved at creation, given back when
// canceled — and that its report lists them as their own lines.
func TestPayoutRegister(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, c := startM5(t, b, nil)
		// A long delay keeps the scheduled run from registering the
		// funding day meanwhile (its unpaid register would hold the
		// money the payouts need); this test forms the payouts' day's
		// register by hand.
		env.AdminDo("PATCH", "/admin/v1/merchants/"+shop.MerchantID, map[string]any{"settlement_delay_days": 30}).Expect(t, 200)
		fund(t, env, c, "1000.00", "993.00")
		day := toNextMoscowHour(env)
		sent := c.Post("/v1/payouts", key(), cardPayout("100.00", nil)).Expect(t, 201).JSON(t)["id"].(string)
		declined := c.Post("/v1/payouts", key(), cardPayout("50.01", nil)).Expect(t, 201).JSON(t)["id"].(string)
		env.Clock.Advance(sandpayout.Settle)
		waitPayout(t, c, sent, "succeeded")
		waitPayout(t, c, declined, "canceled")
		toNextMoscowHour(env)

		var st struct{ ID string }
		env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/settlements", map[string]any{"test": true, "currency": "RUB", "date": day}).
			Expect(t, 201).Decode(t, &st)
		got := c.Get("/v1/settlements/"+st.ID).Expect(t, 200).JSON(t)
		// Reserved: 100.00 + 0.50 and 50.01 + 0.25; given back: 50.26.
		for field, want := range map[string]string{"payouts_amount": "150.76", "payouts_released_amount": "50.26",
			"gross_amount": "0.00", "fee_amount": "0.00", "net_amount": "-100.50"} {
			if value(got, field) != want {
				t.Errorf("settlement %s = %s, want %s (%v)", field, value(got, field), want, got)
			}
		}
		resp, err := http.Get(got["report_url"].(string))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(resp.Body).ReadAll()
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		lines := map[string][]string{}
		for _, row := range rows[1:] {
			if row[4] != "payout" {
				t.Errorf("report row %v is not a payout's", row)
				continue
			}
			lines[row[5]] = append(lines[row[5]], row[3]+" "+row[6]+" "+row[7])
		}
		want := map[string][]string{
			sent: {"payout_created available -100.50", "payout_created pending_payouts 100.50",
				"payout_succeeded pending_payouts -100.00", "payout_succeeded pending_payouts -0.50"},
			declined: {"payout_created available -50.26", "payout_created pending_payouts 50.26",
				"payout_canceled pending_payouts -50.26", "payout_canceled available 50.26"},
		}
		for id, w := range want {
			if !equalLines(lines[id], w) {
				t.Errorf("report lines of %s = %v, want %v", id, lines[id], w)
			}
		}
		checkLedger(t, env)

		// Paying the register takes the net out of available only when it
		// is positive; this one is not, and the payouts stay paid once.
		for _, a := range []string{"approve", "send", "pay"} {
			env.AdminDo("POST", "/admin/v1/settlements/"+st.ID+"/"+a, nil).Expect(t, 200)
		}
		if got := payoutBalance(t, c)["available"]; got != "892.50" {
			t.Fatalf("available after the register = %s, want 892.50", got)
		}
	})
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPayoutLeavesUnpaidRegistersTheirMoney: money a register counted and
// has not paid yet is promised to it; a payout may take only what is left,
// so paying the register afterwards never drives available below zero.
func TestPayoutLeavesUnpaidRegistersTheirMoney(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, c := startM5(t, b, nil)
		day := toNextMoscowHour(env)
		fund(t, env, c, "1000.00", "993.00")
		var st struct{ ID string }
		env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/settlements", map[string]any{"test": true, "currency": "RUB", "date": day}).
			Expect(t, 201).Decode(t, &st)
		if got := value(c.Get("/v1/settlements/"+st.ID).Expect(t, 200).JSON(t), "net_amount"); got != "993.00" {
			t.Fatalf("register net %s, want 993.00", got)
		}
		// Every stage before paid keeps the register's claim.
		for _, a := range []string{"", "approve", "send"} {
			if a != "" {
				env.AdminDo("POST", "/admin/v1/settlements/"+st.ID+"/"+a, nil).Expect(t, 200)
			}
			r := c.Post("/v1/payouts", key(), cardPayout("900.00", nil))
			r.ExpectError(t, 422, payd.CodeInsufficientMerchantBalance, "")
			// 900.00 + fee 4.50 needed, 993.00 available, all of it the
			// register's.
			if d := r.JSON(t)["description"].(string); !strings.Contains(d, "904.50 RUB") ||
				!strings.Contains(d, "available balance is 993.00 RUB, of which 993.00 RUB is held for settlements") {
				t.Fatalf("refusal %q does not name the sum needed, the available balance and the register's part", d)
			}
		}
		env.AdminDo("POST", "/admin/v1/settlements/"+st.ID+"/pay", nil).Expect(t, 200)
		if got := payoutBalance(t, c)["available"]; got != "0.00" {
			t.Fatalf("available after the register was paid = %s, want 0.00", got)
		}
		checkLedger(t, env)
	})
}
