package sqlstore_test

import (
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/sqlstore"
)

// TestBulkCommitsUnflushed: a bulk transaction (payd.WithBulk, a sandbox
// reset's batch) commits without waiting for its flush, and every other
// transaction waits for its own, the next one after a bulk transaction on
// the same connection included.
func TestBulkCommitsUnflushed(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		s := openUnmigrated(t, b)
		if _, err := s.Migrate(t.Context()); err != nil {
			t.Fatal(err)
		}
		flushed, unflushed := "2", "1" // FULL, NORMAL
		if b.Name != "sqlite" {
			flushed, unflushed = "on", "off"
		}
		for i, bulk := range []bool{false, true, false, true, true, false} {
			ctx := t.Context()
			want := flushed
			if bulk {
				ctx, want = payd.WithBulk(ctx), unflushed
			}
			var got string
			if err := s.Tx(ctx, func(tx payd.Tx) (err error) {
				got, err = sqlstore.Synchronous(ctx, tx)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("transaction %d (bulk %v) flushes as %q, want %q", i, bulk, got, want)
			}
		}
	})
}
