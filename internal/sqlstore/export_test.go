package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/paydhq/payd"
)

// MigrateTo applies the migrations up to version last, for tests of a
// migration on data of the schema before it.
func (s *Store) MigrateTo(ctx context.Context, last int) ([]string, error) {
	return s.migrateTo(ctx, last)
}

// MigrateOnly applies just the given migrations, as a database that ran a
// branch's later migration before an earlier one landed would have them.
func (s *Store) MigrateOnly(ctx context.Context, versions ...int) ([]string, error) {
	return s.migrateWhere(ctx, func(v int) bool { return slices.Contains(versions, v) })
}

// SQLiteDDL is a migration's text as SQLite runs it.
func SQLiteDDL(s string) string { return sqliteDialect{}.ddl(s) }

// LatestVersion is the number of the newest migration.
func LatestVersion() int { return latestVersion() }

// Exec runs a statement on the store's database behind its back, for
// tests of rows an earlier build wrote.
// A test's statement may touch every shard group of a cluster: it is the
// test's look at the data, not the service's work (fanout.go).
func (s *Store) Exec(ctx context.Context, query string, args ...any) error {
	sqlTx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer sqlTx.Rollback()
	if err := (&tx{q: sqlTx, sqlTx: sqlTx, d: s.d, fanOutChecked: s.fanOutChecked}).fanOut(ctx, func(t *tx) error {
		_, err := t.q.ExecContext(ctx, query, args...)
		return err
	}); err != nil {
		return err
	}
	return sqlTx.Commit()
}

// RoundTrips counts the statements and batches a PostgreSQL store sends:
// each is one round trip to the server.
type RoundTrips struct{ n atomic.Int64 }

func (r *RoundTrips) Count() int64 { return r.n.Load() }

func (r *RoundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *RoundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *RoundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *RoundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *RoundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// OpenCounting opens a PostgreSQL store whose round trips are counted.
func OpenCounting(ctx context.Context, url string) (*Store, *RoundTrips, error) {
	rt := &RoundTrips{}
	s, err := openPostgres(ctx, url, rt, nil, nil)
	return s, rt, err
}

// ExplainLedgerDay is the database's plan of the selection of a period's
// entries in LedgerEntriesOf.
func (s *Store) ExplainLedgerDay(ctx context.Context) (string, error) {
	return explain(ctx, s.d, s.db, ledgerDayEntriesSQL(s.d), []any{"mer_1", true, "RUB", int64(0), int64(86_400_000_000), int32(0)})
}

// ExplainLedgerBuckets and ExplainOpenedTotals are the database's plans
// of the balance read's sum of bucket totals and of the fold's search for
// totals that may have spare slots.
func (s *Store) ExplainLedgerBuckets(ctx context.Context) (string, error) {
	return explain(ctx, s.d, s.db, (&tx{d: s.d}).ledgerBucketsSQL("mer_1"), []any{"mer_1", true, int32(0)})
}

func (s *Store) ExplainOpenedTotals(ctx context.Context) (string, error) {
	return explain(ctx, s.d, s.db, openedTotalsSQL, []any{1000})
}

// GroupWaiting is how many transactions wait in a SQLite store's commit
// queue (group.go), the leader's group included until it begins.
func (s *Store) GroupWaiting() int {
	s.group.mu.Lock()
	defer s.group.mu.Unlock()
	return len(s.group.waiting)
}

// PipeMark is a mark a statement's context may carry in a PostgreSQL
// store's transaction (pgpipe.go).
type PipeMark = pipeCtxKey

// The marks of pgpipe.go, for its tests.
const (
	SendWithBegin  = sendWithBegin
	KeepForNext    = keepForNext
	WriteWithNext  = writeWithNext
	CommitAfter    = commitAfter
	SendWithCommit = sendWithCommit
	ClaimGuard     = claimGuard
)

// Mark returns ctx carrying m.
func Mark(ctx context.Context, m PipeMark) context.Context { return context.WithValue(ctx, m, true) }

// Pool is the store's pool of connections.
func (s *Store) Pool() *sql.DB { return s.db }

// PipeTx runs fn in a transaction begun as Store.Tx begins its own, with
// the BEGIN held back (read-only, as a list page's, when readOnly is set).
// It commits when fn returns nil and returns the commit's error;
// otherwise it rolls back and returns fn's error joined with the
// rollback's.
func (s *Store) PipeTx(ctx context.Context, readOnly bool, fn func(*sql.Tx) error) error {
	sqlTx, err := s.db.BeginTx(context.WithValue(ctx, beginLater, true), &sql.TxOptions{ReadOnly: readOnly})
	if err != nil {
		return err
	}
	if err := fn(sqlTx); err != nil {
		return errors.Join(err, sqlTx.Rollback())
	}
	return sqlTx.Commit()
}

// ReadsTogether says whether View batches reads of payments (readBatch).
func (s *Store) ReadsTogether() bool { return s.views != nil }

// PaymentViewsOf reads payments' renderings in one statement, as the reads
// View batches (readBatch) are made.
func (s *Store) PaymentViewsOf(ctx context.Context, ids []string) (map[string]*payd.PaymentView, error) {
	return paymentViewsOf(ctx, route(s.d, s.rdb), s.d, ids)
}
