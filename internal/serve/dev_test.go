package serve

import (
	"context"
	"encoding/json"
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

// The demo staff admin is in dev.json's back_office member (url, email,
// password, totp_secret), ready to sign in with a second factor, and a
// restart keeps it; a dev.json of an older build gets one.
func TestEnsureDevBackOffice(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	in, err := New(ctx, Config{DataDir: dir, PublicURL: "http://127.0.0.1:8080"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(context.Background()) })
	ensure := func() *DevInfo {
		t.Helper()
		info, err := EnsureDev(ctx, in.Service, in.Accounts, dir, "http://127.0.0.1:8080/v1", "http://127.0.0.1:8081", "adm_x", "http://127.0.0.1:8080/dashboard/")
		if err != nil {
			t.Fatal(err)
		}
		b := info.BackOffice
		if b == nil || b.URL != "http://127.0.0.1:8081/office/" || b.Email != DevBackOfficeEmail || len(b.Password) < 20 || len(b.TOTPSecret) < 16 {
			t.Fatalf("back office sign-in %+v", b)
		}
		list, err := in.Accounts.ListStaff(ctx)
		if err != nil || len(list) != 1 || list[0].Email != DevBackOfficeEmail || list[0].Role != payd.StaffAdmin ||
			!list[0].HasPassword || !list[0].TOTPEnabled {
			t.Fatalf("staff %+v, %v; want the demo admin with a password and a second factor", list, err)
		}
		return info
	}
	first := ensure()
	if again := ensure(); *again.BackOffice != *first.BackOffice {
		t.Errorf("restart changed the sign-in: %+v, then %+v", first.BackOffice, again.BackOffice)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		BackOffice map[string]string `json:"back_office"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"url", "email", "password", "totp_secret"} {
		if file.BackOffice[k] == "" {
			t.Errorf("dev.json's back_office lacks %s: %s", k, raw)
		}
	}
	first.BackOffice = nil
	if err := writeDev(dir, first); err != nil {
		t.Fatal(err)
	}
	if upgraded := ensure(); upgraded.BackOffice.Password == "" {
		t.Errorf("an older dev.json got no back office sign-in")
	}
}
