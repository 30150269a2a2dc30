package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestTestDisputeCreate covers the sandbox's opening: who may, on which
// payment, with which fields, and the defaults.
func TestTestDisputeCreate(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, c := startM2(t, b)
		pay := paidPayment(t, c, "1000.00")
		path := "/v1/test/payments/" + pay + "/disputes"

		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
		env.As(shop, true).Post(path, key(), map[string]any{}).ExpectError(t, 403, payd.CodeForbidden, "")
		env.As(shop, true).Post("/v1/test/disputes/dsp_00000000000000000000000000/simulate", key(), map[string]any{"outcome": "won"}).
			ExpectError(t, 403, payd.CodeForbidden, "")
		c.Post("/v1/test/payments/pay_00000000000000000000000000/disputes", key(), map[string]any{}).ExpectError(t, 404, payd.CodeNotFound, "")
		env.As(env.NewShop(payd.RegionRU, ""), false).Post(path, key(), map[string]any{}).ExpectError(t, 404, payd.CodeNotFound, "")
		pending := c.Post("/v1/payments", key(), newPayment("100.00", nil)).Expect(t, 201).JSON(t)["id"].(string)
		c.Post("/v1/test/payments/"+pending+"/disputes", key(), map[string]any{}).ExpectError(t, 422, payd.CodeInvalidState, "")
		for _, tt := range []struct {
			body  map[string]any
			param string
		}{
			{map[string]any{"kind": "fraud"}, "kind"},
			{map[string]any{"amount": map[string]any{"value": "1", "currency": "RUB"}}, "amount.value"},
			{map[string]any{"amount": rub("0.00")}, "amount.value"},
			{map[string]any{"amount": map[string]any{"value": "10.00", "currency": "USD"}}, "amount.currency"},
			{map[string]any{"bank_fine_amount": map[string]any{"value": "10.00", "currency": "EUR"}}, "bank_fine_amount.currency"},
			{map[string]any{"reason_code": strings.Repeat("x", 33)}, "reason_code"},
			{map[string]any{"evidence_deadline_seconds": 0}, "evidence_deadline_seconds"},
			{map[string]any{"evidence_deadline_seconds": 90*86400 + 1}, "evidence_deadline_seconds"},
		} {
			c.Post(path, key(), tt.body).ExpectError(t, 400, payd.CodeInvalidRequest, tt.param)
		}
		c.Post(path, key(), map[string]any{"amount": rub("1000.01")}).ExpectError(t, 422, payd.CodeRefundExceedsCaptured, "amount.value")
		c.Do("POST", path, map[string]any{}).ExpectError(t, 400, payd.CodeInvalidRequest, "Idempotency-Key")

		// Defaults: a chargeback of the refundable amount, 7 days, the
		// shop's dispute fees; a replay answers the same dispute with 200.
		env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{
			"dispute_fees": []any{map[string]any{"currency": "RUB", "bank_fine": 150000, "service_fee": 50000}},
		}).Expect(t, 200)
		env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"dispute_fees": []any{map[string]any{"currency": "XXX"}}}).
			ExpectError(t, 400, payd.CodeInvalidRequest, "dispute_fees.0.currency")
		r := refund(c, pay, "100.00", nil).Expect(t, 201).JSON(t)
		waitRefund(t, c, r["id"].(string), "succeeded")
		k := key()
		d := c.Post(path, k, map[string]any{}).Expect(t, 201).JSON(t)
		if d["kind"] != "chargeback" || value(d, "amount") != "900.00" || value(d, "bank_fine_amount") != "1500.00" ||
			value(d, "service_fee_amount") != "500.00" || len(d["evidence"].([]any)) != 0 {
			t.Fatalf("dispute with defaults = %v", d)
		}
		deadline, _ := time.Parse(time.RFC3339Nano, d["evidence_deadline_at"].(string))
		if want := env.Clock.Now().Add(7 * 24 * time.Hour); deadline.Sub(want).Abs() > 2*time.Second {
			t.Fatalf("default deadline %v, want about %v", deadline, want)
		}
		if again := c.Post(path, k, map[string]any{}).Expect(t, 200).JSON(t); again["id"] != d["id"] {
			t.Fatalf("replay opened another dispute: %v", again)
		}
		c.Post(path, k, map[string]any{"kind": "retrieval"}).ExpectError(t, 409, payd.CodeIdempotencyConflict, "")

		// Simulate: its own checks.
		sim := "/v1/test/disputes/" + d["id"].(string) + "/simulate"
		c.Post(sim, key(), map[string]any{}).ExpectError(t, 400, payd.CodeInvalidRequest, "outcome")
		c.Post(sim, key(), map[string]any{"outcome": "succeed"}).ExpectError(t, 400, payd.CodeInvalidRequest, "outcome")
		c.Post(sim, key(), map[string]any{"outcome": "won", "delay_seconds": 301}).ExpectError(t, 400, payd.CodeInvalidRequest, "delay_seconds")
		env.As(env.NewShop(payd.RegionRU, ""), false).Post(sim, key(), map[string]any{"outcome": "won"}).ExpectError(t, 404, payd.CodeNotFound, "")
		simulateDispute(t, c, d["id"].(string), "evidence_required")
		waitDispute(t, c, d["id"].(string), "evidence_required")
		c.Post(sim, key(), map[string]any{"outcome": "evidence_required"}).ExpectError(t, 422, payd.CodeInvalidState, "")
		// A delayed outcome waits for the clock.
		c.Post(sim, key(), map[string]any{"outcome": "lost", "delay_seconds": 120}).Expect(t, 202)
		env.Settle(t)
		if got := c.Get("/v1/disputes/" + d["id"].(string)).JSON(t)["status"]; got != "evidence_required" {
			t.Fatalf("status before the delay = %v", got)
		}
		env.Clock.Advance(2 * time.Minute)
		waitDispute(t, c, d["id"].(string), "lost")
		checkLedger(t, env)
	})
}

// TestDisputeList covers scope, filters and cursor pages of GET /disputes,
// and GET /disputes/{id}.
func TestDisputeList(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, c := startM2(t, b)
		first, second := paidPayment(t, c, "500.00"), paidPayment(t, c, "500.00")
		var ids []string
		for i, kind := range []string{"chargeback", "retrieval", "complaint", "chargeback", "chargeback"} {
			pay := first
			if i%2 == 1 {
				pay = second
			}
			ids = append(ids, openDispute(t, c, pay, map[string]any{"kind": kind, "amount": rub("10.00")})["id"].(string))
			env.Clock.Advance(time.Second)
		}
		simulateDispute(t, c, ids[0], "won")
		waitDispute(t, c, ids[0], "won")
		// Another shop of the same merchant sees none of them: disputes
		// are shop-scoped.
		sibling := env.As(env.NewShop(payd.RegionRU, shop.MerchantID), false)
		if got := sibling.Get("/v1/disputes").Expect(t, 200).JSON(t)["items"].([]any); len(got) != 0 {
			t.Fatalf("sibling shop lists %v", got)
		}
		sibling.Get("/v1/disputes/"+ids[0]).ExpectError(t, 404, payd.CodeNotFound, "")
		// The live key lists no sandbox dispute and cannot read one.
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
		live := env.As(shop, true)
		if got := live.Get("/v1/disputes").Expect(t, 200).JSON(t)["items"].([]any); len(got) != 0 {
			t.Fatalf("live key lists %v", got)
		}
		live.Get("/v1/disputes/"+ids[0]).ExpectError(t, 404, payd.CodeNotFound, "")
		c.Get("/v1/disputes/dsp_00000000000000000000000000").ExpectError(t, 404, payd.CodeNotFound, "")
		c.Get("/v1/disputes/nonsense").ExpectError(t, 404, payd.CodeNotFound, "")

		list := func(query string) []string {
			var out []string
			cursor := ""
			for range 10 {
				page := c.Get("/v1/disputes?limit=2"+query+cursor).Expect(t, 200).JSON(t)
				for _, it := range page["items"].([]any) {
					out = append(out, it.(map[string]any)["id"].(string))
				}
				next, _ := page["next_cursor"].(string)
				if next == "" {
					return out
				}
				cursor = "&cursor=" + next
			}
			t.Fatal("paging does not end")
			return nil
		}
		rev := func(idx ...int) []string {
			var out []string
			for _, i := range idx {
				out = append(out, ids[i])
			}
			return out
		}
		created := c.Get("/v1/disputes/"+ids[2]).Expect(t, 200).JSON(t)["created_at"].(string)
		for _, tt := range []struct {
			query string
			want  []string
		}{
			{"", rev(4, 3, 2, 1, 0)},
			{"&payment_id=" + second, rev(3, 1)},
			{"&status=won", rev(0)},
			{"&status=opened", rev(4, 3, 2, 1)},
			{"&kind=chargeback", rev(4, 3, 0)},
			{"&kind=chargeback&payment_id=" + first, rev(4, 0)},
			{"&created_at_gte=" + created, rev(4, 3, 2)},
			{"&created_at_lt=" + created, rev(1, 0)},
		} {
			if got := list(tt.query); !equalStrings(got, tt.want) {
				t.Errorf("list %q = %v, want %v", tt.query, got, tt.want)
			}
		}
		for _, tt := range []struct{ query, param string }{
			{"status=closed", "status"}, {"kind=fraud", "kind"}, {"payment_id=rf_1", "payment_id"},
			{"created_at_gte=yesterday", "created_at_gte"}, {"limit=101", "limit"},
		} {
			c.Get("/v1/disputes?"+tt.query).ExpectError(t, 400, payd.CodeInvalidRequest, tt.param)
		}
		// A cursor is tied to its filters.
		page := c.Get("/v1/disputes?limit=1&kind=chargeback").Expect(t, 200).JSON(t)
		c.Get("/v1/disputes?limit=1&cursor="+page["next_cursor"].(string)).ExpectError(t, 400, payd.CodeInvalidRequest, "cursor")
	})
}
