package api_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestMoneyRandomized runs a random mix of money operations — payments of
// every outcome, captures and partial captures, refunds that succeed and
// fail, disputes won, lost and expired, payouts of every sandbox outcome
// from two shops of the merchant, time jumps across holds, evidence
// deadlines, payout decisions and settlement days, registers, freezes —
// and checks the money
// invariants after every step. The seed is printed;
// PAYD_RANDOM_SEED replays a run and PAYD_RANDOM_STEPS changes its length.
func TestMoneyRandomized(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("PAYD_RANDOM_SEED"), 10, 64); err == nil {
		seed = s
	}
	steps := 1000
	if n, err := strconv.Atoi(os.Getenv("PAYD_RANDOM_STEPS")); err == nil && n > 0 {
		steps = n
	}
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		t.Logf("seed %d, %d steps (replay with PAYD_RANDOM_SEED=%d)", seed, steps, seed)
		rnd := rand.New(rand.NewPCG(seed, 0x9e3779b9))
		env := paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM5})
		shop := env.NewShop(payd.RegionRU, "")
		sibling := env.As(env.NewShop(payd.RegionRU, shop.MerchantID), false)
		env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{
			"reserve": []any{map[string]any{"currency": "RUB", "percent_bps": 500, "days": 3}},
		}).Expect(t, 200)
		c := env.As(shop, false)
		var payments, succeeded, disputes, payouts []string
		submitted := map[string]bool{}
		for step := 0; step < steps; step++ {
			op := rnd.IntN(135)
			switch {
			case op >= 128: // the sandbox payout provider's clock moves
				env.Clock.Advance([]time.Duration{10 * time.Second, time.Minute, time.Hour}[rnd.IntN(3)])
			case op >= 120: // a payout from either shop, sometimes too large or frozen
				bal := balanceOf(t, c)
				v, _ := strconv.ParseFloat(bal["available"], 64)
				avail := int64(v*100 + 0.5)
				if avail < 200 {
					avail = 200
				}
				cents := 100 + rnd.Int64N(avail*11/10)
				cents = cents/100*100 + []int64{0, 1, 4, 5, 37}[rnd.IntN(5)] // sandbox digits
				token := []string{"tok_sandbox_4242", "tok_sandbox_4242", "tok_sandbox_0002", "tok_sandbox_0069"}[rnd.IntN(4)]
				cl := c
				if rnd.IntN(2) == 0 {
					cl = sibling
				}
				r := cl.Post("/v1/payouts", key(), map[string]any{"amount": map[string]any{"value": fmt.Sprintf("%d.%02d", cents/100, cents%100), "currency": "RUB"},
					"destination": map[string]any{"type": "card", "card_token": token}})
				switch r.Status {
				case 201:
					payouts = append(payouts, r.JSON(t)["id"].(string))
				case 422: // above available, or frozen
				default:
					t.Fatalf("step %d: payout answered %d %s", step, r.Status, r.Body)
				}
			case op < 30: // a payment with a random outcome
				cents := 100 + rnd.IntN(500000)
				value := fmt.Sprintf("%d.%02d", cents/100, cents%100)
				p := c.Post("/v1/payments", key(), newPayment(value, map[string]any{"confirmation": map[string]any{"type": "qr"}, "capture": rnd.IntN(3) > 0}))
				if p.Status != 201 {
					continue // amount limits and the like: nothing to check
				}
				id := p.JSON(t)["id"].(string)
				payments = append(payments, id)
				outcome := []string{"succeed", "succeed", "authorize", "decline"}[rnd.IntN(4)]
				c.Post("/v1/test/payments/"+id+"/simulate", key(), map[string]any{"outcome": outcome})
			case op < 45 && len(payments) > 0: // capture, fully or partly
				id := payments[rnd.IntN(len(payments))]
				got := c.Get("/v1/payments/" + id).JSON(t)
				if got["status"] == "waiting_for_capture" {
					body := map[string]any{}
					if rnd.IntN(2) == 0 {
						amount := got["amount"].(map[string]any)
						v, _ := strconv.ParseFloat(amount["value"].(string), 64)
						part := int64(v*100) * int64(1+rnd.IntN(99)) / 100
						if part > 0 {
							body["amount"] = map[string]any{"value": fmt.Sprintf("%d.%02d", part/100, part%100), "currency": "RUB"}
						}
					}
					c.Post("/v1/payments/"+id+"/capture", key(), body)
				} else if got["status"] == "succeeded" {
					succeeded = append(succeeded, id)
				}
			case op < 70 && len(succeeded) > 0: // a refund, sometimes failing
				id := succeeded[rnd.IntN(len(succeeded))]
				got := c.Get("/v1/payments/" + id).JSON(t)
				v, _ := strconv.ParseFloat(got["refundable_amount"].(map[string]any)["value"].(string), 64)
				left := int64(v*100 + 0.5)
				if left <= 0 {
					continue
				}
				part := 1 + rnd.Int64N(left+left/10) // sometimes too much
				extra := map[string]any{}
				if rnd.IntN(4) == 0 {
					extra["metadata"] = map[string]any{"sandbox_outcome": "decline"}
				}
				r := refund(c, id, fmt.Sprintf("%d.%02d", part/100, part%100), extra)
				if r.Status != 201 && r.Status != 422 {
					t.Fatalf("step %d: refund answered %d %s", step, r.Status, r.Body)
				}
			case op < 85: // time passes
				env.Clock.Advance(time.Duration(1+rnd.IntN(36)) * time.Hour)
			case op < 92: // a register of an earlier day
				day := env.Clock.Now().Add(-time.Duration(24+rnd.IntN(72)) * time.Hour).In(payd.RegionRU.Location()).Format(time.DateOnly)
				r := env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/settlements", map[string]any{"test": true, "currency": "RUB", "date": day})
				if r.Status == 201 && rnd.IntN(2) == 0 {
					var st struct{ ID string }
					r.Decode(t, &st)
					for _, a := range []string{"approve", "send", "pay"} {
						env.AdminDo("POST", "/admin/v1/settlements/"+st.ID+"/"+a, nil)
					}
				}
			case op < 96: // an operator holds or releases a deposit
				action := []string{"hold", "release"}[rnd.IntN(2)]
				env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/deposit/"+action, map[string]any{"test": true,
					"amount": map[string]any{"value": fmt.Sprintf("%d.00", 1+rnd.IntN(50)), "currency": "RUB"}})
			case op < 100: // an operator freezes or unfreezes payouts
				action := []string{"freeze", "unfreeze"}[rnd.IntN(2)]
				env.AdminDo("POST", "/admin/v1/merchants/"+shop.MerchantID+"/"+action, map[string]any{"test": true, "reason": "manual_review"})
			case op < 106 && len(succeeded) > 0: // the bank opens a dispute
				id := succeeded[rnd.IntN(len(succeeded))]
				got := c.Get("/v1/payments/" + id).JSON(t)
				v, _ := strconv.ParseFloat(got["refundable_amount"].(map[string]any)["value"].(string), 64)
				left := int64(v*100 + 0.5)
				body := map[string]any{"kind": []string{"chargeback", "retrieval", "complaint"}[rnd.IntN(3)],
					"evidence_deadline_seconds": 3600 * (1 + rnd.IntN(24*14)),
					"bank_fine_amount":          map[string]any{"value": fmt.Sprintf("%d.00", rnd.IntN(30)), "currency": "RUB"},
					"service_fee_amount":        map[string]any{"value": fmt.Sprintf("%d.%02d", rnd.IntN(10), rnd.IntN(100)), "currency": "RUB"}}
				if left > 0 && rnd.IntN(3) > 0 {
					part := 1 + rnd.Int64N(left+left/10) // sometimes too much
					body["amount"] = map[string]any{"value": fmt.Sprintf("%d.%02d", part/100, part%100), "currency": "RUB"}
				}
				r := c.Post("/v1/test/payments/"+id+"/disputes", key(), body)
				switch r.Status {
				case 201:
					disputes = append(disputes, r.JSON(t)["id"].(string))
				case 422:
				default:
					t.Fatalf("step %d: dispute answered %d %s", step, r.Status, r.Body)
				}
			case len(disputes) > 0: // the bank's next word on a dispute, or the merchant's evidence sent
				id := disputes[rnd.IntN(len(disputes))]
				outcome := []string{"evidence_required", "won", "lost", "lost", "expire", "submit"}[rnd.IntN(6)]
				if outcome == "submit" {
					if submitEvidence(t, c, env, id) {
						submitted[id] = true
					}
					break
				}
				r := c.Post("/v1/test/disputes/"+id+"/simulate", key(), map[string]any{"outcome": outcome})
				if r.Status != 202 && r.Status != 422 {
					t.Fatalf("step %d: dispute simulate answered %d %s", step, r.Status, r.Body)
				}
			}
			checkLedger(t, env)
			if bal := balanceOf(t, c); len(bal) > 0 && bal["payable"] != "0.00" && bal["payable"][0] == '-' {
				t.Fatalf("step %d: payable negative: %v", step, bal)
			}
		}
		// Let every job due finish, then check once more.
		env.Settle(t)
		checkLedger(t, env)
		byStatus := map[string]int{}
		for _, id := range disputes {
			byStatus[c.Get("/v1/disputes/"+id).Expect(t, 200).JSON(t)["status"].(string)]++
		}
		t.Logf("disputes by status: %v, %d submitted on the way", byStatus, len(submitted))
		// Every ending among the mixed state of the run: an outcome the
		// random walk missed is reached on purpose, on a payment of the
		// run, and the invariants checked after it.
		for _, end := range []string{"won", "lost", "expired", "submitted"} {
			if (end == "submitted" && len(submitted) > 0) || (end != "submitted" && byStatus[end] > 0) {
				continue
			}
			id := ""
			for _, pay := range succeeded {
				r := c.Post("/v1/test/payments/"+pay+"/disputes", key(), map[string]any{"amount": map[string]any{"value": "1.00", "currency": "RUB"}})
				if r.Status == 201 {
					id = r.JSON(t)["id"].(string)
					break
				}
			}
			if id == "" {
				t.Logf("no payment of the run had 1.00 left to dispute for %s", end)
				continue
			}
			outcome := map[string]string{"won": "won", "lost": "lost", "expired": "expire", "submitted": "won"}[end]
			if end == "submitted" && !submitEvidence(t, c, env, id) {
				t.Fatalf("a fresh dispute could not be submitted")
			}
			simulateDispute(t, c, id, outcome)
			want := end
			if end == "submitted" {
				want = "won" // decided after the submission
			}
			waitDispute(t, c, id, want)
			checkLedger(t, env)
		}
		payoutStatus := map[string]int{}
		for _, id := range payouts {
			r := c.Get("/v1/payouts/" + id)
			if r.Status == 404 { // the sibling shop's
				r = sibling.Get("/v1/payouts/" + id)
			}
			payoutStatus[r.Expect(t, 200).JSON(t)["status"].(string)]++
		}
		t.Logf("payouts by status: %v", payoutStatus)
	})
}

// submitEvidence attaches a small file to a dispute and has the operator
// submit it; it reports whether the dispute became submitted (a dispute
// past evidence, or whose bank decided meanwhile, refuses on the way).
func submitEvidence(t *testing.T, c *paydtest.Client, env *paydtest.Env, id string) bool {
	t.Helper()
	up := c.Post("/v1/disputes/"+id+"/evidence/uploads", key(), map[string]any{"file_name": "proof.png", "content_type": "image/png", "size_bytes": 64})
	if up.Status != 201 {
		return false
	}
	file := up.JSON(t)
	if put(t, file["upload_url"].(string), fileOf(pngHead, 64), "image/png", false).Status != 200 {
		return false
	}
	if c.Post("/v1/disputes/"+id+"/evidence", key(), map[string]any{"file_ids": []any{file["file_id"]}}).Status != 200 {
		return false
	}
	r := env.AdminDo("POST", "/admin/v1/disputes/"+id+"/submit", map[string]any{})
	if r.Status != 200 && r.Status != 422 {
		t.Fatalf("submit answered %d %s", r.Status, r.Body)
	}
	return r.Status == 200
}
