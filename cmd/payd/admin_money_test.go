package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/paydhq/payd/paydtest"
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
