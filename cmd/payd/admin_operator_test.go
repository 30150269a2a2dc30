package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paydhq/payd/internal/serve"
)

// TestAdminAgainstOperatorAPI drives the client against the real operator
// API on SQLite, so that request bodies and answer shapes cannot drift from
// what the service accepts and sends; the fakes in admin_test.go only check
// what the client sends.
func TestAdminAgainstOperatorAPI(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const token = "adm_e2e_token"
	in, err := serve.New(ctx, serve.Config{DataDir: t.TempDir(), PublicURL: "http://127.0.0.1:0", AdminToken: token, TestClock: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(context.Background()) })
	srv := httptest.NewServer(in.Admin)
	t.Cleanup(srv.Close)
	env := map[string]string{"PAYD_ADMIN_URL": srv.URL, "PAYD_ADMIN_TOKEN": token}

	admin := func(args ...string) string {
		t.Helper()
		out, _, err := adminRun(env, args...)
		if err != nil {
			t.Fatalf("payd admin %s: %v", strings.Join(args, " "), err)
		}
		return out
	}
	idOf := func(out string) string {
		t.Helper()
		var v struct{ ID string }
		if err := json.Unmarshal([]byte(out), &v); err != nil || v.ID == "" {
			t.Fatalf("no id in %s (%v)", out, err)
		}
		return v.ID
	}

	merchant := idOf(admin("--json", "merchants", "create", "--name", "Acme", "--settlement-delay-days", "0"))
	wantContains(t, "merchants list", admin("merchants", "list"), "ID", "NAME", merchant, "Acme")

	shop := idOf(admin("shops", "create", "--merchant", merchant, "--region", "kz", "--name", "Coffee", "--json"))
	out := admin("shops", "update", shop, "--set", "requests_per_minute=1200", "--set", "ip_allowlist=10.0.0.0/8,192.0.2.7",
		"--set", "authorize_request_webhook=true", "--set", "display_name=Coffee Corner")
	wantContains(t, "shops update", out, "settings.requests_per_minute", "1200", "10.0.0.0/8,192.0.2.7", "Coffee Corner", "KZT")
	if !regexpLine(out, "settings.authorize_request_webhook", "true") {
		t.Errorf("shops update output:\n%s", out)
	}
	if !strings.Contains(admin("shops", "get", shop), "live") {
		t.Error("shops get has no live line")
	}
	admin("shops", "activate", shop)
	admin("shops", "suspend", shop)
	out = admin("shops", "list", "--merchant", merchant)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 ||
		strings.Join(strings.Fields(lines[1]), " ") != shop+" kz Coffee yes no yes" {
		t.Errorf("shops list:\n%s", out)
	}

	out = admin("keys", "issue", shop, "--mode", "live")
	wantContains(t, "keys issue", out, "secret:  live_kz_", "shown only once")
	var issued struct{ ID string }
	if err := json.Unmarshal([]byte(admin("keys", "issue", shop, "--mode", "test", "--json")), &issued); err != nil {
		t.Fatal(err)
	}
	admin("keys", "revoke", issued.ID)
	out = admin("keys", "list", shop)
	wantContains(t, "keys list", out, "MODE", "HINT", "REVOKED", issued.ID, "live_kz_", "test_kz_")

	before := admin("--json", "clock", "now")
	after := admin("--json", "clock", "advance", "24h")
	if before == after || !strings.Contains(after, `"now"`) {
		t.Errorf("clock did not move: %s -> %s", before, after)
	}

	_, _, err = adminRun(env, "shops", "create", "--merchant", merchant, "--region", "xx", "--name", "Bad")
	if err == nil || !strings.Contains(err.Error(), "invalid_request (parameter region)") || !strings.Contains(err.Error(), "[request ") {
		t.Errorf("bad region: %v", err)
	}
	_, _, err = adminRun(env, "shops", "update", shop, "--set", "no_such_setting=1")
	if err == nil || !strings.Contains(err.Error(), "invalid_request") {
		t.Errorf("unknown setting: %v", err)
	}
}
