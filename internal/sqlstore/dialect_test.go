package sqlstore_test

import (
	"strings"
	"testing"

	"github.com/paydhq/payd/internal/sqlstore"
)

// A migration is written for PostgreSQL; SQLite runs it translated, with
// the statements it has no equivalent for dropped (migration 0024's
// storage parameters) and every other statement kept.
func TestSQLiteDDL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ALTER TABLE payments SET (fillfactor = 70);\n", "\n"},
		{"ALTER TABLE payments SET (fillfactor = 70);\nALTER TABLE sandbox_attempts SET (fillfactor = 85);",
			"\n"},
		{"ALTER TABLE payments ADD COLUMN note TEXT;", "ALTER TABLE payments ADD COLUMN note TEXT;"},
		{"CREATE TABLE f (b BYTEA, d TEXT);\nALTER TABLE f SET (fillfactor = 90);\nCREATE INDEX f_d ON f (d);",
			"CREATE TABLE f (b BLOB, d TEXT);\n\nCREATE INDEX f_d ON f (d);"},
	} {
		if got := sqlstore.SQLiteDDL(tc.in); strings.TrimSpace(got) != strings.TrimSpace(tc.want) {
			t.Errorf("SQLiteDDL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
