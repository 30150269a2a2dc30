package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTestClockLeadSurvivesRestart: a developer's sandbox moved two days
// ahead is still two days ahead after payd restarts on the same data
// directory, never back at the wall clock's time.
func TestTestClockLeadSurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clock := func(admin, token, method string, body string) time.Time {
		t.Helper()
		req, _ := http.NewRequest(method, "http://"+admin+"/admin/v1/clock"+map[bool]string{true: "/advance"}[method == "POST"],
			strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct{ Now time.Time }
		if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&out) != nil {
			t.Fatalf("%s clock: %d", method, resp.StatusCode)
		}
		return out.Now
	}
	start := func() (*running, string, string) {
		addr, admin := freeAddr(t), freeAddr(t)
		srv := startServe(t, "--dev", "--test-clock", "--data-dir", dir, "--addr", addr, "--admin-addr", admin)
		waitHealthy(t, http.DefaultClient, "http://"+addr, srv)
		return srv, admin, devAdminToken(t, dir)
	}
	srv, admin, token := start()
	moved := clock(admin, token, "POST", `{"seconds":172800}`)
	if lead := time.Until(moved); lead < 47*time.Hour {
		t.Fatalf("the clock moved to %v, %v ahead; want two days", moved, lead)
	}
	srv.stop()
	<-srv.done

	_, admin, token = start()
	if now := clock(admin, token, "GET", ""); now.Before(moved) {
		t.Fatalf("after a restart the clock reads %v, before %v where it was moved", now, moved)
	}
}

// devAdminToken reads the operator token from dir's dev.json.
func devAdminToken(t *testing.T, dir string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		AdminToken string `json:"admin_token"`
	}
	if err := json.Unmarshal(raw, &info); err != nil || info.AdminToken == "" {
		t.Fatalf("dev.json = %s (%v)", raw, err)
	}
	return info.AdminToken
}
