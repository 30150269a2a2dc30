//go:build linux

package serve_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/pgserver"
	"github.com/paydhq/payd/internal/serve"
)

// TestReadOnlyDemotion: the primary an instance is connected to stops
// taking writes without ending its sessions (a standby promoted elsewhere,
// the old primary made read-only: what a failover behind an address that
// moves, or an operator's fencing, leaves behind), and the instance is
// given both servers in one connection string with
// target_session_attrs=read-write. Writes on the old connections answer
// 503 provider_unavailable, never anything else; each such connection is
// dropped, so writes succeed again on the new primary without a restart;
// and River's leader, whose connections were on the old primary too, is
// elected on the new one and its periodic jobs run there.
//
// It starts two throwaway PostgreSQL servers of its own (pgserver): run
// with PostgreSQL installed, when PAYD_TEST_DATABASE_URL says PostgreSQL
// tests are wanted.
func TestReadOnlyDemotion(t *testing.T) {
	if os.Getenv("PAYD_TEST_DATABASE_URL") == "" {
		t.Skip("PostgreSQL tests are off: PAYD_TEST_DATABASE_URL is not set")
	}
	ctx := t.Context()
	dir, err := os.MkdirTemp("", "payd-demotion-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	old, err := pgserver.New(dir, "old")
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { old.Stop(true) })
	standby, err := old.Standby(dir, "new")
	if err != nil {
		t.Fatal(err)
	}
	if err := standby.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { standby.Stop(true) })

	url := fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/postgres?sslmode=disable&target_session_attrs=read-write",
		old.Port, standby.Port)
	in, err := serve.New(ctx, serve.Config{DatabaseURL: url, DataDir: t.TempDir(), JobPollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(context.Background()) })
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitLeader(t, old)

	// One connection to the old primary held out of the pool, so that
	// River cannot be the one to find it read-only and drop it first.
	pinned, err := in.Store.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pinned.Close()
	if err := pinned.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	if err := standby.Promote(); err != nil {
		t.Fatal(err)
	}
	if err := old.Exec(ctx, "postgres", "ALTER SYSTEM SET default_transaction_read_only = on", "SELECT pg_reload_conf()"); err != nil {
		t.Fatal(err)
	}
	demoted := time.Now().UTC()

	// The reload reaches each session on its own time.
	for {
		var ro string
		if err := pinned.QueryRowContext(ctx, "SHOW transaction_read_only").Scan(&ro); err != nil {
			t.Fatal(err)
		}
		if ro == "on" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The pinned connection fails with 25006 and is closed at once.
	_, err = pinned.ExecContext(ctx, "CREATE TABLE demotion_probe (id int)")
	var pge *pgconn.PgError
	if !errors.As(err, &pge) || pge.Code != "25006" {
		t.Fatalf("write on the demoted primary: %v; want SQLSTATE 25006", err)
	}
	if err := pinned.PingContext(ctx); !errors.Is(err, driver.ErrBadConn) {
		t.Fatalf("the connection to the demoted primary after a read-only error: ping gave %v; want it closed", err)
	}
	// and it is counted for the failover alert.
	if v, _ := paydtest.MetricValue(t, in.Registry, "payd_db_read_only_errors_total"); v < 1 {
		t.Fatalf("payd_db_read_only_errors_total = %v after a read-only error", v)
	}

	// Through the store, each write either succeeds or is refused as
	// unavailable; the pool holds at most its 32 connections, each
	// dropped at its first refusal, so fewer than that many refusals
	// come before the first success.
	var refused int
	for i := 0; ; i++ {
		err := in.Store.Tx(ctx, func(tx payd.Tx) error {
			return tx.MerchantInsert(ctx, &payd.Merchant{ID: fmt.Sprintf("mer_demotion_%d", i), Name: "M",
				SettlementDelayDays: 1, CreatedAt: time.Now().UTC().Truncate(time.Microsecond)})
		})
		if err == nil {
			break
		}
		var pe *payd.Error
		if !errors.As(err, &pe) || pe.Code != payd.CodeProviderUnavailable || pe.RetryAfter == 0 {
			t.Fatalf("write %d on the demoted primary: %v; want provider_unavailable with Retry-After", i, err)
		}
		refused++
		if refused > 32 {
			t.Fatalf("still refused after %d writes: connections to the read-only server are kept", refused)
		}
	}
	// A check may draw a pooled connection still on the old primary: it
	// drops it and says not ready; within a few checks none is left.
	var readyErr error
	for range 33 {
		if readyErr = in.Store.Ready(ctx); readyErr == nil {
			break
		}
	}
	if readyErr != nil {
		t.Fatalf("not ready after the new primary took writes: %v", readyErr)
	}
	// New connections reached the promoted standby: counted for the
	// failover alert.
	if v, _ := paydtest.MetricValue(t, in.Registry, "payd_db_server_changes_total"); v < 1 {
		t.Fatalf("payd_db_server_changes_total = %v after writes moved to the promoted standby", v)
	}

	// River: a leader on the new primary, and a periodic sweep run there
	// after the demotion.
	waitLeader(t, standby)
	deadline := time.Now().Add(time.Minute)
	for {
		var n int
		err := queryRow(ctx, standby, `SELECT count(*) FROM river_job WHERE kind = 'expire_payments' AND created_at > $1`, demoted).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no periodic job on the new primary a minute after the demotion")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitLeader waits, at most a minute, for River to have a leader on s.
func waitLeader(t *testing.T, s *pgserver.Server) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var n int
		if err := queryRow(t.Context(), s, `SELECT count(*) FROM river_leader`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no River leader on 127.0.0.1:%d after a minute", s.Port)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

type row struct {
	db  *sql.DB
	row *sql.Row
}

func (r row) Scan(dest ...any) error {
	defer r.db.Close()
	return r.row.Scan(dest...)
}

// queryRow asks one server directly, not through the instance's pool.
func queryRow(ctx context.Context, s *pgserver.Server, q string, args ...any) row {
	db, _ := sql.Open("pgx", s.URL("postgres"))
	return row{db, db.QueryRowContext(ctx, q, args...)}
}
