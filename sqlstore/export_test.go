package sqlstore

import (
	"context"
	"slices"
)

// MigrateTo applies the migrations up to version last, for tests of a
// migration on data of the schema before it.
func (s *Store) MigrateTo(ctx context.Context, last int) ([]string, error) {
	return s.migrateTo(ctx, last)
}

// MigrateOnly applies just the given migrations, as a database that ran a
// branch's later migration before an earlier one landed would have them.
func (s *Store) MigrateOnly(ctx context.Context, versions ...int) ([]string, error) {
	return s.migrateWhere(ctx, func(v int) bool { return slices.Contains(versions, v) })
}

// LatestVersion is the number of the newest migration.
func LatestVersion() int { return latestVersion() }

// Exec runs a statement on the store's database behind its back, for
// tests of rows an earlier build wrote.
func (s *Store) Exec(ctx context.Context, query string, args ...any) error {
	_, err := s.db.ExecContext(ctx, query, args...)
	return err
}
