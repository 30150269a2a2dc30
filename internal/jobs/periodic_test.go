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
		store, clock, q := idleQueue(t, b)
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

// A run in flight keeps its kind's place too: while one runs, the
// schedule and the clock's jumps add no other, so no kind ever has two
// runs at once. Stats then shows each kind on the periodic queue, the
// running one as running, and how long the waiting ones have been due.
func TestPeriodicRunningRunKeepsItsPlace(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := context.Background()
		store, clock, q := idleQueue(t, b)
		if err := q.RunPeriodicNow(ctx); err != nil {
			t.Fatal(err)
		}
		// As a worker takes it: the settlement run is running.
		if _, err := store.DB().ExecContext(ctx, `UPDATE river_job SET state = 'running', attempt = 1 WHERE kind = 'settlement_run'`); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
		if err := q.RunPeriodicNow(ctx); err != nil {
			t.Fatal(err)
		}
		st, err := q.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]jobs.KindStats{}
		for _, k := range st.Kinds {
			kinds[k.Kind] = k
		}
		for kind := range jobs.PeriodicKinds() {
			k := kinds[kind]
			want := jobs.KindStats{Kind: kind, Waiting: 1}
			if kind == "settlement_run" {
				want = jobs.KindStats{Kind: kind, Running: 1}
			}
			if k.Waiting != want.Waiting || k.Running != want.Running || k.Retrying != 0 || k.Scheduled != 0 {
				t.Errorf("%s: %+v, want %d waiting and %d running", kind, k, want.Waiting, want.Running)
			}
			// Asked for before the minute's jump, so due a minute ago.
			if want.Waiting == 1 && (k.OldestWaiting < time.Minute || k.OldestWaiting > 2*time.Minute) {
				t.Errorf("%s: oldest waiting %v, want about a minute", kind, k.OldestWaiting)
			}
		}
		var periodic map[string]int64
		for _, qs := range st.Queues {
			if qs.Queue == "periodic" {
				periodic = qs.Jobs
			}
		}
		if n := len(jobs.PeriodicKinds()); periodic["available"] != int64(n-1) || periodic["running"] != 1 {
			t.Errorf("the periodic queue holds %v, want %d available and 1 running", periodic, n-1)
		}
	})
}

// idleQueue is a queue over a fresh migrated store of the backend, with
// every worker registered and never started: what is inserted stays where
// it is put.
func idleQueue(t *testing.T, b paydtest.Backend) (*sqlstore.Store, *payd.TestClock, *jobs.Queue) {
	t.Helper()
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
	return store, clock, q
}
