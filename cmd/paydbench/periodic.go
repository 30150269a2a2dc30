package main

// The periodic mode (--periodic-merchants) measures one hour of payd's
// periodic background work, in this process, at several numbers of
// merchants of which a fixed 1,000 moved money yesterday and the rest are
// idle. Its point is that the work follows what is due and the active
// merchants, never the idle ones: the hour's totals at 10^4 and at 10^5
// merchants should be about equal, and a kind whose figures grow with the
// merchants is a finding.
//
// Every periodic kind of the job queue (periodics in
// internal/jobs/kinds.go) runs as often as it runs in an hour — the
// 5-second sweeps 720 times, the evidence sweep 4, the hourly kinds once —
// by calling its service method directly, without the queue. The
// settlement run goes twice: the first registers the days that fell due
// (the first run of a business day), the second is the steady state of
// the day's other hours, with nothing due.
//
// Measured per kind: wall time, this process's CPU time (getrusage), the
// store's transactions and read views and the statements it sends, and on
// PostgreSQL the scans and tuples of the store's own tables
// (pg_stat_user_tables of its schema) and the CPU time of the store's
// backends (/proc). pg_stat_database's transactions are not used: they
// are the whole database's, and other clients' (a test suite's schemas)
// fall into them.

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/internal/serve"
	"github.com/paydhq/payd/internal/sqlstore"
	"github.com/paydhq/payd/money"
)

// periodicActive is how many merchants moved money yesterday, at every
// size (all of them at a smaller size): 1 % of 10^5.
const periodicActive = 1000

// periodicSeedBatch is how many merchants one seeding transaction inserts.
const periodicSeedBatch = 1000

// periodicKindBudget bounds the repetitions of one kind: a kind that
// takes longer is measured on the runs made by then (at least one).
const periodicKindBudget = 20 * time.Second

// periodicKind is a periodic job kind: its name, its period, and the
// service call its worker makes (registerWorkers in internal/jobs).
type periodicKind struct {
	name  string
	every time.Duration
	run   func(services, context.Context) error
}

// services are what the periodic workers call: the domain, and the
// accounts for the purge of sessions and sign-in guards.
type services struct {
	svc *payd.Service
	acc *account.Service
}

// periodicKinds mirrors periodics() of internal/jobs, in its order
// (unexported there; a test checks the names). The evidence sweep's 15
// minutes is evidenceSweepInterval there.
func periodicKinds() []periodicKind {
	return []periodicKind{
		{"expire_payments", payd.ExpirySweepInterval, discard((*payd.Service).ExpireDuePayments)},
		{"expire_disputes", payd.ExpirySweepInterval, discard((*payd.Service).ExpireDueDisputes)},
		{"expire_payment_links", payd.ExpirySweepInterval, discard((*payd.Service).ExpireDueLinks)},
		{"remove_expired_evidence", 15 * time.Minute, discard((*payd.Service).RemoveExpiredEvidence)},
		{"payment_views_refresh", time.Hour, discard((*payd.Service).RefreshPaymentViews)},
		{"purge_events", time.Hour, discard((*payd.Service).PurgeEvents)},
		{"purge_idempotency", time.Hour, func(s services, ctx context.Context) error {
			if _, err := s.svc.PurgeIdempotency(ctx); err != nil {
				return err
			}
			if _, err := s.acc.PurgeSessions(ctx); err != nil {
				return err
			}
			_, err := s.acc.PurgeSignInGuards(ctx)
			return err
		}},
		{"settlement_run", time.Hour, func(s services, ctx context.Context) error { return s.svc.RunSettlements(ctx) }},
		{"fold_ledger_totals", time.Hour, discard((*payd.Service).FoldLedgerTotals)},
		{"reseal_secrets", time.Hour, discard((*payd.Service).ResealSecrets)},
		{"ledger_check", 24 * time.Hour, discard((*payd.Service).CheckLedger)},
	}
}

func discard[T any](f func(*payd.Service, context.Context) (T, error)) func(services, context.Context) error {
	return func(s services, ctx context.Context) error {
		_, err := f(s.svc, ctx)
		return err
	}
}

// secondSettlementRun names the row of the settlement run's second run.
const secondSettlementRun = "settlement_run (again)"

// parseCounts reads a comma-separated list of counts 1..max.
func parseCounts(flagName, s string, max int) ([]int, error) {
	var out []int
	for _, p := range splitList(s) {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > max {
			return nil, fmt.Errorf("--%s: %q is not a count 1..%d", flagName, p, max)
		}
		out = append(out, n)
	}
	return out, nil
}

// periodicRow is one kind's measurement: totals over its runs.
type periodicRow struct {
	kind      string
	hourly    int // runs an hour
	runs      int // runs measured
	wall, cpu time.Duration
	// txs are the store's transactions (Tx, Snapshot), views its
	// read-only View calls, stmts the statements it sent.
	txs, views, stmts int64
	pg                *pgDelta // nil on SQLite
}

// pgDelta is what PostgreSQL's statistics of the schema's tables and
// the backends' CPU time moved by: sequential scans, the tuples they read,
// the tuples index scans fetched, and the tuples inserted, updated or
// deleted.
type pgDelta struct {
	pgCounters
	cpuMs float64
}

type pgCounters struct {
	seqScans, seqRead, idxFetched, written int64
}

// runsPerHour is how often a kind of period every runs in an hour.
func runsPerHour(every time.Duration) int { return int(time.Hour / every) }

// perRun and perHour scale a total over the measured runs.
func (r periodicRow) perRun(total float64) float64  { return total / float64(r.runs) }
func (r periodicRow) perHour(total float64) float64 { return r.perRun(total) * float64(r.hourly) }

// hourTotals are one hour's figures summed over the kinds.
type hourTotals struct {
	wallMs, cpuMs, txs, views, stmts, read, written, dbCPUMs float64
}

// hour sums the rows' per-hour figures, leaving out the row named skip.
func hour(rows []periodicRow, skip string) hourTotals {
	var t hourTotals
	for _, r := range rows {
		if r.kind == skip {
			continue
		}
		t.wallMs += r.perHour(ms(r.wall))
		t.cpuMs += r.perHour(ms(r.cpu))
		t.txs += r.perHour(float64(r.txs))
		t.views += r.perHour(float64(r.views))
		t.stmts += r.perHour(float64(r.stmts))
		if r.pg != nil {
			t.read += r.perHour(float64(r.pg.seqRead + r.pg.idxFetched))
			t.written += r.perHour(float64(r.pg.written))
			t.dbCPUMs += r.perHour(r.pg.cpuMs)
		}
	}
	return t
}

// periodicResult is the measurement at one number of merchants.
type periodicResult struct {
	database          string
	merchants, active int
	seed              time.Duration
	day               string // the seeded day, Moscow
	daysBefore        int    // settlement days recorded before the first run
	daysAfter         int    // and after it
	rows              []periodicRow
}

// runPeriodic measures every size in turn and prints a table per size
// and the comparison of the sizes.
func runPeriodic(ctx context.Context, cfg *config, out, log io.Writer) error {
	database := "sqlite"
	if cfg.databaseURLSet {
		database = "postgres"
	}
	fmt.Fprintf(out, "One hour of periodic work on %s, %d active merchants (paydbench --periodic-merchants)\n", database, periodicActive)
	var results []*periodicResult
	for _, n := range cfg.periodicMerchants {
		r, err := measurePeriodic(ctx, cfg, database, n, log)
		if err != nil {
			return fmt.Errorf("%s with %d merchants: %w", database, n, err)
		}
		writePeriodicTable(out, r)
		results = append(results, r)
	}
	writePeriodicComparison(out, results)
	return nil
}

// measurePeriodic seeds a fresh database with n merchants and measures an
// hour of periodic work on it; the database is dropped at the end.
func measurePeriodic(ctx context.Context, cfg *config, database string, n int, log io.Writer) (*periodicResult, error) {
	res := &periodicResult{database: database, merchants: n, active: min(n, periodicActive)}
	url, dir := "", ""
	var mon *pgMonitor
	if database == "postgres" {
		schema := "paydbench_periodic_" + randomHex(6)
		drop, urls, err := pgSchemas(ctx, cfg.databaseURL, schema)
		if err != nil {
			return nil, err
		}
		defer drop()
		url = urls[0]
		if mon, err = newPGMonitor(ctx, cfg.databaseURL, schema); err != nil {
			return nil, err
		}
		defer mon.db.Close()
	} else {
		var err error
		if dir, err = os.MkdirTemp(cfg.tmpDir, "paydbench-periodic-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
	}
	counter := &stmtCounter{}
	store, err := sqlstore.OpenWith(ctx, url, dir, sqlstore.Options{TracerProvider: counter})
	if err != nil {
		return nil, err
	}
	defer store.Close()
	clock := &payd.TestClock{}
	if err := serve.Migrate(ctx, store, clock); err != nil {
		return nil, err
	}
	var holidays []string
	if err := store.View(ctx, func(tx payd.Tx) (err error) {
		holidays, err = tx.HolidayList(ctx, payd.RegionRU)
		return err
	}); err != nil {
		return nil, err
	}
	noon := wednesdayNoon(clock.Now(), holidays)
	clock.Advance(noon.Sub(clock.Now()))
	at := time.Date(noon.Year(), noon.Month(), noon.Day()-1, 15, 0, 0, 0, noon.Location())
	res.day = at.Format(time.DateOnly)

	fmt.Fprintf(log, "%s: seeding %d merchants (%d active on %s) ...\n", database, n, res.active, res.day)
	started := time.Now()
	if err := seedMerchants(ctx, store, clock, n, res.active, at, log); err != nil {
		return nil, fmt.Errorf("seeding: %w", err)
	}
	res.seed = time.Since(started)
	fmt.Fprintf(log, "%s: seeded %d merchants in %.1f s\n", database, n, res.seed.Seconds())
	if mon != nil {
		// As autovacuum would have by now; and so that it does not run
		// during the measurement.
		if err := mon.vacuumAnalyze(ctx); err != nil {
			return nil, err
		}
	}
	if res.daysBefore, err = recordedDays(ctx, store); err != nil {
		return nil, err
	}

	counted := &countingStore{Store: store}
	svc := services{svc: payd.NewService(payd.Config{Store: counted, Clock: clock, Jobs: noJobs{}, ReportKey: make([]byte, 32)}),
		acc: account.New(account.Config{Store: counted, Clock: clock})}
	m := &meter{counter: counter, store: counted, mon: mon}
	prev, err := m.sample(ctx)
	if err != nil {
		return nil, err
	}
	mctx := counter.root(ctx)
	kinds := periodicKinds()
	for i := 0; i < len(kinds); i++ {
		k := kinds[i]
		fmt.Fprintf(log, "%s: %d merchants: %s ...\n", database, n, k.name)
		row := periodicRow{kind: k.name, hourly: runsPerHour(k.every)}
		t0 := time.Now()
		for row.runs == 0 || (row.runs < row.hourly && time.Since(t0) < periodicKindBudget) {
			if err := runToEnd(mctx, svc, k); err != nil {
				return nil, fmt.Errorf("%s: %w", k.name, err)
			}
			row.runs++
		}
		row.wall = time.Since(t0)
		s, err := m.sample(ctx)
		if err != nil {
			return nil, err
		}
		row.cpu, row.txs, row.views, row.stmts = s.cpu-prev.cpu, s.txs-prev.txs, s.views-prev.views, s.stmts-prev.stmts
		if mon != nil {
			row.pg = s.pgSince(prev)
		}
		prev = s
		res.rows = append(res.rows, row)
		if k.name == "settlement_run" {
			if res.daysAfter, err = recordedDays(ctx, store); err != nil {
				return nil, err
			}
			again := k
			again.name = secondSettlementRun
			kinds = append(kinds[:i+1], append([]periodicKind{again}, kinds[i+1:]...)...)
		}
	}
	return res, nil
}

// runToEnd runs a kind once: a run that stops at its budget with work
// left goes on, as its job would be run again at once.
func runToEnd(ctx context.Context, svc services, k periodicKind) error {
	err := k.run(svc, ctx)
	for err == payd.ErrWorkLeft { //nolint:errorlint // the bare sentinel: the same run goes on
		err = k.run(svc, ctx)
	}
	return err
}

// wednesdayNoon is the first Wednesday 12:00 in Moscow after now that is
// not a holiday: a business day whose yesterday is due with no delay.
func wednesdayNoon(now time.Time, holidays []string) time.Time {
	loc := payd.RegionRU.Location()
	t := now.In(loc)
	d := time.Date(t.Year(), t.Month(), t.Day(), 12, 0, 0, 0, loc)
	for !d.After(now) || d.Weekday() != time.Wednesday || slices.Contains(holidays, d.Format(time.DateOnly)) {
		d = d.AddDate(0, 0, 1)
	}
	return d
}

// seedMerchants inserts n merchants with no settlement delay, batch by
// batch, through the store as the service does. Every (n/active)th one is
// active: two captures posted at at, and the day recorded for the
// settlement run as the service's postings record it.
func seedMerchants(ctx context.Context, store payd.Store, clock payd.Clock, n, active int, at time.Time, log io.Writer) error {
	ids := payd.NewIDGen()
	every := n / active
	clearing := ledger.Account{Owner: ledger.ServiceOwner, Test: true, Currency: money.RUB, Bucket: ledger.ProviderClearing}
	day := at.Format(time.DateOnly)
	started := time.Now()
	for from := 0; from < n; from += periodicSeedBatch {
		err := store.Tx(ctx, func(tx payd.Tx) error {
			for i := from; i < min(from+periodicSeedBatch, n); i++ {
				now := clock.Now()
				m := &payd.Merchant{ID: ids.New(payd.PrefixMerchant, now), Name: fmt.Sprintf("Merchant %d", i), CreatedAt: now}
				if err := tx.MerchantInsert(ctx, m); err != nil {
					return err
				}
				if i%every != 0 || i/every >= active {
					continue
				}
				ref := fmt.Sprintf("pay_x%d", i)
				pending := ledger.Account{Owner: m.ID, Test: true, Currency: money.RUB, Bucket: ledger.Pending, Sub: ref}
				for j, amount := range []int64{12_500, 30_000} {
					t := at.Add(time.Duration(j) * time.Minute)
					e := &ledger.Entry{ID: ids.New(payd.PrefixEntry, t), At: t, Kind: ledger.KindPaymentCaptured, RefType: "payment", RefID: ref,
						Postings: ledger.Move(clearing, pending, amount)}
					if err := tx.LedgerPost(ctx, e); err != nil {
						return err
					}
				}
				if err := tx.SettlementDayMark(ctx, payd.SettlementDay{MerchantID: m.ID, Test: true, Currency: money.RUB, Day: day}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if done := from + periodicSeedBatch; done%20_000 == 0 && done < n {
			fmt.Fprintf(log, "  %d merchants in %.1f s\n", done, time.Since(started).Seconds())
		}
	}
	return nil
}

// recordedDays counts the settlement days waiting for a register.
func recordedDays(ctx context.Context, store payd.Store) (n int, err error) {
	err = store.View(ctx, func(tx payd.Tx) error {
		var after *payd.SettlementDay
		for {
			days, err := tx.SettlementDaysBefore(ctx, "9999-12-31", after, 1000)
			if err != nil || len(days) == 0 {
				return err
			}
			n += len(days)
			after = &days[len(days)-1]
		}
	})
	return n, err
}

// noJobs enqueues nothing: no periodic kind measured here enqueues a job
// (registers are not auto-settled).
type noJobs struct{}

func (noJobs) Enqueue(context.Context, payd.Tx, payd.JobArgs, time.Time) error { return nil }

// countingStore counts the service's transactions and read views.
type countingStore struct {
	payd.Store
	txs, views atomic.Int64
}

func (s *countingStore) Tx(ctx context.Context, fn func(payd.Tx) error) error {
	s.txs.Add(1)
	return s.Store.Tx(ctx, fn)
}

func (s *countingStore) Snapshot(ctx context.Context, fn func(payd.Tx) error) error {
	s.txs.Add(1)
	return s.Store.Snapshot(ctx, fn)
}

func (s *countingStore) View(ctx context.Context, fn func(payd.Tx) error) error {
	s.views.Add(1)
	return s.Store.View(ctx, fn)
}

// stmtCounter counts the statements the store sends under a context from
// root: the store's exported tracing hook (sqlstore.Options) traces only
// under a span of the caller. On PostgreSQL pgx's tracer sees each query,
// batch, prepare and connect once, so the count is of round trips (a
// batch of statements is one); on SQLite it is the driver's calls
// (statements, begins, commits).
type stmtCounter struct {
	embedded.TracerProvider
	n atomic.Int64
}

func (c *stmtCounter) Tracer(string, ...trace.TracerOption) trace.Tracer { return stmtTracer{c: c} }

type stmtTracer struct {
	embedded.Tracer
	c *stmtCounter
}

// Start counts a statement. Its span records nothing and has no context,
// so what runs under it (the queries of a batch) is not counted again.
func (t stmtTracer) Start(ctx context.Context, _ string, _ ...trace.SpanStartOption) (context.Context, trace.Span) {
	t.c.n.Add(1)
	return trace.ContextWithSpan(ctx, noop.Span{}), noop.Span{}
}

// root returns ctx under a recording span, under which the store's
// statements are counted (pgx's tracer skips non-recording parents).
func (c *stmtCounter) root(ctx context.Context) context.Context {
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled})
	return trace.ContextWithSpan(ctx, recordingSpan{trace.SpanFromContext(trace.ContextWithSpanContext(ctx, sc))})
}

type recordingSpan struct{ trace.Span }

func (recordingSpan) IsRecording() bool { return true }

// pgMonitor reads PostgreSQL's statistics on a connection of its own.
type pgMonitor struct {
	db     *sql.DB
	schema string // also the store's application_name: its backends
	// wait is how long the backends' counts take to reach
	// pg_stat_database: since PostgreSQL 15 a backend that flushed them
	// less than a second ago keeps them until it has been idle for 10 s;
	// before, the statistics collector took about half a second.
	wait time.Duration
}

func newPGMonitor(ctx context.Context, base, schema string) (*pgMonitor, error) {
	db, err := sql.Open("pgx", base)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	var version int
	if err := db.QueryRowContext(ctx, "SHOW server_version_num").Scan(&version); err != nil {
		db.Close()
		return nil, err
	}
	m := &pgMonitor{db: db, schema: schema, wait: 600 * time.Millisecond}
	if version >= 150000 {
		m.wait = 11 * time.Second
	}
	return m, nil
}

// vacuumAnalyze vacuums and analyzes the schema's tables.
func (m *pgMonitor) vacuumAnalyze(ctx context.Context) error {
	rows, err := m.db.QueryContext(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = $1`, m.schema)
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return err
		}
		names = append(names, t)
	}
	rows.Close()
	for _, t := range names {
		if _, err := m.db.ExecContext(ctx, "VACUUM (ANALYZE) "+pgx.Identifier{m.schema, t}.Sanitize()); err != nil {
			return err
		}
	}
	return nil
}

// meter takes the samples the rows are differences of.
type meter struct {
	counter *stmtCounter
	store   *countingStore
	mon     *pgMonitor
}

type periodicSample struct {
	cpu               time.Duration
	txs, views, stmts int64
	// On PostgreSQL: the statistics and the backends' CPU.
	pg       pgCounters
	backends cpuSnap
}

func (m *meter) sample(ctx context.Context) (periodicSample, error) {
	var s periodicSample
	if m.mon != nil {
		select {
		case <-time.After(m.mon.wait):
		case <-ctx.Done():
			return s, ctx.Err()
		}
		// Each statement outside a transaction reads fresh statistics:
		// the snapshot of the last one ended with its transaction.
		err := m.mon.db.QueryRowContext(ctx, `SELECT coalesce(sum(seq_scan), 0), coalesce(sum(seq_tup_read), 0),
			coalesce(sum(idx_tup_fetch), 0), coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)
			FROM pg_stat_user_tables WHERE schemaname = $1`, m.mon.schema).
			Scan(&s.pg.seqScans, &s.pg.seqRead, &s.pg.idxFetched, &s.pg.written)
		if err != nil {
			return s, err
		}
		s.backends = takeCPU(0, backendPIDs(ctx, m.mon.db, m.mon.schema))
	}
	s.cpu, s.txs, s.views, s.stmts = processCPU(), m.store.txs.Load(), m.store.views.Load(), m.counter.n.Load()
	return s, nil
}

// pgSince is what PostgreSQL did between prev and s.
func (s periodicSample) pgSince(prev periodicSample) *pgDelta {
	a, b := prev.pg, s.pg
	return &pgDelta{pgCounters{b.seqScans - a.seqScans, b.seqRead - a.seqRead, b.idxFetched - a.idxFetched, b.written - a.written},
		cpuBetween(prev.backends, s.backends, 1).DatabaseMsPerOp}
}

func writePeriodicTable(out io.Writer, r *periodicResult) {
	fmt.Fprintf(out, "\n%s, %d merchants (%d active: 2 entries each on %s), seeded in %.1f s; settlement days recorded: %d before the first settlement run, %d after\n",
		r.database, r.merchants, r.active, r.day, r.seed.Seconds(), r.daysBefore, r.daysAfter)
	pg := r.database == "postgres"
	if pg {
		fmt.Fprintln(out, "stmts are round trips; scans and tuples are of the schema's tables: seq = read by sequential scans, idx = fetched by index scans, written = inserted, updated or deleted")
	} else {
		fmt.Fprintln(out, "stmts are calls to the SQLite driver (statements, begins, commits)")
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "kind\truns/h\tmeasured\twall ms/run\tCPU ms/run\ttxs/run\tviews/run\tstmts/run\t"
	if pg {
		head += "seq scans/run\tseq tup/run\tidx tup/run\twritten/run\tdb CPU ms/run\t"
	}
	head += "CPU ms/h\t"
	if pg {
		head += "db CPU ms/h\t"
	}
	fmt.Fprintln(w, head)
	for _, row := range r.rows {
		fmt.Fprintf(w, "%s\t%d\t%d\t%.3f\t%.3f\t%.1f\t%.1f\t%.1f\t", row.kind, row.hourly, row.runs, row.perRun(ms(row.wall)),
			row.perRun(ms(row.cpu)), row.perRun(float64(row.txs)), row.perRun(float64(row.views)), row.perRun(float64(row.stmts)))
		if p := row.pg; p != nil {
			fmt.Fprintf(w, "%.1f\t%.1f\t%.1f\t%.1f\t%.2f\t", row.perRun(float64(p.seqScans)), row.perRun(float64(p.seqRead)),
				row.perRun(float64(p.idxFetched)), row.perRun(float64(p.written)), row.perRun(p.cpuMs))
		}
		fmt.Fprintf(w, "%.1f\t", row.perHour(ms(row.cpu)))
		if row.pg != nil {
			fmt.Fprintf(w, "%.1f\t", row.perHour(row.pg.cpuMs))
		}
		fmt.Fprintln(w)
	}
	w.Flush()
}

// writePeriodicComparison prints each size's hour and the ratio of the
// largest size's to the smallest's: flat is a ratio near 1.
func writePeriodicComparison(out io.Writer, results []*periodicResult) {
	if len(results) == 0 {
		return
	}
	pg := results[0].database == "postgres"
	small, large := results[0], results[0]
	for _, r := range results {
		if r.merchants < small.merchants {
			small = r
		}
		if r.merchants > large.merchants {
			large = r
		}
	}
	for _, c := range []struct{ title, skip string }{
		{"an hour with the day's registrations (first settlement run)", secondSettlementRun},
		{"a steady hour (second settlement run: nothing due)", "settlement_run"},
	} {
		fmt.Fprintf(out, "\nTotals of %s, %s:\n", c.title, results[0].database)
		w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
		head := "merchants\tactive\twall ms/h\tCPU ms/h\ttxs/h\tviews/h\tstmts/h\t"
		if pg {
			head += "tuples read/h\ttuples written/h\tdb CPU ms/h\t"
		}
		fmt.Fprintln(w, head)
		line := func(label string, t hourTotals, f string) {
			fmt.Fprintf(w, label+strings.Repeat("\t"+f, 5)+"\t", t.wallMs, t.cpuMs, t.txs, t.views, t.stmts)
			if pg {
				fmt.Fprintf(w, strings.Repeat(f+"\t", 3), t.read, t.written, t.dbCPUMs)
			}
			fmt.Fprintln(w)
		}
		for _, r := range results {
			line(fmt.Sprintf("%d\t%d", r.merchants, r.active), hour(r.rows, c.skip), "%.1f")
		}
		if large != small {
			a, b := hour(small.rows, c.skip), hour(large.rows, c.skip)
			line(fmt.Sprintf("ratio %d/%d\t", large.merchants, small.merchants), hourTotals{ratio(b.wallMs, a.wallMs),
				ratio(b.cpuMs, a.cpuMs), ratio(b.txs, a.txs), ratio(b.views, a.views), ratio(b.stmts, a.stmts),
				ratio(b.read, a.read), ratio(b.written, a.written), ratio(b.dbCPUMs, a.dbCPUMs)}, "%.2f")
		}
		w.Flush()
	}
}

// ratio is a/b; 0 when b is (nothing to compare).
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
