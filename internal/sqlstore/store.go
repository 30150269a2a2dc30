package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/XSAM/otelsql"
	"github.com/exaring/otelpgx"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	"modernc.org/sqlite"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/seal"
	"github.com/paydhq/payd/internal/tracing"
)

// Store is payd.Store over database/sql.
type Store struct {
	db *sql.DB
	// rdb serves View. On SQLite it is a separate pool of read-only
	// connections: WAL lets them read while the single writer works, so a
	// long transaction never stalls authentication or GETs. On PostgreSQL
	// it is db.
	rdb *sql.DB
	d   dialect
	// group runs Tx on SQLite (group.go); nil on PostgreSQL.
	group *commitGroup
	// keys seal the secrets the store keeps (seal.go); ephemeralKeys
	// when they were made for this Store (Options.Keyring nil).
	keys          *seal.Keyring
	ephemeralKeys bool
	// truncateWAL asks Migrate to empty SQLite's WAL after its
	// migrations (sealSecretsInClear).
	truncateWAL bool
	// fanOutChecked is set on a Citus cluster whose connections refuse
	// statements that fan out (fanout.go).
	fanOutChecked bool
	// groups is set on a Citus cluster: whether the sweeps read worker
	// by worker (groupwise.go).
	groups *groupHealth
	// views reads payments' renderings for View together (readbatch.go).
	views *readBatch[*payd.PaymentView]
}

var _ payd.Store = (*Store)(nil)

// Open connects to PostgreSQL when url starts with postgres:// or
// postgresql://, and otherwise opens (creating it) the SQLite database
// payd.db in dataDir. It does not migrate; call Migrate.
func Open(ctx context.Context, url, dataDir string) (*Store, error) {
	return OpenWith(ctx, url, dataDir, Options{})
}

// Options are what Open may be given beyond where the database is.
type Options struct {
	// TracerProvider, when set, traces every statement made under a span
	// of the caller (a request, a job, a delivery attempt): pgx's tracer
	// on PostgreSQL, database/sql's on SQLite. Spans carry the statement's
	// text with its $N placeholders and never the values bound to them.
	// Nil adds no instrumentation.
	TracerProvider trace.TracerProvider
	// Keyring seals the secrets the store must read back: webhook signing
	// secrets, TOTP secrets, idempotent answers and the service's own
	// keys (seal.go). Nil seals under a key made for this Store alone,
	// which dies with the process: for tests and tools, never for a
	// database that outlives them (payd serve and payd migrate pass one).
	Keyring *seal.Keyring
	// OnReadOnly, when set, is told each time a PostgreSQL connection is
	// dropped because its server refused a write as read-only: what a
	// failover leaves behind (dropReadOnly). Metrics count it.
	OnReadOnly func()
	// OnServer, when set, is told for each new PostgreSQL connection which
	// server it reached: its address, port and start time. Another value
	// than the connection before is a failover, a switchover or a
	// restart; metrics count the changes.
	OnServer func(server string)
	// OnGroupsSkipped, when set, is told on a Citus cluster of each sweep's
	// read that left out the shard groups of unreachable workers: the table
	// and how many workers (groupwise.go). Metrics count them.
	OnGroupsSkipped func(table string, workers int)
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, url, dataDir string, opts Options) (*Store, error) {
	s, err := openWith(ctx, url, dataDir, opts)
	if err != nil {
		return nil, err
	}
	s.ephemeralKeys = opts.Keyring == nil
	if opts.Keyring != nil {
		s.keys = opts.Keyring
	}
	if s.group != nil {
		s.group.keys = s.keys
	}
	if s.d.distributed() {
		s.groups = &groupHealth{onSkipped: opts.OnGroupsSkipped}
	} else {
		s.views = s.paymentViews()
	}
	return s, nil
}

func openWith(ctx context.Context, url, dataDir string, opts Options) (*Store, error) {
	if strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://") {
		var tracer pgx.QueryTracer
		if opts.TracerProvider != nil {
			tracer = otelpgx.NewTracer(otelpgx.WithTracerProvider(tracing.ChildOnly(opts.TracerProvider)),
				otelpgx.WithMeterProvider(noop.NewMeterProvider()), otelpgx.WithTrimSQLInSpanName())
		}
		return openPostgres(ctx, url, tracer, opts.OnReadOnly, opts.OnServer)
	}
	if url != "" {
		return nil, fmt.Errorf("database URL %q: only postgres:// URLs are supported; leave it empty for SQLite", redact(url))
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	// WAL with synchronous=FULL: every commit is durable before it is
	// acknowledged. _txlock=immediate takes the write lock at BEGIN, so a
	// transaction never fails half-way on a lock upgrade.
	file := "file:" + filepath.Join(dataDir, "payd.db")
	dsn := file + "?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(10000)" +
		"&_pragma=foreign_keys(1)&_txlock=immediate"
	db, err := openSQLite(dsn, opts.TracerProvider)
	if err != nil {
		return nil, err
	}
	// One connection: SQLite has a single writer, and the job queue's
	// driver works best this way. Transactions therefore serialise, which
	// is exactly the per-object serialisation the service needs.
	db.SetMaxOpenConns(1)
	db.SetConnMaxIdleTime(0)
	db.SetConnMaxLifetime(0)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open SQLite in %s: %w", dataDir, err)
	}
	rdb, err := openSQLite(file+"?_pragma=busy_timeout(10000)&_pragma=query_only(1)", opts.TracerProvider)
	if err != nil {
		db.Close()
		return nil, err
	}
	rdb.SetMaxOpenConns(4)
	return &Store{db: db, rdb: rdb, d: sqliteDialect{}, group: &commitGroup{db: db, d: sqliteDialect{}}, keys: ephemeralKeyring()}, nil
}

// openPostgres connects to PostgreSQL through pipeConns (pgpipe.go);
// tracer, when not nil, sees every statement and batch (tests count round
// trips with it); onReadOnly, when not nil, is told of each connection
// dropped as read-only; onServer, when not nil, of the server each new
// connection reached (Options.OnServer).
func openPostgres(ctx context.Context, url string, tracer pgx.QueryTracer, onReadOnly func(), onServer func(string)) (*Store, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.Tracer = tracer
	cfg.OnPgError = dropReadOnly(cfg.OnPgError, onReadOnly)
	if onServer != nil {
		cfg.AfterConnect = reportServer(cfg.AfterConnect, onServer)
	}
	cfg.AfterConnect = customPlansOnCitus(cfg.AfterConnect)
	db := sql.OpenDB(pipeConnector{stdlib.GetConnector(*cfg)})
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	citus, err := isCitus(ctx, db)
	checked := false
	if err == nil && citus {
		checked, err = fanOutChecked(ctx, db)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	return &Store{db: db, rdb: db, d: postgresDialect{citus: citus}, keys: ephemeralKeyring(), fanOutChecked: checked}, nil
}

// openSQLite opens a pool whose connections keep their statements prepared
// (stmtcache.go), traced through otelsql when tp is set.
func openSQLite(dsn string, tp trace.TracerProvider) (*sql.DB, error) {
	base, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	if tp == nil {
		return sql.OpenDB(cachingConnector{base}), nil
	}
	return otelsql.OpenDB(cachingConnector{base}, otelsql.WithTracerProvider(tracing.ChildOnly(tp)),
		otelsql.WithMeterProvider(noop.NewMeterProvider()),
		otelsql.WithAttributes(attribute.String("db.system.name", "sqlite")),
		// A span per statement, as pgx's tracer makes on PostgreSQL; not
		// one per row read, session reset or connection.
		otelsql.WithSpanOptions(otelsql.SpanOptions{OmitRows: true, OmitConnResetSession: true,
			OmitConnectorConnect: true, OmitConnPrepare: true})), nil
}

func redact(url string) string {
	if i := strings.Index(url, "@"); i >= 0 {
		if j := strings.Index(url, "://"); j >= 0 && j < i {
			return url[:j+3] + "…" + url[i:]
		}
	}
	return url
}

// DB returns the connection pool, for the job queue which shares it.
func (s *Store) DB() *sql.DB { return s.db }

// Dialect returns "sqlite" or "postgres".
func (s *Store) Dialect() string { return s.d.Name() }

// Close closes the pools.
func (s *Store) Close() error {
	if s.rdb != s.db {
		s.rdb.Close()
	}
	return s.db.Close()
}

// Tx runs fn in a transaction and commits when fn returns nil.
// A database that cannot be reached gives errUnavailable (translate), here
// and in View and Snapshot, through which every query passes.
func (s *Store) Tx(ctx context.Context, fn func(payd.Tx) error) error {
	if s.group != nil {
		// SQLite: transactions waiting at the same moment share a
		// commit (group.go).
		return s.group.run(ctx, fn)
	}
	// On PostgreSQL the BEGIN goes out with the first statement
	// (pgpipe.go).
	sqlTx, err := s.db.BeginTx(context.WithValue(ctx, beginLater, true), nil)
	if err != nil {
		return translate(fmt.Errorf("begin: %w", err))
	}
	t := &tx{q: sqlTx, sqlTx: sqlTx, d: s.d, keys: s.keys, fanOutChecked: s.fanOutChecked, groups: s.groups}
	if s.d.Name() == "postgres" {
		t.q, t.pipelined = route(s.d, carrying{sqlTx}), true
	}
	err = fn(t)
	if err == nil {
		err = t.beforeCommit(ctx)
	}
	if err != nil {
		if errors.Is(sqlTx.Rollback(), payd.ErrClaimRefused) {
			// Whatever fn made of it, the claim did not hold.
			return payd.ErrClaimRefused
		}
		return translate(commitError(err))
	}
	if err := sqlTx.Commit(); err != nil {
		if cerr := commitError(err); cerr != err {
			return cerr
		}
		return translate(fmt.Errorf("commit: %w", err))
	}
	for _, f := range t.afterCommit {
		f()
	}
	return nil
}

// Snapshot runs fn in a read-only transaction that sees one consistent
// state of the database: REPEATABLE READ on PostgreSQL, a read transaction
// of the WAL on SQLite. Checks that read several tables use it.
func (s *Store) Snapshot(ctx context.Context, fn func(payd.Tx) error) error {
	var opts *sql.TxOptions
	if s.d.Name() == "postgres" {
		opts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	sqlTx, err := s.rdb.BeginTx(ctx, opts)
	if err != nil {
		return translate(fmt.Errorf("begin snapshot: %w", err))
	}
	defer sqlTx.Rollback()
	return translate(fn(&tx{q: route(s.d, sqlTx), d: s.d, keys: s.keys, fanOutChecked: s.fanOutChecked, groups: s.groups}))
}

// View runs fn against the pool without a transaction.
func (s *Store) View(ctx context.Context, fn func(payd.Tx) error) error {
	return translate(fn(&tx{q: route(s.d, s.rdb), d: s.d, keys: s.keys, fanOutChecked: s.fanOutChecked, groups: s.groups, views: s.views}))
}

// Ready checks the schema is current and, on PostgreSQL, that the server
// accepts writes (writable, unavailable.go): behind a failover, a pool can
// hold connections to a node that has become a standby or been made
// read-only, and an instance that cannot write is not ready.
func (s *Store) Ready(ctx context.Context) error {
	if s.d.Name() == "postgres" {
		if err := writable(ctx, s.db); err != nil {
			return err
		}
	}
	return s.schemaCurrent(ctx)
}

// tx implements payd.Tx; q is the transaction or, for View, the pool.
type tx struct {
	q           querier
	sqlTx       *sql.Tx
	d           dialect
	keys        *seal.Keyring
	afterCommit []func()
	// pipelined is set in Store.Tx on PostgreSQL: the BEGIN may go with
	// the first statement and the idempotency record with the COMMIT.
	pipelined bool
	// locked are the rows (table and id) this transaction read FOR
	// UPDATE, on PostgreSQL: a change to one of them cannot miss its row,
	// so it may go out later (updateLocked).
	locked map[lockedRow]bool
	// absentKey is the key (idemScope) IdempotencyLockGet locked and
	// found no record of at all, live or expired, or that
	// IdempotencyClaim claimed.
	absentKey string
	// days are the settlement days to insert before COMMIT, on
	// PostgreSQL (SettlementDayMark).
	days []payd.SettlementDay
	// payTotals is what the transaction adds to the payments' day totals,
	// written before COMMIT (writePayTotals); payStatus the status each
	// payment it locked, inserted or changed has in it.
	payTotals map[payTotalKey]payTotalDelta
	payStatus map[string]payd.PaymentStatus
	// fanOutChecked and groups are the Store's (fanout.go, groupwise.go).
	fanOutChecked bool
	groups        *groupHealth
	// views is the Store's, in View alone: reads there may go together.
	views *readBatch[*payd.PaymentView]
}

// AfterCommit runs fn after a successful commit; outside a transaction
// (View, Snapshot), where nothing is written, at once.
func (t *tx) AfterCommit(fn func()) {
	if t.sqlTx == nil {
		fn()
		return
	}
	t.afterCommit = append(t.afterCommit, fn)
}

// SQLTx returns the underlying transaction (nil under View), so the job
// queue can insert its rows in it.
func (t *tx) SQLTx() *sql.Tx { return t.sqlTx }

// commitError names the unique violation of a statement PostgreSQL ran
// with the COMMIT or with a later statement (pgpipe.go): a payment's order
// id is payd.ErrOrderIDTaken, anything else (the idempotency record, a
// row written later) is payd.ErrConflict. Other errors are returned as
// they are.
func commitError(err error) error {
	var pe *pgconn.PgError
	switch {
	case !errors.As(err, &pe) || pe.Code != "23505":
		return err
	case constraintOf(pe) == "payments_order":
		return fmt.Errorf("%w: %v", payd.ErrOrderIDTaken, err)
	}
	return fmt.Errorf("%w: %v", payd.ErrConflict, err)
}

// constraintOf is the name of the constraint an error names, as the
// migrations name it. A Citus coordinator relays a worker's error with
// the constraint in its message only, and the worker names the shard's
// constraint: the name and _ and the shard's number.
func constraintOf(pe *pgconn.PgError) string {
	name := pe.ConstraintName
	if name == "" {
		if _, rest, ok := strings.Cut(pe.Message, `constraint "`); ok {
			name, _, _ = strings.Cut(rest, `"`)
		}
	}
	i := strings.LastIndexByte(name, '_')
	if i < 0 || i == len(name)-1 || strings.Trim(name[i+1:], "0123456789") != "" {
		return name
	}
	return name[:i]
}

// noRows maps sql.ErrNoRows to payd.ErrNoRows.
func noRows(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return payd.ErrNoRows
	}
	return err
}

// exec runs a statement and maps a unique violation to payd.ErrConflict.
func (t *tx) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	res, err := t.q.ExecContext(ctx, q, args...)
	if err != nil && t.d.isUnique(err) {
		return nil, fmt.Errorf("%w: %v", payd.ErrConflict, err)
	}
	return res, err
}

// lockedRow names a row a transaction holds locked.
type lockedRow struct{ table, id string }

// holdLock records that the transaction read row id of table FOR UPDATE,
// when the read found it.
func (t *tx) holdLock(table, id string, err error) {
	if !t.pipelined || err != nil {
		return
	}
	if t.locked == nil {
		t.locked = map[lockedRow]bool{}
	}
	t.locked[lockedRow{table, id}] = true
}

// updateLocked runs an UPDATE of row id of table: when the transaction
// holds the row locked, it cannot miss, and goes out with the next
// statement (later); otherwise it runs at once and must touch the row.
func (t *tx) updateLocked(ctx context.Context, table, id, q string, args ...any) error {
	if t.locked[lockedRow{table, id}] {
		return t.later(ctx, q, args...)
	}
	return t.execOne(ctx, q, args...)
}

// execOne runs an UPDATE or DELETE that must touch exactly one row.
func (t *tx) execOne(ctx context.Context, q string, args ...any) error {
	res, err := t.exec(ctx, q, args...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return payd.ErrNoRows
	}
	return nil
}

// insertOne runs an INSERT ... ON CONFLICT DO NOTHING and reports a row
// that was not inserted as payd.ErrConflict, leaving the transaction usable
// on PostgreSQL, where a failed statement would abort it.
func (t *tx) insertOne(ctx context.Context, q string, args ...any) error {
	res, err := t.exec(ctx, q, args...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return payd.ErrConflict
	}
	return nil
}
