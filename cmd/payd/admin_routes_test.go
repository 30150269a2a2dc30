package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestAdminProviderRoutes drives the routing commands against the real
// operator API with two live providers registered.
func TestAdminProviderRoutes(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], &paydtest.Options{LiveProviders: []payd.Provider{
		paydtest.NewLiveProvider("acme_bank"), paydtest.NewLiveProvider("beta_bank")}})
	vars := map[string]string{"PAYD_ADMIN_URL": env.Admin.URL, "PAYD_ADMIN_TOKEN": env.Token}
	admin := func(args ...string) string {
		t.Helper()
		out, _, err := adminRun(vars, args...)
		if err != nil {
			t.Fatalf("payd admin %s: %v", strings.Join(args, " "), err)
		}
		return out
	}
	rows := func(out string) []string {
		var rows []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			rows = append(rows, strings.Join(strings.Fields(line), " "))
		}
		return rows
	}

	out := admin("providers", "list")
	wantContains(t, "providers list", strings.Join(rows(out), "\n"), "NAME LIVE", "sandbox no", "sandbox_backup no",
		"acme_bank yes", "beta_bank yes")

	if out := admin("provider-routes", "list"); strings.TrimSpace(out) != "no provider routes" {
		t.Errorf("provider-routes list of an empty table:\n%s", out)
	}
	out = admin("provider-routes", "set", "--region", "ru", "--method", "bank_card", "--currency", "rub",
		"--providers", "beta_bank, acme_bank")
	if !regexpLine(out, "providers", "beta_bank,acme_bank") || !regexpLine(out, "currency", "RUB") {
		t.Errorf("provider-routes set:\n%s", out)
	}
	admin("provider-routes", "set", "--region", "kz", "--method", "bank_card", "--currency", "KZT", "--providers", "acme_bank")
	out = admin("provider-routes", "list")
	if r := rows(out); len(r) != 3 || !strings.HasPrefix(r[0], "REGION METHOD CURRENCY PROVIDERS UPDATED") ||
		!strings.HasPrefix(r[1], "kz bank_card KZT acme_bank ") || !strings.HasPrefix(r[2], "ru bank_card RUB beta_bank,acme_bank ") {
		t.Errorf("provider-routes list:\n%s", out)
	}
	var page struct{ Items []payd.ProviderRoute }
	if err := json.Unmarshal([]byte(admin("--json", "provider-routes", "list")), &page); err != nil || len(page.Items) != 2 ||
		strings.Join(page.Items[1].Providers, ",") != "beta_bank,acme_bank" {
		t.Errorf("provider-routes list --json: %v %+v", err, page.Items)
	}

	admin("provider-routes", "delete", "--region", "kz", "--method", "bank_card", "--currency", "KZT")
	if r := rows(admin("provider-routes", "list")); len(r) != 2 || !strings.HasPrefix(r[1], "ru bank_card RUB ") {
		t.Errorf("provider-routes list after delete: %q", r)
	}

	_, _, err := adminRun(vars, "provider-routes", "set", "--region", "ru", "--method", "bank_card", "--currency", "RUB",
		"--providers", "acme_bank,sandbox")
	if err == nil || !strings.Contains(err.Error(), "invalid_request (parameter providers.1)") {
		t.Errorf("sandbox bank for live: %v", err)
	}
	_, _, err = adminRun(vars, "provider-routes", "delete", "--region", "kz", "--method", "bank_card", "--currency", "KZT")
	if err == nil || !strings.Contains(err.Error(), "not_found") {
		t.Errorf("delete of a missing route: %v", err)
	}
	_, _, err = adminRun(vars, "provider-routes", "set", "--region", "ru", "--method", "bank_card", "--currency", "RUB")
	if err == nil || !strings.Contains(err.Error(), "--providers is required") {
		t.Errorf("set without providers: %v", err)
	}
}
