package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"testing"
)

// openCached opens a one-connection SQLite pool through the statement cache
// and returns it with that connection, for looking inside the cache.
func openCached(t *testing.T) (*sql.DB, *sql.Conn) {
	t.Helper()
	db, err := openSQLite("file:"+filepath.Join(t.TempDir(), "c.db")+"?_pragma=journal_mode(WAL)", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)`); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return db, conn
}

func cacheOf(t *testing.T, conn *sql.Conn) *cachingConn {
	t.Helper()
	var cc *cachingConn
	if err := conn.Raw(func(dc any) error { cc = dc.(*cachingConn); return nil }); err != nil {
		t.Fatal(err)
	}
	return cc
}

func TestStmtCacheReusesOnePreparedStatement(t *testing.T) {
	ctx := context.Background()
	_, conn := openCached(t)
	const ins = `INSERT INTO t (id, v) VALUES (?, ?)`
	for i := 1; i <= 3; i++ {
		if _, err := conn.ExecContext(ctx, ins, i, fmt.Sprint("v", i)); err != nil {
			t.Fatal(err)
		}
	}
	cc := cacheOf(t, conn)
	el, ok := cc.texts[ins]
	if !ok {
		t.Fatal("the INSERT was not kept prepared")
	}
	first := el.Value.(*cachedStmt)
	// A failed run (a unique violation) leaves the statement usable.
	if _, err := conn.ExecContext(ctx, ins, 4, "v1"); err == nil {
		t.Fatal("duplicate v accepted")
	}
	if _, err := conn.ExecContext(ctx, ins, 4, "v4"); err != nil {
		t.Fatalf("statement unusable after a failed run: %v", err)
	}
	if cc.texts[ins].Value.(*cachedStmt) != first {
		t.Fatal("the INSERT was prepared again")
	}
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil || n != 4 {
		t.Fatalf("count %d, %v; want 4 rows", n, err)
	}
}

// A query run again while its first rows are still being read must not
// reset the statement under them.
func TestStmtCacheNestedRunsOfOneQuery(t *testing.T) {
	ctx := context.Background()
	_, conn := openCached(t)
	for i := 1; i <= 3; i++ {
		if _, err := conn.ExecContext(ctx, `INSERT INTO t (id, v) VALUES (?, ?)`, i, fmt.Sprint("v", i)); err != nil {
			t.Fatal(err)
		}
	}
	const q = `SELECT id, v FROM t WHERE id >= ? ORDER BY id`
	rows, err := conn.QueryContext(ctx, q, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var outer, inner []int64
	for rows.Next() {
		var id int64
		var v string
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		outer = append(outer, id)
		if id != 1 {
			continue
		}
		// database/sql runs nothing else on a Conn while its rows are
		// open, so the nested run goes to the driver connection itself.
		err := conn.Raw(func(dc any) error {
			r, err := dc.(*cachingConn).QueryContext(ctx, q, []driver.NamedValue{{Ordinal: 1, Value: int64(3)}})
			if err != nil {
				return err
			}
			defer r.Close()
			dest := make([]driver.Value, 2)
			for r.Next(dest) == nil {
				inner = append(inner, dest[0].(int64))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(outer, inner) != "[1 2 3] [3]" {
		t.Fatalf("outer rows %v, nested %v; want [1 2 3] and [3]", outer, inner)
	}
}

func TestStmtCacheEvictsLeastRecentlyUsed(t *testing.T) {
	ctx := context.Background()
	_, conn := openCached(t)
	const keep = `SELECT count(*) FROM t`
	var n int
	for i := 0; i < 3*stmtCacheSize; i++ {
		// keep stays recently used; the others each have their own text
		if err := conn.QueryRowContext(ctx, keep).Scan(&n); err != nil {
			t.Fatal(err)
		}
		var got int
		if err := conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT %d + ?`, i), 1).Scan(&got); err != nil || got != i+1 {
			t.Fatalf("SELECT %d + 1 = %d, %v", i, got, err)
		}
	}
	cc := cacheOf(t, conn)
	if cc.lru.Len() != stmtCacheSize || len(cc.texts) != stmtCacheSize {
		t.Fatalf("cache holds %d (%d texts), want %d", cc.lru.Len(), len(cc.texts), stmtCacheSize)
	}
	if _, ok := cc.texts[keep]; !ok {
		t.Fatal("the statement used on every round was evicted")
	}
	if _, ok := cc.texts[`SELECT 0 + ?`]; ok {
		t.Fatal("the oldest statement was kept")
	}
}

// A prepared statement follows a schema change: SQLite prepares it again.
func TestStmtCacheSeesSchemaChanges(t *testing.T) {
	ctx := context.Background()
	_, conn := openCached(t)
	const q = `SELECT * FROM t`
	cols := func() int {
		rows, err := conn.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		c, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		return len(c)
	}
	if got := cols(); got != 2 {
		t.Fatalf("%d columns, want 2", got)
	}
	if _, err := conn.ExecContext(ctx, `ALTER TABLE t ADD COLUMN w TEXT`); err != nil {
		t.Fatal(err)
	}
	if got := cols(); got != 3 {
		t.Fatalf("%d columns after ALTER TABLE, want 3", got)
	}
}
