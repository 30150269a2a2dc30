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

// A jump of the test clock asks for each periodic kind, but an hourly
// kind gets one waiting run however many jumps come before a worker takes
// it: a run waiting reads the clock when it starts, so it covers every
// jump before it. A sweep gets one per period it is asked in (each jump
// here is a period of its own), and asking again within a period adds
// nothing. The queue here is never started, so nothing is taken between
// the jumps.
func TestRunPeriodicNowKeepsOneWaitingRun(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := context.Background()
		store, clock, q := idleQueue(t, b)
		const jumps = 3
		for range jumps {
			// Each jump lands just past the start of an hour, which
			// starts a period of every sweep: the wall clock runs on
			// between the two asks, and asks on either side of a
			// period's end would rightly get two runs.
			next := clock.Now().Add(time.Hour)
			clock.Advance(time.Hour + next.Truncate(time.Hour).Add(time.Hour).Sub(next) + 10*time.Millisecond)
			for range 2 {
				if err := q.RunPeriodicNow(ctx); err != nil {
					t.Fatal(err)
				}
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
		for kind, sweep := range jobs.PeriodicKinds() {
			want := map[bool]int{false: 1, true: jumps}[sweep]
			if got[kind] != want {
				t.Errorf("%s: %d runs waiting after %d jumps, asked twice after each; want %d", kind, got[kind], jumps, want)
			}
		}
		if len(got) != len(jobs.PeriodicKinds()) {
			t.Errorf("waiting runs by kind = %v, want runs of each periodic kind only", got)
		}
	})
}

// A run in flight keeps an hourly kind's place too: while one runs, the
// schedule and the clock's jumps add no other. Stats then shows each kind
// on the periodic queue, the running one as running, and how long the
// waiting ones have been due. The kinds' locks keep two runs from working
// at once.
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
		clock.Advance(time.Hour)
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
		var waiting int64
		for kind, sweep := range jobs.PeriodicKinds() {
			k := kinds[kind]
			waiting += k.Waiting
			want := jobs.KindStats{Kind: kind, Waiting: 1}
			switch {
			case kind == "settlement_run":
				want = jobs.KindStats{Kind: kind, Running: 1}
			case sweep:
				// Asked in two of its periods, an hour apart (a sweep's
				// place is per period).
				want.Waiting = 2
			}
			if k.Waiting != want.Waiting || k.Running != want.Running || k.Retrying != 0 || k.Scheduled != 0 {
				t.Errorf("%s: %+v, want %d waiting and %d running", kind, k, want.Waiting, want.Running)
			}
			// Asked for before the hour's jump, so due an hour ago.
			if want.Waiting > 0 && (k.OldestWaiting < time.Hour || k.OldestWaiting > time.Hour+time.Minute) {
				t.Errorf("%s: oldest waiting %v, want about an hour", kind, k.OldestWaiting)
			}
		}
		var periodic map[string]int64
		for _, qs := range st.Queues {
			if qs.Queue == "periodic" {
				periodic = qs.Jobs
			}
		}
		if periodic["available"] != waiting || periodic["running"] != 1 {
			t.Errorf("the periodic queue holds %v, want the kinds' %d waiting and 1 running", periodic, waiting)
		}
		// Two runs of a kind never work at once, on one instance or
		// across them: the second finds the kind's lock taken.
		unlock, ok, err := q.LockKind(ctx, "settlement_run")
		if err != nil || !ok {
			t.Fatalf("the first lock of a kind: %v, %v", ok, err)
		}
		if _, again, err := q.LockKind(ctx, "settlement_run"); err != nil || again {
			t.Errorf("a second lock of a held kind: %v, %v; want refused", again, err)
		}
		if other, ok, err := q.LockKind(ctx, "purge_events"); err != nil || !ok {
			t.Errorf("the lock of another kind: %v, %v; want taken", ok, err)
		} else {
			other()
		}
		unlock()
		if again, ok, err := q.LockKind(ctx, "settlement_run"); err != nil || !ok {
			t.Errorf("the lock of a kind after its unlock: %v, %v; want taken", ok, err)
		} else {
			again()
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
