package storetest_test

import (
	"os"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/seal"
	"github.com/paydhq/payd/internal/sqlstore"
	"github.com/paydhq/payd/internal/storetest"
)

// The suite's stores share emptied schemas (paydtest.Main).
func TestMain(m *testing.M) { os.Exit(paydtest.Main(m)) }

// TestSQLStore runs the suite on sqlstore for every configured backend:
// SQLite always, PostgreSQL when PAYD_TEST_DATABASE_URL is set.
func TestSQLStore(t *testing.T) {
	for _, b := range paydtest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			storetest.Run(t, func(t *testing.T) payd.Store {
				t.Helper()
				url, migrated := b.MigratedDatabaseURL(t, "store")
				s, err := sqlstore.Open(t.Context(), url, t.TempDir())
				if err != nil {
					t.Fatalf("open %s: %v", b.Name, err)
				}
				t.Cleanup(func() { s.Close() })
				if _, err := s.Migrate(t.Context()); err != nil {
					t.Fatalf("migrate %s: %v", b.Name, err)
				}
				migrated()
				return s
			})
		})
	}
}

// TestSQLStoreSealing runs the cases of sealed secrets on sqlstore for
// every configured backend, each opening its database with several
// keyrings in turn.
func TestSQLStoreSealing(t *testing.T) {
	for _, b := range paydtest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			storetest.RunSealing(t, func(t *testing.T) func(*seal.Keyring) payd.Store {
				t.Helper()
				url, dir := b.DatabaseURL(t), t.TempDir()
				migrated := false
				return func(keys *seal.Keyring) payd.Store {
					s, err := sqlstore.OpenWith(t.Context(), url, dir, sqlstore.Options{Keyring: keys})
					if err != nil {
						t.Fatalf("open %s: %v", b.Name, err)
					}
					t.Cleanup(func() { s.Close() })
					if !migrated {
						if _, err := s.Migrate(t.Context()); err != nil {
							t.Fatalf("migrate %s: %v", b.Name, err)
						}
						migrated = true
					}
					return s
				}
			})
		})
	}
}
