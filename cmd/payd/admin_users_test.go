package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/serve"
)

// TestAdminUsers drives users create, list, setup-link and audit against
// the real operator API.
func TestAdminUsers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const token = "adm_users_token"
	in, err := serve.New(ctx, serve.Config{DataDir: t.TempDir(), PublicURL: "https://payd.example", AdminToken: token})
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
	var m struct{ ID string }
	if err := json.Unmarshal([]byte(admin("--json", "merchants", "create", "--name", "Acme")), &m); err != nil {
		t.Fatal(err)
	}

	out := admin("users", "create", "--merchant", m.ID, "--email", "Staff@Example.test", "--role", "support")
	link := regexp.MustCompile(`(?m)^setup_url +(https://payd\.example/dashboard/setup/[A-Za-z0-9_-]{43})$`).FindStringSubmatch(out)
	id := regexp.MustCompile(`(?m)^id +(usr_[0-9A-Z]{26})$`).FindStringSubmatch(out)
	if link == nil || id == nil || !strings.Contains(out, "staff@example.test") {
		t.Fatalf("users create printed:\n%s", out)
	}

	out = admin("users", "list", "--merchant", m.ID)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "ID EMAIL ROLE PASSWORD 2FA DISABLED" ||
		!strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), id[1]+" staff@example.test support no no") {
		t.Errorf("users list:\n%s", out)
	}

	out = admin("users", "setup-link", "--merchant", m.ID, "--user", id[1])
	if !strings.Contains(out, "https://payd.example/dashboard/setup/") || strings.Contains(out, link[1]) {
		t.Errorf("setup-link printed the old link or none:\n%s", out)
	}

	// An entry with a detail (a dashboard's move of the test clock) shows
	// it beside its object.
	now := time.Now().UTC().Truncate(time.Microsecond)
	moved := &payd.AuditEntry{ID: payd.NewIDGen().New(payd.PrefixAudit, now), MerchantID: m.ID, Action: payd.AuditAdvanceTestClock,
		ObjectID: payd.AuditObjectTestClock, Detail: "+1h0m0s, to 2026-03-01T12:00:00Z", At: now}
	if err := in.Store.Tx(ctx, func(tx payd.Tx) error { return tx.AuditInsert(ctx, moved) }); err != nil {
		t.Fatal(err)
	}
	out = admin("audit", "--merchant", m.ID)
	wantContains(t, "audit", out, "ACTION", "issue setup link", "invite user", id[1], "DETAIL")
	if !regexp.MustCompile(`advance test clock +test_clock +\+1h0m0s, to 2026-03-01T12:00:00Z`).MatchString(out) {
		t.Errorf("audit does not show the entry's detail beside its object:\n%s", out)
	}
	if strings.Index(out, "issue setup link") > strings.Index(out, "invite user") {
		t.Errorf("audit is not newest first:\n%s", out)
	}

	_, _, err = adminRun(env, "users", "create", "--merchant", m.ID, "--email", "staff@example.test", "--role", "viewer")
	if err == nil || !strings.Contains(err.Error(), "email_taken") {
		t.Errorf("a taken email: %v", err)
	}
	_, _, err = adminRun(env, "users", "create", "--merchant", m.ID, "--email", "x@example.test")
	if err == nil || !strings.Contains(err.Error(), "--role is required") {
		t.Errorf("without --role: %v", err)
	}
}
