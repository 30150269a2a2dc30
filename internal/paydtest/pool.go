package paydtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// A test's database on PostgreSQL is a schema of its own. A fresh one
// costs its migrations, and on a Citus cluster the distribution of every
// table onto the workers besides: seconds a test there, most of the
// merchant API suite's time (the package took 851 s on a cluster with
// fresh schemas, 346 s with shared ones; on PostgreSQL 237 s and 163 s).
// A package whose TestMain runs Main shares its migrated schemas instead,
// as riverdbtest does: at the end of a test its schema is emptied, every
// table but the records of applied migrations, and the next test starts
// on it as on a fresh one (its sequences go on from where the last test
// left them, as they may in any database). A schema whose structure the
// test changed (its relations, columns, constraints or indexes differ
// from what the migrations made) is dropped, not shared; so is one that
// could not be emptied within seconds (a connection left holding a lock).
// Main drops the shared schemas when the package's tests end.
var pool struct {
	sync.Mutex
	// free holds the emptied schemas and shape what the migrations make,
	// both per backend URL and set of migrations; free is nil outside Main.
	free  map[poolKey][]string
	shape map[poolKey]migratedShape
}

// migratedShape is what a set of migrations makes, read of a fresh schema
// just after they ran: its structure, and the statement that empties it.
type migratedShape struct {
	structure, truncate string
}

// poolKey is a backend URL and the migrations a schema has: the store's
// alone, or the service's (the store's and the job queue's).
type poolKey struct{ url, migrations string }

// keptTables keep their rows when a schema is emptied: they record which
// migrations the schema has (payd's and the job queue's).
var keptTables = []string{"payd_migrations", "river_migration"}

// Main runs a package's tests with shared schemas and drops them after:
//
//	func TestMain(m *testing.M) { os.Exit(paydtest.Main(m)) }
func Main(m *testing.M) int {
	pool.Lock()
	pool.free, pool.shape = map[poolKey][]string{}, map[poolKey]migratedShape{}
	pool.Unlock()
	code := m.Run()
	pool.Lock()
	free := pool.free
	pool.free = nil
	pool.Unlock()
	for k, schemas := range free {
		for _, s := range schemas {
			if err := dropSchema(k.url, s); err != nil {
				fmt.Fprintf(os.Stderr, "paydtest: drop the shared schema %s: %v\n", s, err)
			}
		}
	}
	return code
}

// MigratedDatabaseURL is DatabaseURL for a test that migrates its
// database with the named set of migrations ("store": the store's alone)
// and changes none of its structure. In a package that shares schemas
// (Main) the schema may be one an earlier test left, emptied; the test
// calls migrated once its migrations have run, so that a fresh schema's
// structure becomes the one every shared schema must keep.
func (b Backend) MigratedDatabaseURL(t testing.TB, migrations string) (url string, migrated func()) {
	pool.Lock()
	on := pool.free != nil && b.URL != ""
	l := &lease{b: b, key: poolKey{b.URL, migrations}}
	if free := pool.free[l.key]; on && len(free) > 0 {
		l.schema, pool.free[l.key] = free[len(free)-1], free[:len(free)-1]
	}
	pool.Unlock()
	if !on {
		return b.DatabaseURL(t), func() {}
	}
	if l.schema == "" {
		l.fresh = true
		l.schema = b.createSchema(t)
	}
	// Registered before the cleanups of what the test opens on it, so it
	// runs after they have closed.
	t.Cleanup(l.giveBack)
	return b.schemaURL(t, l.schema), func() { l.migrated(t) }
}

// lease is a test's shared schema.
type lease struct {
	b      Backend
	key    poolKey
	schema string
	fresh  bool
}

// migrated records what the migrations made of a fresh schema.
func (l *lease) migrated(t testing.TB) {
	pool.Lock()
	_, known := pool.shape[l.key]
	pool.Unlock()
	if !l.fresh || known {
		return
	}
	var shape migratedShape
	if err := withDB(l.b.URL, func(ctx context.Context, db *sql.DB) (err error) {
		if shape.structure, err = structure(ctx, db, l.schema); err == nil {
			shape.truncate, err = truncation(ctx, db, l.schema)
		}
		return err
	}); err != nil {
		t.Fatalf("read the migrated schema: %v", err)
	}
	pool.Lock()
	if _, known := pool.shape[l.key]; !known {
		pool.shape[l.key] = shape
	}
	pool.Unlock()
}

// giveBack empties the schema and returns it to the pool, or drops it.
func (l *lease) giveBack() {
	withDB(l.b.URL, func(ctx context.Context, db *sql.DB) error {
		pool.Lock()
		want, known := pool.shape[l.key]
		pool.Unlock()
		shared := false
		if known {
			got, err := structure(ctx, db, l.schema)
			shared = err == nil && got == want.structure && empty(ctx, db, l.schema, want.truncate) == nil
		}
		pool.Lock()
		if shared = shared && pool.free != nil; shared {
			pool.free[l.key] = append(pool.free[l.key], l.schema)
		}
		pool.Unlock()
		if !shared {
			_, err := db.ExecContext(ctx, "DROP SCHEMA "+l.schema+" CASCADE")
			return err
		}
		return nil
	})
}

// dropSchema drops a test's schema.
func dropSchema(base, schema string) error {
	return withDB(base, func(ctx context.Context, db *sql.DB) error {
		_, err := db.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE")
		return err
	})
}

// truncation is the statement that deletes every row of the schema's
// tables but the migration records, naming them unqualified.
func truncation(ctx context.Context, db *sql.DB, schema string) (string, error) {
	var list string
	err := db.QueryRowContext(ctx, `SELECT string_agg(quote_ident(relname), ', ' ORDER BY relname) FROM pg_class
		WHERE relnamespace = $1::regnamespace AND relkind IN ('r', 'p') AND relname <> ALL ($2)`,
		schema, "{"+strings.Join(keptTables, ",")+"}").Scan(&list)
	return "TRUNCATE " + list, err
}

// empty runs truncate in the schema, in one transaction that waits at
// most a few seconds for a lock.
func empty(ctx context.Context, db *sql.DB, schema, truncate string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, q := range []string{"SET LOCAL lock_timeout = '5s'", "SET LOCAL search_path = " + schema, truncate} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// structure describes the schema's structure: its relations with their
// columns, its constraints and its indexes' definitions, with the
// schema's own name taken out. Constraints are those of its tables: on a
// Citus coordinator those of the shards it holds, which it hides from
// pg_class, would name the shards.
func structure(ctx context.Context, db *sql.DB, schema string) (string, error) {
	var text string
	err := db.QueryRowContext(ctx, structureQuery, schema).Scan(&text)
	return text, err
}

const structureQuery = `SELECT coalesce(string_agg(replace(d, $1 || '.', ''), E'\n' ORDER BY d), '') FROM (
		SELECT c.relkind::text || ' ' || c.relname || ' ' || coalesce((SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
			|| CASE WHEN a.attnotnull THEN ' not null' ELSE '' END, ', ' ORDER BY a.attnum)
			FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '') AS d
		FROM pg_class c WHERE c.relnamespace = $1::regnamespace
		UNION ALL
		SELECT 'constraint ' || k.conname || ' ' || pg_get_constraintdef(k.oid) FROM pg_constraint k
		JOIN pg_class c ON c.oid = k.conrelid WHERE c.relnamespace = $1::regnamespace
		UNION ALL
		SELECT 'index ' || pg_get_indexdef(indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE c.relnamespace = $1::regnamespace) s`

// createSchema creates a fresh schema on the backend, empty.
func (b Backend) createSchema(t testing.TB) string {
	schema := newSchemaName()
	if err := withDB(b.URL, func(ctx context.Context, db *sql.DB) error {
		_, err := db.ExecContext(ctx, "CREATE SCHEMA "+schema)
		return err
	}); err != nil {
		t.Fatalf("PostgreSQL at PAYD_TEST_DATABASE_URL is required but unusable: %v", err)
	}
	return schema
}

// newSchemaName names a test's schema.
func newSchemaName() string {
	raw := make([]byte, 6)
	rand.Read(raw)
	return "t_" + hex.EncodeToString(raw)
}

// schemaURL is the backend's URL with schema first on the search path.
func (b Backend) schemaURL(t testing.TB, schema string) string {
	u, err := url.Parse(b.URL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	if b.Name == "citus" {
		// Merchant work must name its shard group: a statement that
		// would read or write every group fails, unless the store runs
		// it as one of its named operator-wide statements
		// (sqlstore/fanout.go).
		q.Set("citus.multi_task_query_log_level", "error")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// withDB runs fn on a short-lived pool of the database at base, bounded
// to half a minute.
func withDB(base string, fn func(ctx context.Context, db *sql.DB) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := sql.Open("pgx", base)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(ctx, db)
}
