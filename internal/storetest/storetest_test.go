package storetest_test

import (
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/sqlstore"
	"github.com/paydhq/payd/internal/storetest"
)

// TestSQLStore runs the suite on sqlstore for every configured backend:
// SQLite always, PostgreSQL when PAYD_TEST_DATABASE_URL is set.
func TestSQLStore(t *testing.T) {
	for _, b := range paydtest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			storetest.Run(t, func(t *testing.T) payd.Store {
				t.Helper()
				s, err := sqlstore.Open(t.Context(), b.DatabaseURL(t), t.TempDir())
				if err != nil {
					t.Fatalf("open %s: %v", b.Name, err)
				}
				t.Cleanup(func() { s.Close() })
				if _, err := s.Migrate(t.Context()); err != nil {
					t.Fatalf("migrate %s: %v", b.Name, err)
				}
				return s
			})
		})
	}
}
