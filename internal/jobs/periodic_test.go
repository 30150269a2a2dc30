package jobs

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/paydhq/payd"
)

// A jump of the test clock enqueues each periodic job once, however many
// jumps come before a worker takes it: a run waiting reads the clock when
// it starts, so it covers every jump before it. The queue here is never
// started, so nothing is taken between the jumps.
func TestRunPeriodicNowKeepsOneWaitingRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "jobs.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	clock := &payd.TestClock{}
	q, err := New(db, "sqlite", clock, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	registerWorkers(q.workers, nil) // an insert checks its kind is known
	if err := q.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		clock.Advance(time.Hour)
		if err := q.RunPeriodicNow(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]int{}
	rows, err := db.Query(`SELECT kind, COUNT(*) FROM river_job WHERE state = 'available' GROUP BY kind`)
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
	for kind := range PeriodicKinds() {
		if got[kind] != 1 {
			t.Errorf("%s: %d runs waiting after three jumps, want 1", kind, got[kind])
		}
	}
	if len(got) != len(PeriodicKinds()) {
		t.Errorf("waiting runs by kind = %v, want one of each periodic kind", got)
	}
}
