package main

import (
	"database/sql"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paydhq/payd/deploy"
)

// TestServeNotifiesSystemd runs the payd binary as payd.service does
// (Type=notify, settings and secrets from the environment and files) with
// a NOTIFY_SOCKET of the test's own: READY=1 comes only once /readyz
// answers 200 and every port accepts, STOPPING=1 on SIGTERM, and payd
// exits cleanly within the unit's TimeoutStopSec.
func TestServeNotifiesSystemd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a payd process")
	}
	t.Parallel()
	bin := buildPayd(t)
	// A socket's path has room for about a hundred bytes: t.TempDir's
	// are longer.
	sockDir, err := os.MkdirTemp("", "notify-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	sockPath := filepath.Join(sockDir, "sock")
	sock, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sockPath, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	states := make(chan string, 64)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := sock.Read(buf)
			if err != nil {
				close(states)
				return
			}
			states <- string(buf[:n])
		}
	}()

	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "admin-token")
	if err := os.WriteFile(tokenFile, []byte("adm_notify_test\n"), 0o400); err != nil {
		t.Fatal(err)
	}
	addrs := map[string]string{"PAYD_ADDR": freeAddr(t), "PAYD_ADMIN_ADDR": freeAddr(t), "PAYD_DASHBOARD_ADDR": freeAddr(t)}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "NOTIFY_SOCKET="+sockPath, "PAYD_DATA_DIR="+filepath.Join(dir, "data"),
		"PAYD_SECRETS_KEY="+testSecretsKey(t), "PAYD_ADMIN_TOKEN_FILE="+tokenFile, "PAYD_DRAIN_DELAY=1s")
	for k, v := range addrs {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// exited is closed when payd has exited, with its result in waitErr.
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()

	// next waits for the next message, a minute at most.
	next := func(what string) string {
		t.Helper()
		select {
		case s, ok := <-states:
			if !ok {
				t.Fatalf("the notify socket closed waiting for %s", what)
			}
			return s
		case <-exited:
			t.Fatalf("payd exited waiting for %s: %v\n%s", what, waitErr, stderr.String())
		case <-time.After(time.Minute):
			t.Fatalf("no %s from payd within a minute\n%s", what, stderr.String())
		}
		return ""
	}
	for {
		s := next("READY=1")
		if strings.Contains(s, "STOPPING=1") {
			t.Fatalf("STOPPING=1 before READY=1: %q", s)
		}
		if strings.Contains(s, "READY=1") {
			break
		}
	}
	// Told ready: it must be so already. payd is stopped at once, so that
	// nothing it does after READY=1 counts: every port is bound (the
	// kernel accepts for a stopped process) and the database holds this
	// build's last migration and the job queue's tables.
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for name, addr := range addrs {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("%s %s was not bound at READY=1: %v", name, addr, err)
		}
		c.Close()
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "data", "payd.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var applied, riverTables int
	err = db.QueryRow(`SELECT max(version) FROM payd_migrations`).Scan(&applied)
	if err == nil {
		err = db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name LIKE 'river%'`).Scan(&riverTables)
	}
	db.Close()
	if err != nil {
		t.Fatalf("the database at READY=1: %v", err)
	}
	if latest := latestMigration(t); applied != latest || riverTables == 0 {
		t.Fatalf("at READY=1 the database is at migration %d of %d, with %d job queue tables", applied, latest, riverTables)
	}
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + addrs["PAYD_ADDR"] + "/readyz")
	if err != nil {
		t.Fatalf("/readyz after READY=1: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/readyz after READY=1 = %d", resp.StatusCode)
	}
	// The operator API took its token from the file, line ending trimmed.
	req, _ := http.NewRequest("GET", "http://"+addrs["PAYD_ADMIN_ADDR"]+"/admin/v1/merchants", nil)
	req.Header.Set("Authorization", "Bearer adm_notify_test")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("operator API with the token of PAYD_ADMIN_TOKEN_FILE = %d", resp.StatusCode)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(next("STOPPING=1"), "STOPPING=1") {
	}
	stop := deploy.UnitValues(deploy.SystemdUnit(), "TimeoutStopSec")
	timeout, err := time.ParseDuration(strings.Join(stop, ""))
	if err != nil {
		t.Fatalf("payd.service's TimeoutStopSec %q: %v", stop, err)
	}
	select {
	case <-exited:
		if waitErr != nil {
			t.Fatalf("payd exited with %v after SIGTERM\n%s", waitErr, stderr.String())
		}
	case <-time.After(timeout):
		t.Fatalf("payd did not exit within payd.service's TimeoutStopSec %v of SIGTERM\n%s", timeout, stderr.String())
	}
}

// latestMigration is the number of the newest of the service's schema
// migrations (internal/sqlstore/migrations, NNNN_name.sql).
func latestMigration(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("..", "..", "internal", "sqlstore", "migrations"))
	if err != nil {
		t.Fatal(err)
	}
	latest := 0
	for _, e := range entries {
		num, _, _ := strings.Cut(e.Name(), "_")
		if v, err := strconv.Atoi(num); err == nil && v > latest {
			latest = v
		}
	}
	return latest
}
