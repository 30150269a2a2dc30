// Package jobs runs the service's durable background work on River, a job
// queue made for this that stores its jobs in the service's own database
// (PostgreSQL or SQLite). Jobs are inserted in the transaction of the change
// that needs them, survive restarts, retry on a schedule and read the
// service clock, so the test clock moves them too.
package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
	"go.opentelemetry.io/otel/trace"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
)

// Queue is payd.Jobs on River.
type Queue struct {
	driver  riverdriver.Driver[*sql.Tx]
	client  *river.Client[*sql.Tx]
	workers *river.Workers
	clock   payd.Clock
	db      *sql.DB
	log     *slog.Logger
	dialect string
	// kindLocks are SQLite's locks of the periodic kinds (one process
	// holds the database); PostgreSQL's are advisory locks (lockKind).
	kindLocks sync.Map // kind → *sync.Mutex
	onRun     func(kind string, outcome RunOutcome)
	onLedger  func(discrepancies int)
	// inFlight counts the periodic runs this process is working, by kind.
	inFlight sync.Map // kind → *atomic.Int64
	// asking marks the kinds askAfterRun is asking a run of.
	asking sync.Map // kind → *atomic.Bool
}

var _ payd.Jobs = (*Queue)(nil)

// clockTime feeds the service clock to River, so job schedules, retries and
// periodic runs follow the test clock when it moves.
type clockTime struct{ clock payd.Clock }

func (c clockTime) NowUTC() time.Time { return c.clock.Now() }
func (c clockTime) NowUTCOrNil() *time.Time {
	t := c.clock.Now()
	return &t
}

// Options tune the queue.
type Options struct {
	// PollInterval is how often idle workers look for due jobs.
	PollInterval time.Duration
	// Workers is the number of jobs run at once.
	Workers int
	// OnFailure is told the kind of every failed job attempt.
	OnFailure func(kind string)
	// OnPeriodicRun is told the kind and outcome of every periodic run.
	OnPeriodicRun func(kind string, outcome RunOutcome)
	// OnLedgerCheck is told how many discrepancies each periodic run of
	// the ledger check found (zero: the ledger is sound).
	OnLedgerCheck func(discrepancies int)
	// RescueAfter is how long a job may stay running before it is taken
	// to belong to a process that died and is run again (zero:
	// DefaultRescueAfter). It must exceed JobTimeout, or a job still
	// running would be run twice.
	RescueAfter time.Duration
	// TracerProvider, when set, traces job inserts and work with River's
	// OpenTelemetry middleware, each job's span linked to the one that
	// enqueued it (trace.go). Nil adds no middleware.
	TracerProvider trace.TracerProvider
}

// JobTimeout bounds every job; none sets a longer one of its own.
const JobTimeout = time.Minute

// DefaultRescueAfter is Options.RescueAfter's default.
const DefaultRescueAfter = 5 * time.Minute

const (
	queueWebhooks = "webhooks"
	// queuePrecheck holds the QR attempts that first ask the shop: each
	// may wait five seconds for a merchant's answer, and on a queue of
	// their own slow merchants never hold up notifications and expiries.
	queuePrecheck = "precheck"
	// precheckWorkers bounds the questions in flight at once; a worker
	// waiting for an answer holds no database connection.
	precheckWorkers = 32
	// queuePeriodic holds the periodic runs (sweeps, purges, the
	// settlement run): on a queue of their own they never hold up the
	// outcome jobs (bank notifications, expiries, releases, payouts) on
	// the default queue, however long they take.
	queuePeriodic = "periodic"
	// periodicWorkers bounds the periodic runs one instance works at
	// once; each kind has at most one run in flight anyway.
	periodicWorkers = 4
)

// queueOf puts each kind on its queue.
func queueOf(kind string) string {
	switch kind {
	case (payd.WebhookDeliverArgs{}).Kind():
		return queueWebhooks
	case (payd.QRAttemptArgs{}).Kind():
		return queuePrecheck
	}
	return river.QueueDefault
}

// New prepares a queue over db; dialect is "sqlite" or "postgres". Workers
// are registered by Start.
func New(db *sql.DB, dialect string, clock payd.Clock, log *slog.Logger, opts Options) (*Queue, error) {
	q := &Queue{clock: clock, workers: river.NewWorkers(), db: db, onRun: opts.OnPeriodicRun, onLedger: opts.OnLedgerCheck, dialect: dialect}
	switch dialect {
	case "sqlite":
		q.driver = riversqlite.New(db)
	case "postgres":
		q.driver = riverdatabasesql.New(db)
	default:
		return nil, fmt.Errorf("jobs: unknown dialect %q", dialect)
	}
	if opts.PollInterval == 0 {
		opts.PollInterval = 200 * time.Millisecond
	}
	if opts.Workers == 0 {
		opts.Workers = 16
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	q.log = log.With("component", "jobs")
	if q.onRun == nil {
		q.onRun = func(string, RunOutcome) {}
	}
	if opts.RescueAfter == 0 {
		opts.RescueAfter = DefaultRescueAfter
	}
	if opts.RescueAfter <= JobTimeout {
		return nil, fmt.Errorf("jobs: the rescue delay %v must exceed the job timeout %v", opts.RescueAfter, JobTimeout)
	}
	var middleware []rivertype.Middleware
	if opts.TracerProvider != nil {
		middleware = traceMiddleware(opts.TracerProvider)
	}
	client, err := river.NewClient(q.driver, &river.Config{
		Middleware: middleware,
		// Webhook deliveries are queued in their own table and sent by the
		// service's delivery sender; this queue only drains delivery jobs
		// left by versions that queued each delivery as a job.
		Queues: map[string]river.QueueConfig{
			river.QueueDefault: {MaxWorkers: opts.Workers},
			queueWebhooks:      {MaxWorkers: 1},
			queuePrecheck:      {MaxWorkers: precheckWorkers},
			queuePeriodic:      {MaxWorkers: periodicWorkers},
		},
		Workers: q.workers,
		// No job runs longer than JobTimeout (none sets its own), so a job
		// still marked running long after it belongs to a process that
		// died. River's default waits an hour before taking it up again;
		// a QR payment waiting for its pre-check job would sit without its
		// QR that long after a crash. Five minutes is well past every
		// job's timeout. River measures it on the wall clock, whatever
		// the service clock says.
		JobTimeout:           JobTimeout,
		RescueStuckJobsAfter: opts.RescueAfter,
		FetchPollInterval:    opts.PollInterval,
		FetchCooldown:        opts.PollInterval / 4,
		Logger:               riverLog(log.With("component", "jobs")),
		PeriodicJobs:         periodicJobs(clock),
		Test:                 river.TestConfig{Time: clockTime{clock}},
		ErrorHandler:         failureReporter{log: log.With("component", "jobs"), onFailure: opts.OnFailure},
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	q.client = client
	return q, nil
}

// Migrate applies River's own schema migrations.
func (q *Queue) Migrate(ctx context.Context) error {
	m, err := rivermigrate.New(q.driver, nil)
	if err != nil {
		return err
	}
	if q.dialect != "postgres" {
		_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		return err
	}
	// Instances started together on an empty database would each create
	// River's tables, and all but one fail on a type already there. Under
	// an advisory lock the others wait for the first and then find nothing
	// to do. The lock is a session's, on a connection of its own: River's
	// migrations cannot share one transaction (one adds an enum value that
	// a later one uses). The key is mixed with the schema, as the kinds'
	// locks are (lock.go).
	conn, err := q.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1 # hashtextextended(current_schema(), 0))`, migrateLockKey); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1 # hashtextextended(current_schema(), 0))`, migrateLockKey)
	_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	return err
}

// migrateLockKey is the advisory lock of River's migrations, apart from
// payd's own (sqlstore) and the periodic kinds' (kindLockKey).
const migrateLockKey int64 = 7_316_504_012

// Enqueue inserts args in tx, to run at runAt (at once when zero).
func (q *Queue) Enqueue(ctx context.Context, tx payd.Tx, args payd.JobArgs, runAt time.Time) error {
	st, ok := tx.(interface{ SQLTx() *sql.Tx })
	if !ok || st.SQLTx() == nil {
		return errors.New("jobs: enqueue needs a store transaction")
	}
	// A job due now is inserted as available, so a worker takes it at the
	// next poll instead of waiting for the scheduler's pass over future jobs.
	opts := &river.InsertOpts{Queue: queueOf(args.Kind())}
	if runAt.After(q.clock.Now()) {
		opts.ScheduledAt = runAt
	}
	_, err := q.client.InsertTx(ctx, st.SQLTx(), jobArgs{args}, opts)
	return err
}

// RunPeriodicNow asks for a run of every periodic kind at once. River's
// periodic timer sleeps in real time, so when the test clock jumps ahead
// the service calls this to let periodic work (the expiry sweep,
// retention, registers) catch up with the new time. A kind with a run
// waiting or running gets no second one (periodicInsertOpts): a waiting
// run reads the clock when it starts, and a running one runs again if the
// clock jumped while it worked (periodicWorker).
func (q *Queue) RunPeriodicNow(ctx context.Context) error {
	for _, p := range periodics() {
		res, err := q.client.Insert(ctx, p.args, periodicInsertOpts(p))
		if err != nil {
			return err
		}
		if res.UniqueSkippedAsDuplicate && (res.Job == nil || res.Job.State == rivertype.JobStateRunning) {
			q.askAfterRun(p)
		}
	}
	return nil
}

// askAfterRun asks for a run of p once the one running now has ended,
// in the background. A run checks the clock's jumps when its work ends,
// and its job is marked finished a moment later: a jump between the two
// would otherwise find the kind's place taken by a run that has already
// read the clock, and the new time would wait for the next period. It
// stops when its insert goes in or finds a run waiting to start (which
// reads the clock then), or after askAfterRunFor; one at a time per kind.
func (q *Queue) askAfterRun(p periodic) {
	flag, _ := q.asking.LoadOrStore(p.args.Kind(), new(atomic.Bool))
	if !flag.(*atomic.Bool).CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer flag.(*atomic.Bool).Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), askAfterRunFor)
		defer cancel()
		for ctx.Err() == nil {
			time.Sleep(50 * time.Millisecond)
			res, err := q.client.Insert(ctx, p.args, periodicInsertOpts(p))
			if err != nil || !res.UniqueSkippedAsDuplicate || (res.Job != nil && res.Job.State != rivertype.JobStateRunning) {
				return
			}
		}
	}()
}

// askAfterRunFor bounds askAfterRun: past the job timeout a run has ended.
const askAfterRunFor = 2 * JobTimeout

// clockJumps counts the service clock's jumps (zero for a clock that
// never jumps).
func (q *Queue) clockJumps() uint64 {
	if c, ok := q.clock.(interface{ Jumps() uint64 }); ok {
		return c.Jumps()
	}
	return 0
}

// RunOutcome is how a periodic run ended.
type RunOutcome string

// The outcomes of a periodic run.
const (
	RunDone      RunOutcome = "done"      // its work is done
	RunContinued RunOutcome = "continued" // stopped at its budget; runs again at once
	RunAgain     RunOutcome = "again"     // the test clock jumped meanwhile; runs again at once
	RunFailed    RunOutcome = "failed"    // an error; retried, or given up to the next period
	RunSkipped   RunOutcome = "skipped"   // another run of the kind was working; nothing to do
)

func (q *Queue) ran(kind string, outcome RunOutcome) { q.onRun(kind, outcome) }

// ledgerChecksLogged bounds the discrepancies one run of the ledger check
// logs: the first few locate a fault; the metric counts them all.
const ledgerChecksLogged = 20

// ledgerChecked reports a run of the ledger check: each discrepancy (the
// first ledgerChecksLogged) logged as an error, their number told to
// Options.OnLedgerCheck. They name entries, accounts and payments by id,
// no secret.
func (q *Queue) ledgerChecked(problems []string) {
	for i, p := range problems {
		if i == ledgerChecksLogged {
			q.log.Error("ledger check: more discrepancies; `payd admin ledger check` lists them all", "more", len(problems)-i)
			break
		}
		q.log.Error("ledger check: discrepancy", "problem", p)
	}
	if q.onLedger != nil {
		q.onLedger(len(problems))
	}
}

// running adds d to this process's count of kind's runs in flight.
func (q *Queue) running(kind string, d int64) {
	n, _ := q.inFlight.LoadOrStore(kind, new(atomic.Int64))
	n.(*atomic.Int64).Add(d)
}

// Running is how many runs of each periodic kind this process is working
// now.
func (q *Queue) Running() map[string]int64 {
	out := map[string]int64{}
	q.inFlight.Range(func(k, v any) bool {
		out[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return out
}

// PromoteDue makes every scheduled job whose time on the service clock has
// come available at once. River's scheduler does this every few seconds of
// real time, and after a jump of the test clock its leader must first be
// elected again; promoting right after the jump keeps time-driven work
// (expiries, retries, releases) prompt. Production clocks never jump.
func (q *Queue) PromoteDue(ctx context.Context) error {
	now := q.clock.Now()
	params := river.NewJobListParams().States(rivertype.JobStateScheduled).
		OrderBy(river.JobListOrderByScheduledAt, river.SortOrderAsc).First(1000)
	for page := 0; page < 100; page++ {
		res, err := q.client.JobList(ctx, params)
		if err != nil {
			return err
		}
		for _, j := range res.Jobs {
			if j.ScheduledAt.After(now) {
				return nil
			}
			if _, err := q.client.JobRetry(ctx, j.ID); err != nil {
				return err
			}
		}
		if len(res.Jobs) < 1000 || res.LastCursor == nil {
			return nil
		}
		params = params.After(res.LastCursor)
	}
	return nil
}

// Start registers the workers that call svc and acc (the accounts'
// purges) and starts working jobs.
func (q *Queue) Start(ctx context.Context, svc *payd.Service, acc *account.Service) error {
	registerWorkers(q, svc, acc)
	return q.client.Start(ctx)
}

// Stop waits for running jobs to finish, or ctx to end.
func (q *Queue) Stop(ctx context.Context) error {
	return q.client.Stop(ctx)
}

// Depth returns the number of jobs by state, for metrics.
func (q *Queue) Depth(ctx context.Context) (map[string]int64, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT state, COUNT(*) FROM river_job GROUP BY state`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var state string
		var n int64
		if err := rows.Scan(&state, &n); err != nil {
			return nil, err
		}
		out[state] = n
	}
	return out, rows.Err()
}
