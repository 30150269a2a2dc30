package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestAdminDisputes walks a dispute through `payd admin disputes` against a
// real operator API at stage M2, and checks the commands answer 501 below
// it.
func TestAdminDisputes(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], &paydtest.Options{Stage: payd.StageM2})
	admin := func(args ...string) (map[string]any, error) {
		var out bytes.Buffer
		err := run(context.Background(), append([]string{"admin", "--admin-url", env.Admin.URL, "--admin-token", env.Token, "disputes"}, args...),
			func(string) string { return "" }, &out, &out)
		var m map[string]any
		if err == nil {
			if jerr := json.Unmarshal(out.Bytes(), &m); jerr != nil {
				t.Fatalf("%v: not JSON: %s", args, out.String())
			}
		}
		return m, err
	}
	c := env.As(env.NewShop(payd.RegionRU, ""), false)
	pay := c.Post("/v1/payments", "cli-dispute-pay", map[string]any{"amount": map[string]any{"value": "500.00", "currency": "RUB"},
		"order_id": "cli-1", "confirmation": map[string]any{"type": "qr"}}).Expect(t, 201).JSON(t)["id"].(string)
	c.Post("/v1/test/payments/"+pay+"/simulate", "cli-dispute-sim", map[string]any{"outcome": "succeed"}).Expect(t, 202)
	c.WaitStatus(pay, "succeeded")

	if _, err := admin("open", pay, "--amount", "10.00"); err == nil || !strings.Contains(err.Error(), "--currency") {
		t.Fatalf("open without --currency: %v", err)
	}
	d, err := admin("open", pay, "--amount", "100.00", "--currency", "RUB", "--bank-fine", "5.00", "--reason-code", "4837",
		"--provider-dispute-id", "bank-77")
	if err != nil || d["status"] != "opened" || d["bank_fine"] != float64(500) || d["reason_code"] != "4837" {
		t.Fatalf("open: %v, %v", d, err)
	}
	id := d["id"].(string)
	if _, err := admin("open", pay, "--provider-dispute-id", "bank-77"); err == nil || !strings.Contains(err.Error(), "invalid_state") {
		t.Fatalf("second open of the bank's dispute: %v", err)
	}
	if d, err = admin("request-evidence", id); err != nil || d["status"] != "evidence_required" {
		t.Fatalf("request-evidence: %v, %v", d, err)
	}
	if _, err = admin("submit", id); err == nil || !strings.Contains(err.Error(), "invalid_state") {
		t.Fatalf("submit without evidence: %v", err)
	}
	if d, err = admin("lose", id, "--resolution", "issuer upheld the claim"); err != nil || d["status"] != "lost" ||
		d["resolution"] != "issuer upheld the claim" || d["closed_at"] == nil {
		t.Fatalf("lose: %v, %v", d, err)
	}
	if d, err = admin("get", id); err != nil || d["status"] != "lost" {
		t.Fatalf("get: %v, %v", d, err)
	}
	if _, err = admin("win", id); err == nil || !strings.Contains(err.Error(), "invalid_state") {
		t.Fatalf("win of a lost dispute: %v", err)
	}
	if _, err = admin("evidence", id, "evd_00000000000000000000000000"); err == nil || !strings.Contains(err.Error(), "not_found") {
		t.Fatalf("evidence of an unknown file: %v", err)
	}

	v1 := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	var out bytes.Buffer
	err = run(context.Background(), []string{"admin", "--admin-url", v1.Admin.URL, "--admin-token", v1.Token, "disputes", "get", id},
		func(string) string { return "" }, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "not_implemented") || !strings.Contains(err.Error(), "M2") {
		t.Fatalf("disputes get at stage v1: %v", err)
	}
}
