package paydtest

import (
	"bytes"
	"database/sql"
	"fmt"
	"testing"
)

// DumpTables is every column of every row of every table of db (dialect
// "sqlite" or "postgres"; on PostgreSQL, the tables of the connection's
// schema), as text or bytes, NUL-separated: what a dump of the database
// holds, for tests that look for secrets in it.
func DumpTables(t testing.TB, db *sql.DB, dialect string) []byte {
	t.Helper()
	ctx := t.Context()
	q := `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
	if dialect == "sqlite" {
		q = `SELECT name FROM sqlite_master WHERE type = 'table'`
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	if len(tables) < 20 {
		t.Fatalf("DumpTables found %d tables, too few for payd's schema: %v", len(tables), tables)
	}
	// A dump reads every row of every table: on a cluster whose
	// connections refuse statements touching every shard group, it
	// lifts the refusal for its own read-only transaction.
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if dialect == "postgres" {
		if _, err := tx.ExecContext(ctx, `SELECT set_config('citus.multi_task_query_log_level', 'off', true)`); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	for _, name := range tables {
		rows, err := tx.QueryContext(ctx, `SELECT * FROM "`+name+`"`)
		if err != nil {
			t.Fatalf("dump %s: %v", name, err)
		}
		cols, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatalf("dump %s: %v", name, err)
			}
			for _, v := range vals {
				switch v := v.(type) {
				case []byte:
					out.Write(v)
				default:
					fmt.Fprint(&out, v)
				}
				out.WriteByte(0)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("dump %s: %v", name, err)
		}
		rows.Close()
	}
	return out.Bytes()
}
