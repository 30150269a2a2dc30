package paydtest_test

import (
	"database/sql"
	"net/url"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/paydhq/payd/internal/paydtest"
)

func TestMain(m *testing.M) { os.Exit(paydtest.Main(m)) }

// A schema a test leaves goes to the next test emptied, with its records
// of applied migrations kept; one whose structure the test changed is
// dropped, and the next test gets a fresh one.
func TestSharedSchemas(t *testing.T) {
	for _, b := range paydtest.Backends(t) {
		if b.URL == "" {
			continue
		}
		t.Run(b.Name, func(t *testing.T) {
			var first string
			t.Run("fresh", func(t *testing.T) {
				db, schema, migrated := open(t, b)
				first = schema
				mustExec(t, db, `CREATE TABLE payd_migrations (version TEXT PRIMARY KEY)`,
					`CREATE TABLE items (id TEXT PRIMARY KEY)`, `INSERT INTO payd_migrations VALUES ('0001')`)
				migrated()
				mustExec(t, db, `INSERT INTO items VALUES ('a'), ('b')`)
			})
			t.Run("shared", func(t *testing.T) {
				db, schema, migrated := open(t, b)
				migrated()
				if schema != first {
					t.Fatalf("schema %s, want the emptied %s", schema, first)
				}
				if n := count(t, db, "items"); n != 0 {
					t.Errorf("%d rows left in items, want none", n)
				}
				if n := count(t, db, "payd_migrations"); n != 1 {
					t.Errorf("%d migration records, want the 1 kept", n)
				}
				mustExec(t, db, `ALTER TABLE items ADD COLUMN note TEXT`)
			})
			t.Run("changed schema dropped", func(t *testing.T) {
				db, schema, _ := open(t, b)
				if schema == first {
					t.Fatalf("got back schema %s, whose structure the last test changed", schema)
				}
				var exists bool
				if err := db.QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, first).Scan(&exists); err != nil {
					t.Fatal(err)
				}
				if exists {
					t.Errorf("schema %s still exists", first)
				}
			})
		})
	}
}

func open(t *testing.T, b paydtest.Backend) (*sql.DB, string, func()) {
	t.Helper()
	raw, migrated := b.MigratedDatabaseURL(t, "pool test")
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", raw)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, u.Query().Get("search_path"), migrated
}

func mustExec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func count(t *testing.T, db *sql.DB, table string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
