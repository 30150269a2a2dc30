package main

import (
	"context"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/paydhq/payd/internal/serve"
)

// TestAdminStaff makes the first staff admin on the host with the
// break-glass token, issues it a token, and reads the change in the
// operator audit log with that token.
func TestAdminStaff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const token = "adm_staff_token"
	in, err := serve.New(ctx, serve.Config{DataDir: t.TempDir(), PublicURL: "https://payd.example", AdminToken: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(context.Background()) })
	srv := httptest.NewServer(in.Admin)
	t.Cleanup(srv.Close)
	run := func(tok string, args ...string) string {
		t.Helper()
		out, _, err := adminRun(map[string]string{"PAYD_ADMIN_URL": srv.URL, "PAYD_ADMIN_TOKEN": tok}, args...)
		if err != nil {
			t.Fatalf("payd admin %s: %v", strings.Join(args, " "), err)
		}
		return out
	}
	out := run(token, "staff", "create", "--email", "First@Operator.test", "--role", "admin")
	id := regexp.MustCompile(`(?m)^id +(stf_[0-9A-Z]{26})$`).FindStringSubmatch(out)
	if id == nil || !regexp.MustCompile(`(?m)^setup_token +[A-Za-z0-9_-]{43}$`).MatchString(out) || !strings.Contains(out, "first@operator.test") {
		t.Fatalf("staff create printed:\n%s", out)
	}
	out = run(token, "staff", "token", id[1], "--name", "laptop")
	secret := regexp.MustCompile(`(?m)^secret +(pst_[A-Za-z0-9_-]{43})$`).FindStringSubmatch(out)
	if secret == nil {
		t.Fatalf("staff token printed:\n%s", out)
	}
	out = run(secret[1], "staff", "list")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || !strings.Contains(lines[1], "first@operator.test admin") &&
		!strings.Contains(strings.Join(strings.Fields(lines[1]), " "), "first@operator.test admin") {
		t.Errorf("staff list:\n%s", out)
	}
	out = run(secret[1], "staff", "audit", "--object", id[1])
	if !strings.Contains(out, "staff.create") || !strings.Contains(out, "break_glass") {
		t.Errorf("staff audit does not show the creation by the break-glass token:\n%s", out)
	}
}
