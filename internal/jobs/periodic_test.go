package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/jobs"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/serve"
	"github.com/paydhq/payd/internal/sqlstore"
)

// A jump of the test clock enqueues each periodic job once, however many
// jumps come before a worker takes it: a run waiting reads the clock when
// it starts, so it covers every jump before it. The queue here is never
// started, so nothing is taken between the jumps.
func TestRunPeriodicNowKeepsOneWaitingRun(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := context.Background()
		store, err := sqlstore.Open(ctx, b.DatabaseURL(t), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		clock := &payd.TestClock{}
		if err := serve.Migrate(ctx, store, clock); err != nil {
			t.Fatal(err)
		}
		q, err := jobs.New(store.DB(), store.Dialect(), clock, nil, jobs.Options{})
		if err != nil {
			t.Fatal(err)
		}
		q.RegisterWorkers()
		for range 3 {
			clock.Advance(time.Hour)
			if err := q.RunPeriodicNow(ctx); err != nil {
				t.Fatal(err)
			}
		}
		got := map[string]int{}
		rows, err := store.DB().Query(`SELECT kind, COUNT(*) FROM river_job WHERE state = 'available' GROUP BY kind`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var kind string
			var n int
			if err := rows.Scan(&kind, &n); err != nil {
				t.Fatal(err)
			}
			got[kind] = n
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		for kind := range jobs.PeriodicKinds() {
			if got[kind] != 1 {
				t.Errorf("%s: %d runs waiting after three jumps, want 1", kind, got[kind])
			}
		}
		if len(got) != len(jobs.PeriodicKinds()) {
			t.Errorf("waiting runs by kind = %v, want one of each periodic kind", got)
		}
	})
}
