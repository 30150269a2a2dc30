//go:build linux

package sqlstore

import (
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/pgserver"
	"github.com/paydhq/payd/money"
)

func TestFormatQuery(t *testing.T) {
	t.Parallel()
	got := formatQuery(`SELECT id FROM {table} WHERE a <= $1 AND b LIKE 'x%' AND (c, id) > ($2, $10) LIMIT $3`)
	want := `SELECT id FROM %1$s WHERE a <= %2$L AND b LIKE 'x%%' AND (c, id) > (%3$L, %11$L) LIMIT %4$L`
	if got != want {
		t.Fatalf("formatQuery:\n got  %s\n want %s", got, want)
	}
}

// A worker's rows come back as JSON arrays; Scan fills what the sweeps
// read as database/sql would.
func TestJSONRowScan(t *testing.T) {
	t.Parallel()
	var rows []jsonRow
	if err := json.Unmarshal([]byte(`[["pay_1", 1700000000000001, 7, true, null, "RUB", {"a": 1}], ["pay_2", 2, 0, false, "x", "KZT", null]]`), &rows); err != nil {
		t.Fatal(err)
	}
	var id string
	var at int64
	var key int32
	var test bool
	var opt sql.NullString
	var cur money.Currency
	var doc sql.NullString
	if err := rows[0].Scan(&id, &at, &key, &test, &opt, &cur, &doc); err != nil {
		t.Fatal(err)
	}
	if id != "pay_1" || at != 1700000000000001 || key != 7 || !test || opt.Valid || cur != "RUB" || doc.String != `{"a": 1}` {
		t.Fatalf("row 1: %q %d %d %v %+v %q %+v", id, at, key, test, opt, cur, doc)
	}
	if err := rows[1].Scan(&id, &at, &key, &test, &opt, &cur, &doc); err != nil {
		t.Fatal(err)
	}
	if id != "pay_2" || at != 2 || test || !opt.Valid || opt.String != "x" || cur != "KZT" || doc.Valid {
		t.Fatalf("row 2: %q %d %v %+v %q %+v", id, at, test, opt, cur, doc)
	}
	if err := rows[0].Scan(&id); err == nil {
		t.Fatal("7 values into 1 destination: no error")
	}
}

// A sweep's read over every shard group fails once when a worker is down,
// then reads the other workers' groups and leaves out the dead one's, and
// reads every group again once the worker is back.
func TestReadGroupsAroundAnUnreachableWorker(t *testing.T) {
	if os.Getenv("PAYD_TEST_CITUS_URL") == "" {
		t.Skip("needs Citus: make test-citus")
	}
	t.Parallel()
	ctx := t.Context()
	// Not t.TempDir: run as root, the servers run as postgres, who must
	// pass through the directory's parents.
	dir, err := os.MkdirTemp("", "payd-groups-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	c, err := pgserver.StartCitus(ctx, dir, 2, "citus.shard_count=4")
	if c != nil {
		defer c.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Coordinator.Exec(ctx, "postgres",
		`CREATE TABLE probe (merchant_key int, id text, due bigint)`,
		`SELECT create_distributed_table('probe', 'merchant_key')`,
		`INSERT INTO probe SELECT k, 'p' || lpad(k::text, 3, '0'), k FROM generate_series(1, 40) k`); err != nil {
		t.Fatal(err)
	}
	var skipped atomic.Int32
	s, err := OpenWith(ctx, c.URL(), "", Options{OnGroupsSkipped: func(table string, workers int) {
		if table == "probe" {
			skipped.Add(int32(workers))
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dead := c.Workers[1]
	var all, alive []string
	rows, err := s.DB().QueryContext(ctx, `SELECT p.id, s.nodeport FROM probe p
		JOIN citus_shards s ON s.shardid = get_shard_id_for_distribution_column('probe', p.merchant_key) ORDER BY p.due`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var port int
		if err := rows.Scan(&id, &port); err != nil {
			t.Fatal(err)
		}
		all = append(all, id)
		if port != dead.Port {
			alive = append(alive, id)
		}
	}
	rows.Close()
	if len(alive) == 0 || len(alive) == len(all) {
		t.Fatalf("%d of %d rows away from the worker to kill: the test needs both kinds", len(alive), len(all))
	}
	read := func(limit int) (ids []string, err error) {
		err = s.View(ctx, func(ptx payd.Tx) error {
			return ptx.(*tx).readGroups(ctx, groupRead{table: "probe", args: []any{int64(1000), limit},
				query: `SELECT id, due FROM {table} WHERE due <= $1 ORDER BY due, id LIMIT $2`},
				func(r rowScanner) error {
					var id string
					var due int64
					if err := r.Scan(&id, &due); err != nil {
						return err
					}
					ids = append(ids, id)
					return nil
				})
		})
		slices.Sort(ids)
		return ids, err
	}
	if got, err := read(100); err != nil || !slices.Equal(got, all) {
		t.Fatalf("every worker up: %v %v, want %v", got, err, all)
	}

	dead.Kill()
	// The coordinator's SQLSTATE 08006 for the worker is storage away: a
	// request answers 503 with Retry-After, never 500.
	var away *payd.Error
	if _, err := read(100); !errors.As(err, &away) || away.Cause != payd.CauseStorage || away.RetryAfter == 0 {
		t.Fatalf("the first read after the kill: %v, want storage unavailable with a Retry-After", err)
	}
	if !s.groups.byWorker.Load() {
		t.Fatal("after a failure to reach a worker, reads do not go by worker")
	}
	for i := range 2 {
		got, err := read(100)
		if err != nil || !slices.Equal(got, alive) {
			t.Fatalf("read %d with a worker down: %v %v, want the live worker's %v", i, got, err, alive)
		}
	}
	if n := skipped.Load(); n != 2 {
		t.Fatalf("groups skipped reported %d times, want 2", n)
	}
	// Each shard answers a page of its own (two of the four are alive),
	// among them the first of all; the caller keeps those.
	if got, _ := read(3); len(got) > 6 || !slices.Contains(got, alive[0]) || !slices.Contains(got, alive[1]) || !slices.Contains(got, alive[2]) {
		t.Fatalf("pages of 3 from the live worker: %v, want at most 6 with %v", got, alive[:3])
	}

	if err := dead.Start(); err != nil {
		t.Fatal(err)
	}
	if got, err := read(100); err != nil || !slices.Equal(got, all) {
		t.Fatalf("worker back: %v %v, want %v", got, err, all)
	}
	if s.groups.byWorker.Load() {
		t.Fatal("every worker answered, but reads still go by worker")
	}
	if got, err := read(100); err != nil || len(got) != len(all) {
		t.Fatalf("back to one statement: %d rows, %v", len(got), err)
	}
}
