package api_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/sandpayout"
)

func startM5(t *testing.T, b paydtest.Backend, opts *paydtest.Options) (*paydtest.Env, *paydtest.Shop, *paydtest.Client) {
	t.Helper()
	if opts == nil {
		opts = &paydtest.Options{}
	}
	opts.Stage = payd.StageM5
	env := paydtest.Start(t, b, opts)
	shop := env.NewShop(payd.RegionRU, "")
	return env, shop, env.As(shop, false)
}

// fund makes a paid payment of value and lets its money become
// available: a QR payment of 1000.00 leaves 993.00 (fee 0.7%).
func fund(t *testing.T, env *paydtest.Env, c *paydtest.Client, value, wantAvailable string) {
	t.Helper()
	env.ToMorning(payd.RegionRU)
	paidPayment(t, c, value)
	env.Clock.Advance(25 * time.Hour)
	waitLong(t, "available "+wantAvailable, func() bool { return payoutBalance(t, c)["available"] == wantAvailable })
}

// payoutBalance is the RUB balance with pending_payouts.
func payoutBalance(t *testing.T, c *paydtest.Client) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, it := range c.Get("/v1/balance").Expect(t, 200).JSON(t)["items"].([]any) {
		m := it.(map[string]any)
		if m["currency"] != "RUB" {
			continue
		}
		for _, f := range []string{"available", "pending", "reserve", "deposit", "pending_refunds", "disputed", "payable", "pending_payouts"} {
			out[f] = m[f].(map[string]any)["value"].(string)
		}
	}
	return out
}

func cardPayout(value string, extra map[string]any) map[string]any {
	body := map[string]any{"amount": rub(value), "destination": map[string]any{"type": "card", "card_token": "tok_sandbox_4242"}}
	for k, v := range extra {
		body[k] = v
	}
	return body
}

func waitPayout(t *testing.T, c *paydtest.Client, id, status string) map[string]any {
	t.Helper()
	var last map[string]any
	paydtest.Eventually(t, "payout "+id+" to be "+status, func() bool {
		last = c.Get("/v1/payouts/"+id).Expect(t, 200).JSON(t)
		return last["status"] == status
	})
	return last
}

// stays checks that a payout keeps its status after the clock moved, once
// the jobs due have run (Env.Settle): they found nothing to decide.
func stays(t *testing.T, env *paydtest.Env, c *paydtest.Client, id, status string) {
	t.Helper()
	env.Settle(t)
	if got := c.Get("/v1/payouts/"+id).Expect(t, 200).JSON(t)["status"]; got != status {
		t.Fatalf("payout %s became %v, want it to stay %s", id, got, status)
	}
}

func eventsOf(t *testing.T, c *paydtest.Client, typ string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, it := range c.Get("/v1/events?type="+typ).Expect(t, 200).JSON(t)["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

// TestPayoutValidation refuses every malformed field with its parameter,
// and a refused request changes nothing.
func TestPayoutValidation(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, ru := startM5(t, b, nil)
		kz := env.As(env.NewShop(payd.RegionKZ, ""), false)
		card := func(token any) map[string]any { return map[string]any{"type": "card", "card_token": token} }
		sbp := func(phone, bank any) map[string]any {
			d := map[string]any{"type": "sbp"}
			if phone != nil {
				d["phone"] = phone
			}
			if bank != nil {
				d["bank_id"] = bank
			}
			return d
		}
		acct := func(number, bic any) map[string]any {
			d := map[string]any{"type": "bank_account"}
			if number != nil {
				d["account_number"] = number
			}
			if bic != nil {
				d["bic"] = bic
			}
			return d
		}
		kzt := func(v string) map[string]any { return map[string]any{"value": v, "currency": "KZT"} }
		tests := []struct {
			name   string
			kz     bool
			body   map[string]any
			status int
			code   payd.ErrorCode
			param  string
		}{
			{"ErrAmountMissing", false, map[string]any{"destination": card("tok_sandbox_4242")}, 400, payd.CodeInvalidRequest, "amount"},
			{"ErrAmountValue", false, cardPayout("10", nil), 400, payd.CodeInvalidRequest, "amount.value"},
			{"ErrAmountZero", false, cardPayout("0.00", nil), 400, payd.CodeInvalidRequest, "amount.value"},
			{"ErrAmountCurrency", false, map[string]any{"amount": map[string]any{"value": "10.00", "currency": "GBP"}, "destination": card("tok_sandbox_4242")}, 400, payd.CodeInvalidRequest, "amount.currency"},
			{"ErrDestinationMissing", false, map[string]any{"amount": rub("10.00")}, 400, payd.CodeInvalidRequest, "destination"},
			{"ErrDestinationNotObject", false, map[string]any{"amount": rub("10.00"), "destination": "card"}, 400, payd.CodeInvalidRequest, "destination"},
			{"ErrTypeMissing", false, map[string]any{"amount": rub("10.00"), "destination": map[string]any{"card_token": "tok_sandbox_4242"}}, 400, payd.CodeInvalidRequest, "destination.type"},
			{"ErrTypeEmpty", false, map[string]any{"amount": rub("10.00"), "destination": map[string]any{"type": ""}}, 400, payd.CodeInvalidRequest, "destination.type"},
			{"ErrTypeUnknown", false, map[string]any{"amount": rub("10.00"), "destination": map[string]any{"type": "wallet"}}, 400, payd.CodeInvalidRequest, "destination.type"},
			{"ErrCardTokenMissing", false, map[string]any{"amount": rub("10.00"), "destination": map[string]any{"type": "card"}}, 400, payd.CodeInvalidRequest, "destination.card_token"},
			{"ErrCardTokenShort", false, map[string]any{"amount": rub("10.00"), "destination": card("tok_1")}, 400, payd.CodeInvalidRequest, "destination.card_token"},
			{"ErrCardNumber", false, map[string]any{"amount": rub("10.00"), "destination": card("4242 4242 4242 4242")}, 400, payd.CodeInvalidRequest, "destination.card_token"},
			{"ErrCardTokenType", false, map[string]any{"amount": rub("10.00"), "destination": card(4242)}, 400, payd.CodeInvalidRequest, "destination.card_token"},
			{"ErrCardTokenUnknownToSandbox", false, map[string]any{"amount": rub("10.00"), "destination": card("tok_live_abcdef_4242")}, 400, payd.CodeInvalidRequest, "destination.card_token"},
			{"ErrForeignField", false, map[string]any{"amount": rub("10.00"), "destination": map[string]any{"type": "card", "card_token": "tok_sandbox_4242", "phone": "+79001234567"}}, 400, payd.CodeInvalidRequest, "destination.phone"},
			{"ErrPhoneMissing", false, map[string]any{"amount": rub("10.00"), "destination": sbp(nil, "100000000111")}, 400, payd.CodeInvalidRequest, "destination.phone"},
			{"ErrPhoneNotE164", false, map[string]any{"amount": rub("10.00"), "destination": sbp("89001234567", "100000000111")}, 400, payd.CodeInvalidRequest, "destination.phone"},
			{"ErrPhoneTooLong", false, map[string]any{"amount": rub("10.00"), "destination": sbp("+7900123456789012", "100000000111")}, 400, payd.CodeInvalidRequest, "destination.phone"},
			{"ErrPhoneNotRussian", false, map[string]any{"amount": rub("10.00"), "destination": sbp("+447700900123", "100000000111")}, 400, payd.CodeInvalidRequest, "destination.phone"},
			{"ErrBankIDMissing", false, map[string]any{"amount": rub("10.00"), "destination": sbp("+79001234567", nil)}, 400, payd.CodeInvalidRequest, "destination.bank_id"},
			{"ErrBankIDFormat", false, map[string]any{"amount": rub("10.00"), "destination": sbp("+79001234567", "sber")}, 400, payd.CodeInvalidRequest, "destination.bank_id"},
			{"ErrSBPInKZ", true, map[string]any{"amount": kzt("1000.00"), "destination": sbp("+79001234567", "100000000111")}, 400, payd.CodeInvalidRequest, "destination.type"},
			{"ErrAccountMissing", false, map[string]any{"amount": rub("10.00"), "destination": acct(nil, "044525225")}, 400, payd.CodeInvalidRequest, "destination.account_number"},
			{"ErrBICMissing", false, map[string]any{"amount": rub("10.00"), "destination": acct("40702810938000000001", nil)}, 400, payd.CodeInvalidRequest, "destination.bic"},
			{"ErrBICShort", false, map[string]any{"amount": rub("10.00"), "destination": acct("40702810938000000001", "04452522")}, 400, payd.CodeInvalidRequest, "destination.bic"},
			{"ErrBICNotRussian", false, map[string]any{"amount": rub("10.00"), "destination": acct("40702810938000000001", "SABRRUMM")}, 400, payd.CodeInvalidRequest, "destination.bic"},
			{"ErrAccountShort", false, map[string]any{"amount": rub("10.00"), "destination": acct("4070281093800000000", "044525225")}, 400, payd.CodeInvalidRequest, "destination.account_number"},
			{"ErrAccountLetters", false, map[string]any{"amount": rub("10.00"), "destination": acct("4070281093800000000A", "044525225")}, 400, payd.CodeInvalidRequest, "destination.account_number"},
			{"ErrAccountControlDigit", false, map[string]any{"amount": rub("10.00"), "destination": acct("40702810038000000001", "044525225")}, 400, payd.CodeInvalidRequest, "destination.account_number"},
			{"ErrIBANFormat", true, map[string]any{"amount": kzt("1000.00"), "destination": acct("40702810938000000001", "HSBKKZKX")}, 400, payd.CodeInvalidRequest, "destination.account_number"},
			{"ErrIBANCheckDigits", true, map[string]any{"amount": kzt("1000.00"), "destination": acct("KZ87125KZT5004100100", "HSBKKZKX")}, 400, payd.CodeInvalidRequest, "destination.account_number"},
			{"ErrKZBICRussian", true, map[string]any{"amount": kzt("1000.00"), "destination": acct("KZ86125KZT5004100100", "044525225")}, 400, payd.CodeInvalidRequest, "destination.bic"},
			{"ErrKZBICOtherCountry", true, map[string]any{"amount": kzt("1000.00"), "destination": acct("KZ86125KZT5004100100", "SABRRUMM")}, 400, payd.CodeInvalidRequest, "destination.bic"},
			{"ErrDescriptionLong", false, cardPayout("10.00", map[string]any{"description": strings.Repeat("d", 257)}), 400, payd.CodeInvalidRequest, "description"},
			{"ErrOrderIDEmpty", false, cardPayout("10.00", map[string]any{"order_id": ""}), 400, payd.CodeInvalidRequest, "order_id"},
			{"ErrOrderIDLong", false, cardPayout("10.00", map[string]any{"order_id": strings.Repeat("o", 129)}), 400, payd.CodeInvalidRequest, "order_id"},
			{"ErrMetadataValue", false, cardPayout("10.00", map[string]any{"metadata": map[string]any{"k": strings.Repeat("v", 513)}}), 400, payd.CodeInvalidRequest, "metadata"},
			{"ErrBelowRange", false, cardPayout("0.99", nil), 422, payd.CodeAmountLimit, ""},
			{"ErrAboveRange", false, cardPayout("600000.01", nil), 422, payd.CodeAmountLimit, ""},
			{"ErrKZTBelowRange", true, map[string]any{"amount": kzt("99.99"), "destination": acct("KZ86125KZT5004100100", "HSBKKZKX")}, 422, payd.CodeAmountLimit, ""},
			// Valid requests of an empty balance reach the balance rule.
			{"ErrInsufficientCard", false, cardPayout("10.00", nil), 422, payd.CodeInsufficientMerchantBalance, ""},
			{"ErrInsufficientCardTokenAlias", false, map[string]any{"amount": rub("10.00"), "destination": map[string]any{"type": "card_token", "card_token": "tok_sandbox_4242"}}, 422, payd.CodeInsufficientMerchantBalance, ""},
			{"ErrInsufficientSBP", false, map[string]any{"amount": rub("10.00"), "destination": sbp("+79001234567", "100000000111")}, 422, payd.CodeInsufficientMerchantBalance, ""},
			{"ErrInsufficientAccount", false, map[string]any{"amount": rub("10.00"), "destination": acct("40702810938000000001", "044525225")}, 422, payd.CodeInsufficientMerchantBalance, ""},
			{"ErrInsufficientIBAN", true, map[string]any{"amount": kzt("1000.00"), "destination": acct("KZ86125KZT5004100100", "HSBKKZKX")}, 422, payd.CodeInsufficientMerchantBalance, ""},
			{"ErrInsufficientIBANSwift11", true, map[string]any{"amount": kzt("1000.00"), "destination": acct("KZ86125KZT5004100100", "HSBKKZKXXXX")}, 422, payd.CodeInsufficientMerchantBalance, ""},
		}
		for i, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				c := ru
				if tt.kz {
					c = kz
				}
				c.Post("/v1/payouts", fmt.Sprintf("payout-bad-%03d", i), tt.body).ExpectError(t, tt.status, tt.code, tt.param)
			})
		}
		for _, c := range []*paydtest.Client{ru, kz} {
			if n := len(c.Get("/v1/payouts").Expect(t, 200).JSON(t)["items"].([]any)); n != 0 {
				t.Fatalf("%d payouts stored after refusals", n)
			}
		}
		checkLedger(t, env)
	})
}

// TestPayoutSucceeds follows a payout's money: reserved from available
// with its fee at creation, replayed under its key, processing, then sent
// on the service clock with payout.succeeded carrying order_id.
func TestPayoutSucceeds(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, c := startM5(t, b, nil)
		fund(t, env, c, "1000.00", "993.00")
		body := cardPayout("100.00", map[string]any{"order_id": "payout-42", "description": "Weekly payout",
			"metadata": map[string]any{"batch": "7"}})
		created := c.Post("/v1/payouts", "payout-key-0001", body).Expect(t, 201)
		po := created.JSON(t)
		id := po["id"].(string)
		if po["status"] != "pending" || po["fee_amount"].(map[string]any)["value"] != "0.50" ||
			po["destination_masked"] != "card ****4242" || po["order_id"] != "payout-42" || po["test"] != true {
			t.Fatalf("created payout = %v", po)
		}
		if strings.Contains(string(created.Body), "tok_sandbox") {
			t.Fatalf("the card token is echoed: %s", created.Body)
		}
		// Replay: the same answer with 200; another body: a conflict.
		replay := c.Post("/v1/payouts", "payout-key-0001", body).Expect(t, 200)
		if string(replay.Body) != string(created.Body) {
			t.Fatalf("replay body %s, want %s", replay.Body, created.Body)
		}
		c.Post("/v1/payouts", "payout-key-0001", cardPayout("100.01", nil)).ExpectError(t, 409, payd.CodeIdempotencyConflict, "")

		want := map[string]string{"available": "892.50", "pending": "0.00", "reserve": "0.00", "deposit": "0.00",
			"pending_refunds": "0.00", "disputed": "0.00", "payable": "892.50", "pending_payouts": "100.50"}
		if got := payoutBalance(t, c); !equal(got, want) {
			t.Fatalf("balance with the payout reserved = %v, want %v", got, want)
		}
		checkLedger(t, env)

		waitPayout(t, c, id, "processing")
		stays(t, env, c, id, "processing")
		env.Clock.Advance(sandpayout.Settle)
		done := waitPayout(t, c, id, "succeeded")
		if done["succeeded_at"] == nil || done["cancellation_details"] != nil {
			t.Fatalf("succeeded payout = %v", done)
		}
		want["pending_payouts"] = "0.00"
		if got := payoutBalance(t, c); !equal(got, want) {
			t.Fatalf("balance after the payout = %v, want %v", got, want)
		}
		evs := eventsOf(t, c, "payout.succeeded")
		if len(evs) != 1 {
			t.Fatalf("%d payout.succeeded events, want 1", len(evs))
		}
		data := evs[0]["data"].(map[string]any)
		obj := data["object"].(map[string]any)
		if data["object_type"] != "payout" || obj["id"] != id || obj["order_id"] != "payout-42" || obj["status"] != "succeeded" {
			t.Fatalf("payout.succeeded event data = %v", data)
		}
		checkLedger(t, env)

		// The operator's view of the same money: the fee is the service's.
		var trial map[string]map[string]struct{ Value, Currency string }
		env.AdminDo("GET", "/admin/v1/merchants/"+shop.MerchantID+"/balance?test=true", nil).Expect(t, 200).Decode(t, &trial)
		if got := trial["RUB"]["pending_payouts"]; got.Value != "0.00" || got.Currency != "RUB" {
			t.Fatalf("trial balance pending_payouts = %+v", got)
		}
	})
}

// TestPayoutSandboxOutcomes drives each sandbox outcome with the test
// clock: the amount's last digits and the test card tokens.
func TestPayoutSandboxOutcomes(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := startM5(t, b, nil)
		fund(t, env, c, "1000.00", "993.00")
		type step struct {
			advance time.Duration
			status  string
		}
		tests := []struct {
			name   string
			value  string
			token  string
			steps  []step
			reason string
		}{
			{"Succeed", "10.00", "tok_sandbox_4242", []step{{0, "processing"}, {sandpayout.Settle, "succeeded"}}, ""},
			{"Decline01", "10.01", "tok_sandbox_4242", []step{{0, "processing"}, {sandpayout.Settle, "canceled"}}, payd.ReasonIssuerDeclined},
			{"Timeout04", "10.04", "tok_sandbox_4242", []step{{0, "processing"}, {sandpayout.Settle, "processing"}, {sandpayout.Silent, "succeeded"}}, ""},
			{"Delayed05", "10.05", "tok_sandbox_4242", []step{{0, "processing"}, {sandpayout.Settle, "processing"}, {sandpayout.Delayed, "succeeded"}}, ""},
			{"DeclinedToken", "10.00", "tok_sandbox_0002", []step{{0, "processing"}, {sandpayout.Settle, "canceled"}}, payd.ReasonIssuerDeclined},
			{"ExpiredCardToken", "10.00", "tok_sandbox_0069", []step{{0, "processing"}, {sandpayout.Settle, "canceled"}}, payd.ReasonCardExpired},
		}
		for i, tt := range tests {
			before := payoutBalance(t, c)
			po := c.Post("/v1/payouts", fmt.Sprintf("payout-outcome-%02d", i), map[string]any{"amount": rub(tt.value), "order_id": "o-" + tt.name,
				"destination": map[string]any{"type": "card", "card_token": tt.token}}).Expect(t, 201).JSON(t)
			id := po["id"].(string)
			t.Logf("%s: payout %s", tt.name, id)
			for j, s := range tt.steps {
				env.Clock.Advance(s.advance)
				if j+1 < len(tt.steps) {
					waitPayout(t, c, id, s.status)
					stays(t, env, c, id, s.status)
					continue
				}
				got := waitPayout(t, c, id, s.status)
				after := payoutBalance(t, c)
				switch s.status {
				case "canceled":
					cd := got["cancellation_details"].(map[string]any)
					if cd["party"] != "payment_network" || cd["reason"] != tt.reason || got["fee_amount"].(map[string]any)["value"] != "0.00" {
						t.Errorf("%s: canceled payout = %v", tt.name, got)
					}
					if !equal(after, before) {
						t.Errorf("%s: balance after cancel %v, want it back to %v", tt.name, after, before)
					}
				case "succeeded":
					if after["pending_payouts"] != "0.00" || after["available"] == before["available"] {
						t.Errorf("%s: balance after success %v (before %v)", tt.name, after, before)
					}
				}
			}
			checkLedger(t, env)
		}
		canceled := eventsOf(t, c, "payout.canceled")
		if len(canceled) != 3 {
			t.Fatalf("%d payout.canceled events, want 3", len(canceled))
		}
		for _, ev := range canceled {
			obj := ev["data"].(map[string]any)["object"].(map[string]any)
			if !strings.HasPrefix(obj["order_id"].(string), "o-") || obj["cancellation_details"] == nil {
				t.Errorf("payout.canceled object = %v", obj)
			}
		}
		if n := len(eventsOf(t, c, "payout.succeeded")); n != 3 {
			t.Fatalf("%d payout.succeeded events, want 3", n)
		}
	})
}

// TestPayoutBalanceRules: the balance bounds a payout with its fee; a
// freeze refuses it naming its reason; a shop's payout is its own while
// the balance is the merchant's.
func TestPayoutBalanceRules(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, c := startM5(t, b, nil)
		fund(t, env, c, "1000.00", "993.00")
		// 988.06 + fee 4.94 = 993.00 exactly; one kopek more is refused,
		// naming what is needed and what there is.
		over := c.Post("/v1/payouts", "payout-over-1", cardPayout("988.07", nil))
		over.ExpectError(t, 422, payd.CodeInsufficientMerchantBalance, "")
		if d := over.JSON(t)["description"].(string); !strings.Contains(d, "993.01 RUB") || !strings.Contains(d, "available balance is 993.00 RUB") {
			t.Fatalf("refusal %q does not name the sum needed and the available balance", d)
		}

		env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/freeze", map[string]any{"test": true, "reason": "manual_review"}).Expect(t, 200)
		r := c.Post("/v1/payouts", "payout-frozen-1", cardPayout("10.00", nil))
		r.ExpectError(t, 422, payd.CodeInvalidState, "")
		if d := r.JSON(t)["description"].(string); !strings.Contains(d, "manual_review") {
			t.Fatalf("freeze refusal %q does not name the reason", d)
		}
		env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/unfreeze", map[string]any{"test": true}).Expect(t, 200)

		// A sibling shop of the merchant pays out of the same balance; its
		// payout is not this shop's.
		sibling := env.As(env.NewShop(payd.RegionRU, shop.MerchantID), false)
		mine := c.Post("/v1/payouts", "payout-all-1", cardPayout("988.06", nil)).Expect(t, 201).JSON(t)
		if got := payoutBalance(t, sibling); got["available"] != "0.00" || got["pending_payouts"] != "993.00" {
			t.Fatalf("sibling's balance = %v", got)
		}
		sibling.Post("/v1/payouts", "payout-sib-1", cardPayout("1.00", nil)).ExpectError(t, 422, payd.CodeInsufficientMerchantBalance, "")
		sibling.Get("/v1/payouts/"+mine["id"].(string)).ExpectError(t, 404, payd.CodeNotFound, "")
		if n := len(sibling.Get("/v1/payouts").Expect(t, 200).JSON(t)["items"].([]any)); n != 0 {
			t.Fatalf("sibling lists %d payouts", n)
		}
		// The live contour sees none of the test payouts.
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
		live := env.As(shop, true)
		live.Get("/v1/payouts/"+mine["id"].(string)).ExpectError(t, 404, payd.CodeNotFound, "")
		if n := len(live.Get("/v1/payouts").Expect(t, 200).JSON(t)["items"].([]any)); n != 0 {
			t.Fatalf("live key lists %d test payouts", n)
		}
		checkLedger(t, env)
	})
}

// TestPayoutLiveWithoutProvider: a live payout with no payout provider
// routed answers 503 provider_unavailable and changes nothing.
func TestPayoutLiveWithoutProvider(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, _ := startM5(t, b, nil)
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
		live := env.As(shop, true)
		for i, dest := range []map[string]any{
			{"type": "card", "card_token": "tok_live_abcdef_4242"},
			{"type": "sbp", "phone": "+79001234567", "bank_id": "100000000111"},
			{"type": "bank_account", "account_number": "40702810938000000001", "bic": "044525225"},
		} {
			r := live.Post("/v1/payouts", fmt.Sprintf("live-payout-%d", i), map[string]any{"amount": rub("10.00"), "destination": dest})
			r.ExpectError(t, 503, payd.CodeProviderUnavailable, "")
			if r.Header.Get("Retry-After") == "" {
				t.Errorf("503 without Retry-After")
			}
		}
		// Bad input is still 400 first.
		live.Post("/v1/payouts", "live-payout-bad", map[string]any{"amount": rub("10.00"),
			"destination": map[string]any{"type": "sbp", "phone": "123"}}).ExpectError(t, 400, payd.CodeInvalidRequest, "destination.phone")
		if n := len(live.Get("/v1/payouts").Expect(t, 200).JSON(t)["items"].([]any)); n != 0 {
			t.Fatalf("%d live payouts stored", n)
		}
	})
}

// TestPayoutConcurrentNeverOverdraws fires many payouts at once at a
// balance that covers only some: exactly as many as fit succeed, and the
// money adds up.
func TestPayoutConcurrentNeverOverdraws(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, c := startM5(t, b, nil)
		fund(t, env, c, "1000.00", "993.00")
		sibling := env.As(env.NewShop(payd.RegionRU, shop.MerchantID), false)
		const n = 24
		var wg sync.WaitGroup
		statuses := make([]int, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cl := c
				if i%2 == 1 {
					cl = sibling // the balance is the merchant's: both shops draw on it
				}
				statuses[i] = cl.Post("/v1/payouts", fmt.Sprintf("concurrent-payout-%02d", i), cardPayout("100.00", nil)).Status
			}()
		}
		wg.Wait()
		created := 0
		for i, st := range statuses {
			switch st {
			case 201:
				created++
			case 422:
			default:
				t.Errorf("payout %d answered %d", i, st)
			}
		}
		// 9 × 100.50 = 904.50 fits in 993.00; a tenth would not.
		if created != 9 {
			t.Fatalf("%d payouts created, want 9", created)
		}
		want := map[string]string{"available": "88.50", "pending": "0.00", "reserve": "0.00", "deposit": "0.00",
			"pending_refunds": "0.00", "disputed": "0.00", "payable": "88.50", "pending_payouts": "904.50"}
		if got := payoutBalance(t, c); !equal(got, want) {
			t.Fatalf("balance after concurrent payouts = %v, want %v", got, want)
		}
		checkLedger(t, env)
	})
}

// TestPayoutDestinationsMasked creates a payout of each kind and checks
// that only the masked destination comes back, in the answer, the list
// and the event.
func TestPayoutDestinationsMasked(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := startM5(t, b, nil)
		fund(t, env, c, "1000.00", "993.00")
		tests := []struct {
			dest   map[string]any
			masked string
			secret string
		}{
			{map[string]any{"type": "card", "card_token": "tok_sandbox_4242"}, "card ****4242", "tok_sandbox"},
			{map[string]any{"type": "card_token", "card_token": "tok_sandbox_4242"}, "card ****4242", "tok_sandbox"},
			{map[string]any{"type": "sbp", "phone": "+79001234567", "bank_id": "100000000111"}, "+7 *** ***-**-67", "9001234567"},
			{map[string]any{"type": "bank_account", "account_number": "40702810938000000001", "bic": "044525225"}, "account ****0001", "407028109380"},
		}
		for i, tt := range tests {
			r := c.Post("/v1/payouts", fmt.Sprintf("masked-payout-%d", i), map[string]any{"amount": rub("10.00"), "destination": tt.dest}).Expect(t, 201)
			if got := r.JSON(t)["destination_masked"]; got != tt.masked {
				t.Errorf("%v: destination_masked %q, want %q", tt.dest["type"], got, tt.masked)
			}
			if strings.Contains(string(r.Body), tt.secret) || strings.Contains(string(r.Body), "bank_id") {
				t.Errorf("%v: the destination leaks: %s", tt.dest["type"], r.Body)
			}
		}
		env.Clock.Advance(sandpayout.Settle)
		paydtest.Eventually(t, "payouts to succeed", func() bool { return len(eventsOf(t, c, "payout.succeeded")) == len(tests) })
		for _, path := range []string{"/v1/payouts", "/v1/events?type=payout.succeeded"} {
			body := string(c.Get(path).Expect(t, 200).Body)
			for _, tt := range tests {
				if strings.Contains(body, tt.secret) {
					t.Errorf("%s leaks %q", path, tt.secret)
				}
			}
		}

		kzEnvShop := env.NewShop(payd.RegionKZ, "")
		kz := env.As(kzEnvShop, false)
		// A kz shop's merchant has no KZT: the destination passes every
		// field rule and meets the balance rule.
		kz.Post("/v1/payouts", "masked-kz-1", map[string]any{"amount": map[string]any{"value": "1000.00", "currency": "KZT"},
			"destination": map[string]any{"type": "bank_account", "account_number": "KZ86125KZT5004100100", "bic": "HSBKKZKX"}}).
			ExpectError(t, 422, payd.CodeInsufficientMerchantBalance, "")
	})
}

// TestPayoutList pages newest first and filters by status, order_id and
// creation time; a bad filter is a 400 naming it.
func TestPayoutList(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := startM5(t, b, nil)
		fund(t, env, c, "1000.00", "993.00")
		var ids []string
		var mid string
		for i := range 5 {
			value := "10.00"
			if i%2 == 1 {
				value = "10.01" // declined by the sandbox
			}
			if i == 2 {
				mid = env.Clock.Now().Format(time.RFC3339Nano)
			}
			po := c.Post("/v1/payouts", fmt.Sprintf("list-payout-%d", i), cardPayout(value, map[string]any{"order_id": fmt.Sprintf("batch-%d", i%2)})).
				Expect(t, 201).JSON(t)
			ids = append(ids, po["id"].(string))
			env.Clock.Advance(time.Second)
		}
		env.Clock.Advance(sandpayout.Settle)
		for i, id := range ids {
			want := "succeeded"
			if i%2 == 1 {
				want = "canceled"
			}
			waitPayout(t, c, id, want)
		}
		page := func(q string) ([]string, any) {
			got := c.Get("/v1/payouts"+q).Expect(t, 200).JSON(t)
			var out []string
			for _, it := range got["items"].([]any) {
				out = append(out, it.(map[string]any)["id"].(string))
			}
			return out, got["next_cursor"]
		}
		rev := func(list ...string) []string {
			out := append([]string(nil), list...)
			for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
				out[i], out[j] = out[j], out[i]
			}
			return out
		}
		var all []string
		q := "?limit=2"
		for {
			got, next := page(q)
			all = append(all, got...)
			if next == nil {
				break
			}
			q = "?limit=2&cursor=" + next.(string)
		}
		wantDiffIDs(t, "all pages", rev(ids...), all)
		got, _ := page("?status=canceled")
		wantDiffIDs(t, "status=canceled", rev(ids[1], ids[3]), got)
		got, _ = page("?order_id=batch-0")
		wantDiffIDs(t, "order_id=batch-0", rev(ids[0], ids[2], ids[4]), got)
		got, _ = page("?created_at_gte=" + mid)
		wantDiffIDs(t, "created_at_gte", rev(ids[2:]...), got)
		got, _ = page("?created_at_lt=" + mid)
		wantDiffIDs(t, "created_at_lt", rev(ids[:2]...), got)
		// A cursor belongs to its filters (Conventions: filters are
		// repeated with each cursor).
		_, next := page("?status=succeeded&limit=1")
		c.Get("/v1/payouts?limit=1&cursor="+next.(string)).ExpectError(t, 400, payd.CodeInvalidRequest, "cursor")
		if got, _ := page("?status=succeeded&limit=1&cursor=" + next.(string)); len(got) != 1 {
			t.Errorf("the cursor with its filters gave %v", got)
		}
		c.Get("/v1/payouts?status=paid").ExpectError(t, 400, payd.CodeInvalidRequest, "status")
		c.Get("/v1/payouts?created_at_gte=yesterday").ExpectError(t, 400, payd.CodeInvalidRequest, "created_at_gte")
		c.Get("/v1/payouts?limit=101").ExpectError(t, 400, payd.CodeInvalidRequest, "limit")
	})
}

func wantDiffIDs(t *testing.T, what string, want, got []string) {
	t.Helper()
	if strings.Join(want, ",") != strings.Join(got, ",") {
		t.Errorf("%s: ids %v, want %v", what, got, want)
	}
}

// TestPayoutFeeTariff charges the shop's payout tariff (percentage, fixed
// part, bounds) instead of the default, and refuses a bad tariff.
func TestPayoutFeeTariff(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, c := startM5(t, b, nil)
		fund(t, env, c, "2000.00", "1986.00")
		for _, bad := range []map[string]any{
			{"payout_fees": []any{map[string]any{"currency": "GBP", "percent_bps": 10}}},
			{"payout_fees": []any{map[string]any{"currency": "RUB", "percent_bps": 10001}}},
			{"payout_fees": []any{map[string]any{"currency": "RUB", "percent_bps": 10, "min": 500, "max": 100}}},
			{"payout_ranges": map[string]any{"RUB": map[string]any{"min": 0, "max": 100}}},
		} {
			env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, bad).Expect(t, 400)
		}
		env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{
			"payout_fees":   []any{map[string]any{"currency": "RUB", "percent_bps": 100, "fixed": 500, "max": 2000}},
			"payout_ranges": map[string]any{"RUB": map[string]any{"min": 5000, "max": 150000}},
		}).Expect(t, 200)
		for _, tt := range []struct{ value, fee string }{{"100.00", "6.00"}, {"1500.00", "20.00"}} {
			po := c.Post("/v1/payouts", key(), cardPayout(tt.value, nil)).Expect(t, 201).JSON(t)
			if got := value(po, "fee_amount"); got != tt.fee {
				t.Errorf("payout of %s: fee %s, want %s", tt.value, got, tt.fee)
			}
		}
		c.Post("/v1/payouts", key(), cardPayout("49.99", nil)).ExpectError(t, 422, payd.CodeAmountLimit, "")
		c.Post("/v1/payouts", key(), cardPayout("1500.01", nil)).ExpectError(t, 422, payd.CodeAmountLimit, "")
		if got := payoutBalance(t, c); got["available"] != "360.00" || got["pending_payouts"] != "1626.00" {
			t.Fatalf("balance = %v", got)
		}
		checkLedger(t, env)
	})
}
