package api_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestOperatorDisputes drives disputes through the operator's routes, as
// an operator does with what a bank reported outside its notifications:
// opening with every field and its refusals, each action and its refusals,
// evidence attached by the merchant (its replay included) and sent to the
// bank by submit, and the closing actions with their money and events.
func TestOperatorDisputes(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := startM2(t, b)
		pay := paidPayment(t, c, "1000.00")
		opens := "/admin/v1/payments/" + pay + "/disputes"

		// Refusals change nothing.
		past := env.Clock.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
		env.AdminDo("POST", "/admin/v1/payments/pay_00000000000000000000000000/disputes", map[string]any{}).
			ExpectError(t, 404, payd.CodeNotFound, "")
		env.AdminDo("POST", opens, map[string]any{"evidence_deadline_at": past}).ExpectError(t, 400, payd.CodeInvalidRequest, "evidence_deadline_at")
		env.AdminDo("POST", opens, map[string]any{"kind": "fraud"}).ExpectError(t, 400, payd.CodeInvalidRequest, "kind")
		env.AdminDo("POST", opens, map[string]any{"amount": rub("1000.01")}).ExpectError(t, 422, payd.CodeRefundExceedsCaptured, "amount.value")
		env.AdminDo("POST", opens, map[string]any{"amount": map[string]any{"value": "10.00", "currency": "KZT"}}).
			ExpectError(t, 400, payd.CodeInvalidRequest, "amount.currency")
		if got := value(c.Get("/v1/payments/"+pay).JSON(t), "disputed_amount"); got != "0.00" {
			t.Fatalf("refused openings held %s", got)
		}

		deadline := env.Clock.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
		d := env.AdminDo("POST", opens, map[string]any{"kind": "retrieval", "amount": rub("250.00"), "reason_code": "RC-1",
			"evidence_deadline_at": deadline.Format(time.RFC3339), "bank_fine_amount": rub("40.00"),
			"service_fee_amount": rub("10.00"), "provider_dispute_id": "BANK-42"}).Expect(t, 201).JSON(t)
		id := d["id"].(string)
		got := c.Get("/v1/disputes/"+id).Expect(t, 200).JSON(t)
		if got["status"] != "opened" || got["kind"] != "retrieval" || value(got, "amount") != "250.00" ||
			value(got, "bank_fine_amount") != "40.00" || value(got, "service_fee_amount") != "10.00" ||
			got["reason_code"] != "RC-1" || got["evidence_deadline_at"] != deadline.Format(time.RFC3339) {
			t.Fatalf("the merchant sees %v", got)
		}
		// The bank's own name for the dispute is unique per bank.
		env.AdminDo("POST", opens, map[string]any{"amount": rub("1.00"), "provider_dispute_id": "BANK-42"}).
			ExpectError(t, 422, payd.CodeInvalidState, "")

		act := func(action string) *paydtest.Response {
			return env.AdminDo("POST", "/admin/v1/disputes/"+id+"/"+action, map[string]any{})
		}
		act("reopen").ExpectError(t, 400, payd.CodeInvalidRequest, "action")
		env.AdminDo("POST", "/admin/v1/disputes/dsp_00000000000000000000000000/win", map[string]any{}).ExpectError(t, 404, payd.CodeNotFound, "")
		act("submit").ExpectError(t, 422, payd.CodeInvalidState, "") // nothing attached to send
		if got := act("request_evidence").Expect(t, 200).JSON(t); got["status"] != "evidence_required" {
			t.Fatalf("request_evidence answered %v", got)
		}

		// The merchant attaches a file; a replay of step 2 answers the
		// first answer and attaches nothing twice.
		pdf := fileOf(pdfHead, 3000)
		fileID, link := reserve(t, c, id, "receipt.pdf", "application/pdf", len(pdf))
		put(t, link, pdf, "application/pdf", false).Expect(t, 200)
		k := key()
		body := map[string]any{"file_ids": []string{fileID}, "comment": "delivered on time"}
		first := c.Post("/v1/disputes/"+id+"/evidence", k, body).Expect(t, 200).JSON(t)
		again := c.Post("/v1/disputes/"+id+"/evidence", k, body).Expect(t, 200).JSON(t)
		if ev := first["evidence"].([]any); len(ev) != 1 || len(again["evidence"].([]any)) != 1 || again["status"] != "evidence_required" {
			t.Fatalf("attach answered %v, its replay %v", first, again)
		}
		c.Post("/v1/disputes/"+id+"/evidence", k, map[string]any{"file_ids": []string{fileID}}).
			ExpectError(t, 409, payd.CodeIdempotencyConflict, "")

		// Submit sends the evidence to the bank that raised the dispute,
		// by a job: the operator sees the bank's reference when it took it.
		if got := act("submit").Expect(t, 200).JSON(t); got["status"] != "submitted" || got["submitted_at"] == nil {
			t.Fatalf("submit answered %v", got)
		}
		paydtest.Eventually(t, "the sandbox bank to take the evidence", func() bool {
			op := env.AdminDo("GET", "/admin/v1/disputes/"+id, nil).Expect(t, 200).JSON(t)
			ref, _ := op["evidence_reference"].(string)
			return op["evidence_sent_at"] != nil && len(ref) > 4 && ref[:4] == "rpm_"
		})
		// Rule 4's other side: nothing more is taken once submitted.
		c.Post("/v1/disputes/"+id+"/evidence/uploads", key(), map[string]any{"file_name": "b.png", "content_type": "image/png", "size_bytes": 10}).
			ExpectError(t, 422, payd.CodeInvalidState, "")

		// The operator downloads the file the bank got.
		if status, raw, _ := download(t, env, id, fileID); status != 200 || !bytes.Equal(raw, pdf) {
			t.Fatalf("download: %d, %d bytes, want the %d uploaded", status, len(raw), len(pdf))
		}

		// win releases the hold; final states refuse every action.
		won := act("win").Expect(t, 200).JSON(t)
		if won["status"] != "won" || won["closed_at"] == nil {
			t.Fatalf("win answered %v", won)
		}
		for _, a := range []string{"request_evidence", "submit", "win", "lose", "expire"} {
			act(a).ExpectError(t, 422, payd.CodeInvalidState, "")
		}
		p := c.Get("/v1/payments/" + pay).JSON(t)
		if value(p, "disputed_amount") != "0.00" || value(p, "charged_back_amount") != "0.00" || value(p, "refundable_amount") != "1000.00" {
			t.Fatalf("payment after a won dispute = %v", p)
		}
		want := []string{"dispute.opened", "dispute.evidence_required", "dispute.submitted", "dispute.closed"}
		if got := eventTypes(t, c, id); !equalStrings(got, want) {
			t.Fatalf("events %v, want %v", got, want)
		}

		// expire closes a dispute before its deadline and charges it back
		// with its fine and fee; the sandbox's expire does the same.
		for _, how := range []string{"operator", "sandbox"} {
			d := env.AdminDo("POST", opens, map[string]any{"amount": rub("100.00"), "bank_fine_amount": rub("5.00"),
				"service_fee_amount": rub("1.00")}).Expect(t, 201).JSON(t)
			did := d["id"].(string)
			if how == "operator" {
				env.AdminDo("POST", "/admin/v1/disputes/"+did+"/expire", map[string]any{"resolution": "no answer in time"}).Expect(t, 200)
			} else {
				simulateDispute(t, c, did, "expire")
			}
			got := waitDispute(t, c, did, "expired")
			if got["closed_at"] == nil {
				t.Fatalf("%s expiry: %v", how, got)
			}
			if how == "operator" && got["resolution"] != "no answer in time" {
				t.Fatalf("resolution = %v", got["resolution"])
			}
		}
		p = c.Get("/v1/payments/" + pay).JSON(t)
		if value(p, "charged_back_amount") != "200.00" || value(p, "refundable_amount") != "800.00" {
			t.Fatalf("payment after two expired disputes = %v", p)
		}
		checkLedger(t, env)
	})
}

// TestLostDisputeUnderNoFeeReturn: a tariff that keeps the whole fee on
// refunds keeps it on chargebacks too (docs/disputes.md), while the same
// loss under the default tariff returns the fee in proportion.
func TestLostDisputeUnderNoFeeReturn(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, shop, c := startM2(t, b)
		for _, tt := range []struct {
			noFeeReturn bool
			feeBack     string
		}{{false, "2.10"}, {true, "0.00"}} {
			env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"tariffs": []any{map[string]any{
				"method": "sbp", "currency": "RUB", "percent_bps": 70, "no_fee_return": tt.noFeeReturn}}}).Expect(t, 200)
			pay := paidPayment(t, c, "1000.00")
			d := openDispute(t, c, pay, map[string]any{"amount": rub("300.00"), "bank_fine_amount": rub("0.00"), "service_fee_amount": rub("0.00")})
			simulateDispute(t, c, d["id"].(string), "lost")
			waitDispute(t, c, d["id"].(string), "lost")
			p := c.Get("/v1/payments/" + pay).JSON(t)
			if value(p, "fee_amount") != "7.00" || value(p, "fee_refunded_amount") != tt.feeBack || value(p, "charged_back_amount") != "300.00" {
				t.Fatalf("no_fee_return=%v: payment after the loss = %v, want fee_refunded_amount %s", tt.noFeeReturn, p, tt.feeBack)
			}
		}
		checkLedger(t, env)
	})
}
