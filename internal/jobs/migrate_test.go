package jobs_test

import (
	"context"
	"sync"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/jobs"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/sqlstore"
)

// Instances started together on an empty PostgreSQL each migrate the job
// queue: every one of them succeeds, and River's tables are made once.
func TestMigrateTogetherOnAnEmptyDatabase(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		if b.URL == "" {
			t.Skip("a SQLite database is served by one process (docs/operations.md)")
		}
		ctx := context.Background()
		url := b.DatabaseURL(t)
		const instances = 4
		queues := make([]*jobs.Queue, instances)
		for i := range queues {
			store, err := sqlstore.Open(ctx, url, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { store.Close() })
			if i == 0 {
				if _, err := store.Migrate(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if queues[i], err = jobs.New(store.DB(), store.Dialect(), &payd.TestClock{}, nil, jobs.Options{}); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		for i, q := range queues {
			wg.Go(func() {
				if err := q.Migrate(ctx); err != nil {
					t.Errorf("instance %d: %v", i, err)
				}
			})
		}
		wg.Wait()
	})
}
