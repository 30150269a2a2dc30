package api_test

import (
	"bytes"
	"encoding/csv"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/money"
)

func TestSettlementRegister(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		second := env.NewShop(payd.RegionKZ, shop.MerchantID)
		c := env.As(shop, false)
		day := env.Clock.Now().In(payd.RegionRU.Location()).Format(time.DateOnly)
		form := func() *paydtest.Response {
			return env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/settlements", map[string]any{"test": true, "currency": "RUB", "date": day})
		}
		// A long delay keeps the scheduled run away: this test forms the
		// register by hand (TestSettlementScheduled covers the schedule).
		env.AdminDo("PATCH", "/admin/v1/merchants/"+shop.MerchantID, map[string]any{"settlement_delay_days": 30}).Expect(t, 200)
		pay := paidPayment(t, c, "1000.00")
		r := refund(c, pay, "100.00", nil).Expect(t, 201).JSON(t)
		waitRefund(t, c, r["id"].(string), "succeeded")
		// The day is not over yet.
		form().ExpectError(t, 422, payd.CodeInvalidState, "")
		env.Clock.Advance(48 * time.Hour)
		waitLong(t, "release", func() bool { return balanceOf(t, c)["available"] == "893.70" })
		// Frozen payouts form no register.
		env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/freeze", map[string]any{"test": true, "reason": "verification"}).Expect(t, 200)
		form().ExpectError(t, 422, payd.CodeInvalidState, "")
		if bal := balanceOf(t, c); bal["payable"] != "0.00" {
			t.Fatalf("payable while frozen = %v", bal)
		}
		env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/unfreeze", map[string]any{"test": true}).Expect(t, 200)
		var st struct{ ID string }
		form().Expect(t, 201).Decode(t, &st)
		form().ExpectError(t, 422, payd.CodeInvalidState, "")

		got := c.Get("/v1/settlements/"+st.ID).Expect(t, 200).JSON(t)
		val := func(f string) string { return got[f].(map[string]any)["value"].(string) }
		if got["status"] != "draft" || got["settlement_delay_days"] != float64(30) || got["period_from"] != day || got["period_to"] != day || val("gross_amount") != "1000.00" ||
			val("fee_amount") != "6.30" || val("refunds_amount") != "100.00" || val("net_amount") != "893.70" || got["test"] != true {
			t.Fatalf("settlement = %v", got)
		}
		// The report: a signed CSV of the period's operations, 24 hours.
		report := got["report_url"].(string)
		resp, err := http.Get(report)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" {
			t.Fatalf("report: %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		checkReport(t, body, st.ID, day, "893.70", [][4]string{
			// operation, object, merchant account, amount: the capture
			// less its fee (7.00: 0.70 of it is returned with the
			// refund), the refund held and then paid out.
			{"payment_captured", pay, "pending", "1000.00"},
			{"payment_captured", pay, "pending", "-7.00"},
			{"refund_created", r["id"].(string), "pending", "-100.00"},
			{"refund_created", r["id"].(string), "pending_refunds", "100.00"},
			{"refund_succeeded", r["id"].(string), "pending_refunds", "-100.00"},
			{"refund_succeeded", r["id"].(string), "available", "0.70"},
		})
		if resp, _ := http.Get(strings.Replace(report, "sig=", "sig=00", 1)); resp.StatusCode != 404 {
			t.Fatalf("a tampered report link: %d", resp.StatusCode)
		}
		// Lists and filters; a live key does not see test registers.
		for q, n := range map[string]int{"": 1, "?currency=RUB": 1, "?currency=KZT": 0, "?status=draft": 1, "?status=paid": 0,
			"?period_from=" + day: 1, "?period_to=" + day: 1, "?period_from=2099-01-01": 0} {
			if got := len(c.Get("/v1/settlements"+q).Expect(t, 200).JSON(t)["items"].([]any)); got != n {
				t.Fatalf("settlements%s: %d, want %d", q, got, n)
			}
		}
		c.Get("/v1/settlements?period_from=tomorrow").ExpectError(t, 400, payd.CodeInvalidRequest, "period_from")
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
		env.As(shop, true).Get("/v1/settlements/"+st.ID).ExpectError(t, 404, payd.CodeNotFound, "")

		// draft → approved → sent → paid; the money leaves available.
		env.AdminDo("POST", "/admin/v1/settlements/"+st.ID+"/pay", nil).ExpectError(t, 422, payd.CodeInvalidState, "")
		for _, a := range []string{"approve", "send", "pay"} {
			env.AdminDo("POST", "/admin/v1/settlements/"+st.ID+"/"+a, nil).Expect(t, 200)
		}
		env.AdminDo("POST", "/admin/v1/settlements/"+st.ID+"/fail", nil).ExpectError(t, 422, payd.CodeInvalidState, "")
		if bal := balanceOf(t, c); bal["available"] != "0.00" {
			t.Fatalf("balance after payout = %v", bal)
		}
		if got := c.Get("/v1/settlements/"+st.ID).Expect(t, 200).JSON(t); got["status"] != "paid" || got["paid_at"] == nil {
			t.Fatalf("paid settlement = %v", got)
		}
		for _, s := range []*paydtest.Shop{shop, second} {
			if n := len(env.As(s, false).Get("/v1/events?type=settlement.paid").Expect(t, 200).JSON(t)["items"].([]any)); n != 1 {
				t.Fatalf("shop %s: %d settlement.paid events", s.ID, n)
			}
		}
		checkLedger(t, env)
		// Operators read the entries of the period.
		var entries struct{ Items []struct{ Kind string } }
		from := env.Clock.Now().Add(-96 * time.Hour).Format(time.RFC3339)
		to := env.Clock.Now().Add(time.Hour).Format(time.RFC3339)
		env.AdminDo("GET", "/admin/v1/merchants/"+shop.MerchantID+"/entries?test=true&currency=RUB&from="+from+"&to="+to, nil).Expect(t, 200).Decode(t, &entries)
		kinds := map[string]bool{}
		for _, e := range entries.Items {
			kinds[e.Kind] = true
		}
		for _, k := range []string{"payment_captured", "refund_created", "refund_succeeded", "pending_released", "settlement_paid"} {
			if !kinds[k] {
				t.Fatalf("entries lack %s: %v", k, kinds)
			}
		}
		// The link expires after 24 hours.
		env.Clock.Advance(25 * time.Hour)
		if resp, _ := http.Get(report); resp.StatusCode != 404 {
			t.Fatalf("an expired report link: %d", resp.StatusCode)
		}
	})
}

// TestSettlementScheduled checks the scheduled run: on a business day it
// forms the registers that are due, not on a holiday, and with auto_settle
// the register goes on to paid without operators.
func TestSettlementScheduled(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		loc := payd.RegionRU.Location()
		toTuesdayNoon(t, env)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		env.AdminDo("PATCH", "/admin/v1/merchants/"+shop.MerchantID, map[string]any{"settlement_delay_days": 0, "auto_settle": true}).Expect(t, 200)
		env.AdminDo("PATCH", "/admin/v1/merchants/"+shop.MerchantID, map[string]any{"settlement_delay_days": 31}).
			ExpectError(t, 400, payd.CodeInvalidRequest, "settlement_delay_days")
		paidPayment(t, c, "1000.00")
		// Move to the next day of the calendar, then on to a weekday.
		next := func() time.Time {
			env.AdminDo("POST", "/admin/v1/clock/advance", map[string]any{"seconds": 86400}).Expect(t, 200)
			return env.Clock.Now().In(loc)
		}
		// The first weekday after the payment becomes a holiday before the
		// clock reaches it: every run on it must form nothing.
		target := env.Clock.Now().In(loc).AddDate(0, 0, 1)
		for target.Weekday() == time.Saturday || target.Weekday() == time.Sunday {
			target = target.AddDate(0, 0, 1)
		}
		env.AdminDo("PUT", "/admin/v1/calendar/ru/holidays/"+target.Format(time.DateOnly), nil).Expect(t, 200)
		day := next()
		for day.Format(time.DateOnly) != target.Format(time.DateOnly) {
			day = next()
		}
		// Every run the jumps asked for has ended before nothing is
		// asserted: the service has nothing due or running.
		env.Settle(t)
		if n := len(c.Get("/v1/settlements").Expect(t, 200).JSON(t)["items"].([]any)); n != 0 {
			t.Fatalf("%d registers formed on a holiday", n)
		}
		env.AdminDo("DELETE", "/admin/v1/calendar/ru/holidays/"+day.Format(time.DateOnly), nil).Expect(t, 200)
		env.AdminDo("POST", "/admin/v1/clock/advance", map[string]any{"seconds": 1}).Expect(t, 200)
		var list struct {
			Items []struct {
				Status    string
				NetAmount struct{ Value string } `json:"net_amount"`
			}
		}
		waitLong(t, "the scheduled register", func() bool {
			c.Get("/v1/settlements").Expect(t, 200).Decode(t, &list)
			return len(list.Items) == 1 && list.Items[0].Status == "paid"
		})
		if list.Items[0].NetAmount.Value != "993.00" {
			t.Fatalf("register = %+v", list.Items[0])
		}
		checkLedger(t, env)
	})
}

// toTuesdayNoon moves the test clock, through the operator's route, to
// the next Tuesday at noon in Moscow, whatever the machine's day and hour:
// the next weekday is then Wednesday, with no weekend between, so a test
// of the calendar does not depend on the day it runs.
func toTuesdayNoon(t *testing.T, env *paydtest.Env) {
	t.Helper()
	loc := payd.RegionRU.Location()
	now := env.Clock.Now().In(loc)
	start := time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, loc).AddDate(0, 0, 1)
	for start.Weekday() != time.Tuesday {
		start = start.AddDate(0, 0, 1)
	}
	env.AdminDo("POST", "/admin/v1/clock/advance", map[string]any{"seconds": int(start.Sub(env.Clock.Now()).Seconds())}).Expect(t, 200)
}

// checkReport reads a register's CSV line by line: the header, then one
// line per posting to the merchant's accounts, in order, each naming the
// register, an entry, a time within the period and the currency; the lines
// add up to the register's net amount.
func checkReport(t *testing.T, body []byte, settlementID, day, net string, want [][4]string) {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("report is not CSV: %v\n%s", err, body)
	}
	header := "settlement_id,entry_id,at,operation,object_type,object_id,account,amount,currency"
	if len(rows) == 0 || strings.Join(rows[0], ",") != header {
		t.Fatalf("report header = %v", rows)
	}
	rows = rows[1:]
	if len(rows) != len(want) {
		t.Fatalf("report has %d lines, want %d:\n%s", len(rows), len(want), body)
	}
	var sum int64
	for i, row := range rows {
		got := [4]string{row[3], row[5], row[6], row[7]}
		if got != want[i] {
			t.Errorf("line %d = %v, want %v", i+1, got, want[i])
		}
		at, err := time.Parse(time.RFC3339, row[2])
		if row[0] != settlementID || !strings.HasPrefix(row[1], payd.PrefixEntry) || err != nil ||
			at.In(payd.RegionRU.Location()).Format(time.DateOnly) != day || row[8] != "RUB" {
			t.Errorf("line %d = %v", i+1, row)
		}
		v, err := money.ParseSigned(row[7])
		if err != nil {
			t.Fatalf("line %d amount %q: %v", i+1, row[7], err)
		}
		sum += v
	}
	if got := money.FormatValue(sum); got != net {
		t.Errorf("the lines add up to %s, the register's net is %s", got, net)
	}
}
