package api_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/jobs"
	"github.com/paydhq/payd/internal/paydtest"
)

// backgroundDrain is how long the job queue may take to drain once the
// database is itself again, in docs/operations.md's words: everything due
// is worked and no periodic run waits.
const backgroundDrain = 60 * time.Second

// TestBackgroundWorkUnderOverload stalls the database under the job
// workers while the test clock jumps by hours and days, then lets go.
// Many merchants, of which some moved money and some have payments that
// expire meanwhile; afterwards every day due has its register exactly
// once, every expired payment is canceled, no periodic kind ever had more
// than one run in flight, the queue drains within backgroundDrain, and a
// payment simulated after it all succeeds within seconds: the periodic
// work that piled up before (settlement runs on every worker, the outcome
// jobs behind them) is gone.
func TestBackgroundWorkUnderOverload(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		loc := payd.RegionRU.Location()
		// Where the jumps end (Friday) is a business day.
		toTuesdayNoon(t, env)

		const active, idle, expiring = 12, 40, 6
		var paying []*paydtest.Client
		var merchants []string
		for i := range active + idle {
			shop := env.NewShop(payd.RegionRU, "")
			env.AdminDo("PATCH", "/admin/v1/merchants/"+shop.MerchantID, map[string]any{"settlement_delay_days": 0}).Expect(t, 200)
			if i < active {
				paying = append(paying, env.As(shop, false))
				merchants = append(merchants, shop.MerchantID)
			}
		}
		var wg sync.WaitGroup
		for _, c := range paying {
			wg.Add(1)
			go func() {
				defer wg.Done()
				paidPayment(t, c, "100.00")
			}()
		}
		wg.Wait()
		soon := env.Clock.Now().Add(10 * time.Minute).UTC().Format(time.RFC3339)
		var pending []string
		for _, c := range paying[:expiring] {
			p := c.Post("/v1/payments", key(), newPayment("50.00", map[string]any{"expires_at": soon})).Expect(t, 201).JSON(t)
			pending = append(pending, p["id"].(string))
		}

		watch := watchRuns(t, env)
		release := stallDatabase(t, env)
		// Jumps by hours and days while the workers are starved: the
		// payments expire, each day's register falls due, every jump asks
		// for a run of every periodic kind.
		jumped := make(chan struct{})
		go func() {
			defer close(jumped)
			for _, d := range []time.Duration{time.Hour, 3 * time.Hour, 24 * time.Hour, 24 * time.Hour, 6 * time.Hour, 23 * time.Hour} {
				env.Clock.Advance(d)
			}
		}()
		// The stall's length, not a wait for an event: what follows is
		// asserted after the release, once the queue has drained.
		time.Sleep(5 * time.Second)
		release()
		<-jumped
		let := time.Now()
		waitLong(t, "the job queue to drain", func() bool { return queueDrained(t, env) })
		drained := time.Since(let)
		if drained > backgroundDrain {
			t.Errorf("the queue took %v to drain, more than %v", drained, backgroundDrain)
		}
		t.Logf("%s: the queue drained %v after the database came back", b.Name, drained.Round(time.Millisecond))
		// The next hourly run: a release that posted on a day while the
		// run triggered by the last jump was reading has its day
		// registered by the run after it, as the hourly schedule does.
		env.Clock.Advance(time.Hour)
		waitLong(t, "the job queue to drain after the next hour's run", func() bool { return queueDrained(t, env) })

		// Every register due is there, once: the merchants that moved
		// money have one for each day of their ledger before today, the
		// idle ones none, and no recorded day is left before today.
		today := env.Clock.Now().In(loc).Format(time.DateOnly)
		for i, c := range paying {
			var list struct {
				Items []struct {
					PeriodFrom string `json:"period_from"`
				}
			}
			c.Get("/v1/settlements?limit=100").Expect(t, 200).Decode(t, &list)
			got := map[string]int{}
			for _, it := range list.Items {
				got[it.PeriodFrom]++
			}
			want := postingDays(t, env, merchants[i], today)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("merchant %d: registers by day %v, want one for each day with postings %v", i, got, want)
			}
		}
		var left int
		if err := env.InspectDB().QueryRow(`SELECT COUNT(*) FROM settlement_days WHERE day < $1`, today).Scan(&left); err != nil || left != 0 {
			t.Errorf("%d settlement days before today left unregistered (%v)", left, err)
		}
		for i, id := range pending {
			if got := paying[i].Get("/v1/payments/"+id).Expect(t, 200).JSON(t)["status"]; got != "canceled" {
				t.Errorf("payment %s past its expires_at is %v, want canceled", id, got)
			}
		}
		for kind, n := range watch.stop(t) {
			if n > 1 {
				t.Errorf("%s: %d runs in flight at once, want at most 1", kind, n)
			}
		}
		// A payment simulated now succeeds at once: nothing queues ahead
		// of its notification.
		c := paying[0]
		p := c.Post("/v1/payments", key(), newPayment("100.00", map[string]any{"confirmation": map[string]any{"type": "qr"}})).Expect(t, 201).JSON(t)
		c.Post("/v1/test/payments/"+p["id"].(string)+"/simulate", key(), map[string]any{"outcome": "succeed"}).Expect(t, 202)
		simulated := time.Now()
		c.WaitStatus(p["id"].(string), "succeeded")
		t.Logf("%s: a payment simulated after the overload succeeded in %v", b.Name, time.Since(simulated).Round(time.Millisecond))
		checkLedger(t, env)
	})
}

// stallDatabase holds the database still under the service until release
// is called: on PostgreSQL an exclusive lock on the merchants, which every
// posting, register and expiry waits for; on SQLite the write lock, which
// every write waits for (well inside the store's busy timeout).
func stallDatabase(t *testing.T, env *paydtest.Env) (release func()) {
	t.Helper()
	ctx := context.Background()
	var db *sql.DB
	var err error
	if env.Backend.URL == "" {
		// BEGIN IMMEDIATE: the write lock from the start.
		db, err = sql.Open("sqlite", "file:"+filepath.Join(env.DataDir, "payd.db")+"?_pragma=busy_timeout(10000)&_txlock=immediate")
	} else {
		db, err = sql.Open("pgx", env.DatabaseURL)
	}
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err == nil && env.Backend.URL != "" {
		_, err = tx.ExecContext(ctx, "LOCK TABLE merchants IN ACCESS EXCLUSIVE MODE")
	}
	if err != nil {
		t.Fatalf("stall the database: %v", err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			tx.Rollback()
			db.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// runWatch samples the periodic runs in flight, in the jobs table (what
// every instance sees; hourly kinds) and in the service's own count of
// runs working (every kind), and keeps the most of each kind seen at once.
type runWatch struct {
	mu     sync.Mutex
	most   map[string]int64
	failed error
	done   chan struct{}
	wg     sync.WaitGroup
}

func watchRuns(t *testing.T, env *paydtest.Env) *runWatch {
	t.Helper()
	w := &runWatch{most: map[string]int64{}, done: make(chan struct{})}
	db := env.InspectDB()
	if env.Backend.URL == "" {
		// A reader of its own: the store's one connection waits with the
		// workers while the database is held.
		var err error
		if db, err = sql.Open("sqlite", "file:"+filepath.Join(env.DataDir, "payd.db")+"?_pragma=busy_timeout(10000)&_pragma=query_only(1)"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
	}
	periodic := jobs.PeriodicKinds()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for {
			select {
			case <-w.done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			seen := map[string]int64{}
			rows, err := db.Query(`SELECT kind, COUNT(*) FROM river_job WHERE state = 'running' GROUP BY kind`)
			if err != nil {
				w.mu.Lock()
				w.failed = err
				w.mu.Unlock()
			} else {
				for rows.Next() {
					var kind string
					var n int64
					// A sweep's run of a later period may show running
					// for the moment it takes to find the earlier one
					// working and end: for sweeps the process's count
					// of runs working (below) is the measure.
					if rows.Scan(&kind, &n) != nil {
						continue
					}
					if sweep, ok := periodic[kind]; ok && !sweep {
						seen[kind] = n
					}
				}
				rows.Close()
			}
			for kind, n := range env.Instance.Queue.Running() {
				seen[kind+" (in process)"] = n
			}
			w.mu.Lock()
			for kind, n := range seen {
				w.most[kind] = max(w.most[kind], n)
			}
			w.mu.Unlock()
		}
	}()
	return w
}

// stop ends the sampling and returns the most runs of each kind seen in
// flight at once. A watch that could not read, or saw no run at all,
// proves nothing and fails the test.
func (w *runWatch) stop(t *testing.T) map[string]int64 {
	t.Helper()
	close(w.done)
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed != nil {
		t.Errorf("reading the runs in flight: %v", w.failed)
	}
	if len(w.most) == 0 {
		t.Error("no periodic run was ever seen in flight: the watch saw nothing")
	}
	t.Logf("the most periodic runs seen in flight at once: %v", w.most)
	return w.most
}

// queueDrained reports whether no job is due and waiting, running or
// retrying: what is left is scheduled for later (releases, the next
// periodic runs).
func queueDrained(t *testing.T, env *paydtest.Env) bool {
	t.Helper()
	var n int
	if err := env.InspectDB().QueryRow(`SELECT COUNT(*) FROM river_job
		WHERE state IN ('available', 'running', 'retryable', 'pending')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 0
}

// postingDays counts, for each day of the Moscow calendar before today on
// which the merchant's test RUB ledger moved, one register: what the
// scheduled run must have formed with settlement_delay_days 0.
func postingDays(t *testing.T, env *paydtest.Env, merchantID, today string) map[string]int {
	t.Helper()
	rows, err := env.InspectDB().Query(`SELECT DISTINCT at FROM ledger_postings WHERE owner = $1 AND test AND currency = 'RUB'`, merchantID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var at int64
		if err := rows.Scan(&at); err != nil {
			t.Fatal(err)
		}
		if d := time.UnixMicro(at).In(payd.RegionRU.Location()).Format(time.DateOnly); d < today {
			out[d] = 1
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
