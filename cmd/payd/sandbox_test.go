package main

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/serve"
)

// TestSandboxResetOutlastsWriteTimeout: a reset that runs longer than the
// listeners' write timeout still gets its answer to `payd sandbox reset`,
// because its route lifts the timeout for itself (payd.SandboxResetLimit).
// The timeouts are shortened to a second, and the reset is kept waiting
// three times as long by a transaction of the test's own that holds the
// shop's row, which the reset's first step writes. An answer lost to the
// timeout shows as "deleted 0 payments": net/http sends a request that
// carries an Idempotency-Key again when its connection closes unanswered,
// and that second reset finds nothing left.
func TestSandboxResetOutlastsWriteTimeout(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		dir, addr := t.TempDir(), freeAddr(t)
		args := []string{"--dev", "--data-dir", dir, "--addr", addr, "--admin-addr", freeAddr(t)}
		dbURL := b.DatabaseURL(t)
		if dbURL != "" {
			args = append(args, "--database-url", dbURL)
		}
		none := func(string) string { return "" }
		o, err := parseServe(args, none, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		o.timeouts = httpTimeouts{read: time.Second, write: time.Second}
		srvLog := &syncBuffer{}
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("serve's log:\n%s", srvLog.String())
			}
		})
		srv := startRunning(t, func(ctx context.Context, stdout io.Writer) error {
			return serveWith(ctx, o, none, stdout, srvLog)
		})
		waitHealthy(t, http.DefaultClient, "http://"+addr, srv)
		dev, err := serve.ReadDev(dir)
		if err != nil {
			t.Fatal(err)
		}
		shopID := dev.Shops[0].ShopID
		var out bytes.Buffer
		for range 2 {
			if err := run(t.Context(), []string{"trigger", "payment.succeeded", "--data-dir", dir}, none, &out, &out); err != nil {
				t.Fatalf("payd trigger: %v\n%s", err, out.String())
			}
		}

		db := openServed(t, dir, dbURL)
		tx, err := db.BeginTx(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if _, err := tx.Exec(`UPDATE shops SET sandbox_reset_at = sandbox_reset_at WHERE id = $1`, shopID); err != nil {
			t.Fatal(err)
		}
		type result struct {
			out string
			err error
		}
		done := make(chan result, 1)
		go func() {
			var out bytes.Buffer
			err := run(context.Background(), []string{"sandbox", "reset", "--data-dir", dir}, none, &out, &out)
			done <- result{out.String(), err}
		}()
		time.Sleep(3 * time.Second)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		res := <-done
		if res.err != nil {
			t.Fatalf("payd sandbox reset, longer than the write timeout: %v\n%s", res.err, res.out)
		}
		if !strings.Contains(res.out, "deleted 2 payments,") {
			t.Fatalf("payd sandbox reset says:\n%s\nwant 2 payments deleted", res.out)
		}
	})
}

// openServed opens the database a test's serve runs on: the SQLite file of
// its data directory, or the PostgreSQL schema of dbURL.
func openServed(t *testing.T, dir, dbURL string) *sql.DB {
	t.Helper()
	driver, dsn := "sqlite", "file:"+filepath.Join(dir, "payd.db")+"?_pragma=busy_timeout(10000)"
	if dbURL != "" {
		driver, dsn = "pgx", dbURL
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
