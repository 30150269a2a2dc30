package sqlstore

import "context"

// MigrateTo applies the migrations up to version last, for tests of a
// migration on data of the schema before it.
func (s *Store) MigrateTo(ctx context.Context, last int) ([]string, error) {
	return s.migrateTo(ctx, last)
}
