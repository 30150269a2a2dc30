package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestAdminLedgerCheck runs `payd admin ledger check` against a real
// operator API.
func TestAdminLedgerCheck(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	var out bytes.Buffer
	err := run(context.Background(), []string{"admin", "--admin-url", env.Admin.URL, "--admin-token", env.Token, "ledger", "check"},
		func(string) string { return "" }, &out, &out)
	if err != nil || !strings.Contains(out.String(), `"ok": true`) {
		t.Fatalf("ledger check: %v\n%s", err, out.String())
	}
	out.Reset()
	err = run(context.Background(), []string{"admin", "--admin-url", env.Admin.URL, "--admin-token", env.Token, "payouts", "freeze", "mer_none"},
		func(string) string { return "" }, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "not_found") {
		t.Fatalf("freeze of an unknown merchant: %v", err)
	}
}

// TestAdminLedgerBalanceDecimal: `payd admin ledger balance` prints money
// as the contract does, a decimal string with its currency, not minor
// units.
func TestAdminLedgerBalanceDecimal(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	shop := env.NewShop(payd.RegionRU, "")
	c := env.As(shop, false)
	pay := c.Post("/v1/payments", "balance-pay-1", map[string]any{
		"amount": map[string]any{"value": "1500.00", "currency": "RUB"}, "order_id": "balance-1",
		"confirmation": map[string]any{"type": "qr"},
	}).Expect(t, 201).JSON(t)["id"].(string)
	c.Post("/v1/test/payments/"+pay+"/simulate", "balance-sim-1", map[string]any{"outcome": "succeed"}).Expect(t, 202)
	c.WaitStatus(pay, "succeeded")

	var out bytes.Buffer
	err := run(context.Background(), []string{"admin", "--admin-url", env.Admin.URL, "--admin-token", env.Token,
		"ledger", "balance", shop.MerchantID, "--test"}, func(string) string { return "" }, &out, &out)
	if err != nil {
		t.Fatalf("ledger balance: %v\n%s", err, out.String())
	}
	var got map[string]map[string]map[string]string
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("ledger balance is not buckets of amounts: %v\n%s", err, out.String())
	}
	// 1500.00 less the QR fee of 0.7%, not yet released.
	if want := map[string]string{"value": "1489.50", "currency": "RUB"}; !maps.Equal(got["RUB"]["pending"], want) {
		t.Fatalf("pending = %v, want %v\n%s", got["RUB"]["pending"], want, out.String())
	}
}

// TestAdminQueues: `payd admin settlements list` and `disputes list` ask
// the operator's queues with their filters and print the page.
func TestAdminQueues(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args        []string
		path, query string
	}{
		{[]string{"settlements", "list", "--status", "approved", "--test", "--merchant", "mer_1", "--currency", "KZT", "--limit", "2", "--cursor", "c_1"},
			"/admin/v1/settlements", "currency=KZT&cursor=c_1&limit=2&merchant_id=mer_1&status=approved&test=true"},
		{[]string{"settlements", "list"}, "/admin/v1/settlements", "test=false"},
		{[]string{"disputes", "list", "--status", "won", "--merchant", "mer_1", "--limit", "5"},
			"/admin/v1/disputes", "limit=5&merchant_id=mer_1&status=won&test=false"},
		{[]string{"disputes", "list", "--test"}, "/admin/v1/disputes", "test=true"},
	} {
		srv, calls := fakeOperator(t, operatorRoute{method: "GET", path: c.path, query: c.query, token: testAdminToken,
			answer: `{"items":[{"id":"x_1"}],"next_cursor":"c_2"}`})
		out, _, err := adminRun(map[string]string{"PAYD_ADMIN_URL": srv.URL, "PAYD_ADMIN_TOKEN": testAdminToken}, c.args...)
		if err != nil || calls.Load() != 1 {
			t.Fatalf("%q: %v after %d requests", c.args, err, calls.Load())
		}
		wantContains(t, strings.Join(c.args, " "), out, `"x_1"`, `"c_2"`)
	}
}
