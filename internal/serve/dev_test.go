package serve

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/paydhq/payd"
)

// On PostgreSQL nothing else makes the data directory: dev.json is
// written into one that does not exist yet.
func TestWriteDevMakesTheDataDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet")
	if err := writeDev(dir, &DevInfo{AdminToken: "adm_x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "dev.json")); err != nil {
		t.Fatalf("dev.json: %v", err)
	}
}

// The demo admin signs in with the password of dev.json, on the first
// start and after a restart; a dev.json written before the dashboard
// existed gets one.
func TestEnsureDevDashboard(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	in, err := New(ctx, Config{DataDir: dir, PublicURL: "http://127.0.0.1:8080"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(context.Background()) })
	const dash = "http://127.0.0.1:8080/dashboard/"
	signIn := func(d *DevDashboard) {
		t.Helper()
		if d == nil || d.URL != dash || d.Email != DevDashboardEmail || len(d.Password) < 20 {
			t.Fatalf("dashboard sign-in %+v", d)
		}
		_, ses, err := in.Accounts.SignIn(ctx, d.Email, d.Password, "", "")
		if err != nil || ses.State != payd.SessionActive {
			t.Fatalf("signing in with dev.json's password: %v", err)
		}
		u, err := in.Accounts.GetUser(ctx, ses.MerchantID, ses.UserID)
		if err != nil || u.Role != payd.RoleAdmin {
			t.Fatalf("demo user %+v, %v", u, err)
		}
	}
	first, err := EnsureDev(ctx, in.Service, in.Accounts, dir, "http://127.0.0.1:8080/v1", "http://127.0.0.1:8081", "adm_x", dash)
	if err != nil {
		t.Fatal(err)
	}
	signIn(first.Dashboard)
	again, err := EnsureDev(ctx, in.Service, in.Accounts, dir, "http://127.0.0.1:8080/v1", "http://127.0.0.1:8081", "adm_x", dash)
	if err != nil {
		t.Fatal(err)
	}
	if *again.Dashboard != *first.Dashboard {
		t.Errorf("restart changed the sign-in: %+v, then %+v", first.Dashboard, again.Dashboard)
	}
	// dev.json of an older build: no dashboard member.
	again.Dashboard = nil
	if err := writeDev(dir, again); err != nil {
		t.Fatal(err)
	}
	upgraded, err := EnsureDev(ctx, in.Service, in.Accounts, dir, "http://127.0.0.1:8080/v1", "http://127.0.0.1:8081", "adm_x", dash)
	if err != nil {
		t.Fatal(err)
	}
	signIn(upgraded.Dashboard)
	if read, err := ReadDev(dir); err != nil || read.Dashboard == nil || *read.Dashboard != *upgraded.Dashboard {
		t.Errorf("dev.json after the upgrade: %+v, %v", read, err)
	}
}
