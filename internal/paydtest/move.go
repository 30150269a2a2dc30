package paydtest

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// MoveBackends returns single PostgreSQL and a Citus coordinator, for a test
// that moves a database from one to the other. Both are needed: without
// PAYD_TEST_CITUS_URL the test is skipped, saying so (make test-citus runs
// it); a cluster without PAYD_TEST_DATABASE_URL fails it.
func MoveBackends(t testing.TB) (single, cluster Backend) {
	t.Helper()
	for _, b := range backends() {
		switch b.Name {
		case "postgres":
			single = b
		case "citus":
			cluster = b
		}
	}
	if cluster.URL == "" {
		t.Skip("moving a database onto a cluster needs one: PAYD_TEST_CITUS_URL (make test-citus)")
	}
	if single.URL == "" {
		t.Fatal("moving a database onto a cluster needs PostgreSQL at PAYD_TEST_DATABASE_URL to move it from")
	}
	return single, cluster
}

// Move copies the database of from, a stopped service on PostgreSQL, into
// the coordinator to as an operator does: pg_dump of its schema, restored
// with psql. It returns the copy's URL for Options.DatabaseURL, with
// fan-outs refused as in Backend.DatabaseURL; the copy is dropped at the
// end of the test. The service started on it distributes it.
func Move(t testing.TB, from *Env, to Backend) string {
	t.Helper()
	src, err := url.Parse(from.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	schema := src.Query().Get("search_path")
	if schema == "" {
		t.Fatalf("%s has no schema of its own to move", from.DatabaseURL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dump := filepath.Join(t.TempDir(), "dump.sql")
	run(ctx, t, "pg_dump", "--schema="+schema, "--no-owner", "--no-privileges", "--file="+dump, "--dbname="+libpqURL(t, from.Backend.URL))
	run(ctx, t, "psql", "--quiet", "--no-psqlrc", "--set=ON_ERROR_STOP=1", "--file="+dump, "--dbname="+libpqURL(t, to.URL))
	t.Cleanup(func() {
		db, err := sql.Open("pgx", to.URL)
		if err != nil {
			return
		}
		defer db.Close()
		db.Exec("DROP SCHEMA " + schema + " CASCADE")
	})
	dst, err := url.Parse(to.URL)
	if err != nil {
		t.Fatal(err)
	}
	q := dst.Query()
	q.Set("search_path", schema)
	q.Set("citus.multi_task_query_log_level", "error")
	dst.RawQuery = q.Encode()
	return dst.String()
}

// libpqURL is u without the parameters libpq does not know (pgx's runtime
// settings).
func libpqURL(t testing.TB, u string) string {
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	q := url.Values{}
	if v := p.Query().Get("sslmode"); v != "" {
		q.Set("sslmode", v)
	}
	p.RawQuery = q.Encode()
	return p.String()
}

func run(ctx context.Context, t testing.TB, name string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
}
