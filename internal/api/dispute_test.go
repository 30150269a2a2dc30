package api_test

import (
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// startM2 runs a service at stage M2 with a shop whose test key is used.
func startM2(t *testing.T, b paydtest.Backend) (*paydtest.Env, *paydtest.Shop, *paydtest.Client) {
	t.Helper()
	env := paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM2})
	shop := env.NewShop(payd.RegionRU, "")
	return env, shop, env.As(shop, false)
}

func rub(v string) map[string]any { return map[string]any{"value": v, "currency": "RUB"} }

// openDispute opens a sandbox dispute on a payment and returns it.
func openDispute(t *testing.T, c *paydtest.Client, paymentID string, body map[string]any) map[string]any {
	t.Helper()
	return c.Post("/v1/test/payments/"+paymentID+"/disputes", key(), body).Expect(t, 201).JSON(t)
}

// waitDispute waits until the dispute has status and returns it.
func waitDispute(t *testing.T, c *paydtest.Client, id, status string) map[string]any {
	t.Helper()
	var last map[string]any
	paydtest.Eventually(t, "dispute "+id+" to be "+status, func() bool {
		last = c.Get("/v1/disputes/"+id).Expect(t, 200).JSON(t)
		return last["status"] == status
	})
	return last
}

func simulateDispute(t *testing.T, c *paydtest.Client, id, outcome string) {
	t.Helper()
	c.Post("/v1/test/disputes/"+id+"/simulate", key(), map[string]any{"outcome": outcome}).Expect(t, 202)
}

func value(m map[string]any, field string) string {
	a, _ := m[field].(map[string]any)
	v, _ := a["value"].(string)
	return v
}

// eventTypes lists the types of the events about an object, oldest first.
func eventTypes(t *testing.T, c *paydtest.Client, objectID string) []string {
	t.Helper()
	items := c.Get("/v1/events?object_id="+objectID).Expect(t, 200).JSON(t)["items"].([]any)
	var out []string
	for i := len(items) - 1; i >= 0; i-- {
		ev := items[i].(map[string]any)
		out = append(out, ev["type"].(string))
		data := ev["data"].(map[string]any)
		if data["object_type"] != "dispute" || data["object"].(map[string]any)["id"] != objectID {
			t.Fatalf("event %v does not carry the dispute", ev)
		}
	}
	return out
}

func equalStrings(a, b []string) bool {
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

// TestDisputeOutcomes walks a sandbox dispute to each final status with
// the test clock, and checks its money, its payment, the balance, its
// events and the ledger at every step.
func TestDisputeOutcomes(t *testing.T) {
	t.Parallel()
	for _, outcome := range []string{"won", "lost", "expired"} {
		t.Run(outcome, func(t *testing.T) {
			t.Parallel()
			paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
				env, _, c := startM2(t, b)
				pay := paidPayment(t, c, "1000.00") // SBP: fee 7.00, 993.00 pending
				d := openDispute(t, c, pay, map[string]any{"amount": rub("300.00"), "reason_code": "13.1",
					"evidence_deadline_seconds": 3 * 86400, "bank_fine_amount": rub("50.00"), "service_fee_amount": rub("20.00")})
				id := d["id"].(string)
				if d["status"] != "opened" || d["kind"] != "chargeback" || value(d, "amount") != "300.00" || d["payment_id"] != pay ||
					d["test"] != true || d["reason_code"] != "13.1" || value(d, "bank_fine_amount") != "50.00" ||
					value(d, "service_fee_amount") != "20.00" || d["closed_at"] != nil || d["order_id"] == nil {
					t.Fatalf("opened dispute = %v", d)
				}
				deadline, _ := time.Parse(time.RFC3339Nano, d["evidence_deadline_at"].(string))
				if want := env.Clock.Now().Add(72 * time.Hour); deadline.Sub(want).Abs() > time.Second {
					t.Fatalf("evidence_deadline_at %v, want %v", deadline, want)
				}
				p := c.Get("/v1/payments/"+pay).Expect(t, 200).JSON(t)
				if value(p, "disputed_amount") != "300.00" || value(p, "refundable_amount") != "700.00" || value(p, "charged_back_amount") != "0.00" {
					t.Fatalf("payment under dispute = %v", p)
				}
				want := map[string]string{"available": "0.00", "pending": "693.00", "reserve": "0.00", "deposit": "0.00",
					"pending_refunds": "0.00", "disputed": "300.00", "payable": "0.00"}
				if got := balanceOf(t, c); !equal(got, want) {
					t.Fatalf("balance under dispute = %v, want %v", got, want)
				}
				checkLedger(t, env)
				// A refund cannot reach the held part (Payment, rule 4).
				refund(c, pay, "700.01", nil).ExpectError(t, 422, payd.CodeRefundExceedsCaptured, "")

				wantEvents := []string{"dispute.opened"}
				switch outcome {
				case "won":
					simulateDispute(t, c, id, "evidence_required")
					waitDispute(t, c, id, "evidence_required")
					simulateDispute(t, c, id, "won")
					d = waitDispute(t, c, id, "won")
					wantEvents = append(wantEvents, "dispute.evidence_required", "dispute.closed")
					want = map[string]string{"available": "0.00", "pending": "993.00", "reserve": "0.00", "deposit": "0.00",
						"pending_refunds": "0.00", "disputed": "0.00", "payable": "0.00"}
				case "lost":
					simulateDispute(t, c, id, "lost")
					d = waitDispute(t, c, id, "lost")
					wantEvents = append(wantEvents, "dispute.closed")
				case "expired":
					// Short of the deadline nothing happens once the sweep
					// the jump starts has run; past it the sweep closes the
					// dispute. The margin outlasts the settling on a busy
					// machine, as the clock runs on meanwhile.
					env.Clock.Advance(72*time.Hour - 10*time.Second)
					env.Settle(t)
					if got := c.Get("/v1/disputes/" + id).JSON(t)["status"]; got != "opened" {
						t.Fatalf("status before the deadline = %v", got)
					}
					env.Clock.Advance(11 * time.Second)
					d = waitDispute(t, c, id, "expired")
					wantEvents = append(wantEvents, "dispute.closed")
				}
				if outcome != "won" {
					// The hold goes to the bank; the fee returns in proportion
					// (7.00 × 300/1000 = 2.10); fine and fee come from the
					// payment's unreleased part.
					want = map[string]string{"available": "2.10", "pending": "623.00", "reserve": "0.00", "deposit": "0.00",
						"pending_refunds": "0.00", "disputed": "0.00", "payable": "2.10"}
					if outcome == "expired" {
						// Three days released the payment's pending part, so
						// the fine and the fee came from available.
						want["available"], want["pending"], want["payable"] = "625.10", "0.00", "625.10"
					}
				}
				if d["closed_at"] == nil {
					t.Fatalf("closed dispute without closed_at: %v", d)
				}
				if got := balanceOf(t, c); !equal(got, want) {
					t.Fatalf("balance after %s = %v, want %v", outcome, got, want)
				}
				p = c.Get("/v1/payments/"+pay).Expect(t, 200).JSON(t)
				chargedBack, refundable, feeBack := "0.00", "1000.00", "0.00"
				if outcome != "won" {
					chargedBack, refundable, feeBack = "300.00", "700.00", "2.10"
				}
				if value(p, "disputed_amount") != "0.00" || value(p, "charged_back_amount") != chargedBack ||
					value(p, "refundable_amount") != refundable || value(p, "fee_refunded_amount") != feeBack {
					t.Fatalf("payment after %s = %v", outcome, p)
				}
				if got := eventTypes(t, c, id); !equalStrings(got, wantEvents) {
					t.Fatalf("events %v, want %v", got, wantEvents)
				}
				checkLedger(t, env)

				// Final states never change.
				for _, o := range []string{"won", "lost", "evidence_required", "expire"} {
					c.Post("/v1/test/disputes/"+id+"/simulate", key(), map[string]any{"outcome": o}).ExpectError(t, 422, payd.CodeInvalidState, "")
				}
				env.AdminDo("POST", "/admin/v1/disputes/"+id+"/win", nil).ExpectError(t, 422, payd.CodeInvalidState, "")
			})
		})
	}
}
