package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/paydhq/payd"
)

// PostgreSQL transactions in fewer round trips.
//
// database/sql sends a transaction's BEGIN when it begins and its COMMIT
// when it commits, each in a round trip of its own: two of the five of a
// payment's creation. Every round trip is a write that wakes a PostgreSQL
// backend and a wake-up of payd when the answer comes, which on a busy
// machine costs both sides more CPU than the statement itself.
//
// pipeConn, the driver connection of the PostgreSQL pool, holds back the
// BEGIN of the store's own transactions (Store.Tx, and a list page's
// read-only one) and sends it with their first statement, and it keeps the
// writes a transaction marks as needing no answer before the commit (a new
// payment's row, the idempotency record) and sends them with the COMMIT:
// one pgx batch each, one network write and one answer. If a kept write
// fails, the COMMIT after it in the batch is never run and the transaction
// rolls back. An idempotency key's claim (Tx.IdempotencyClaim) is held
// back with the BEGIN, so a creation whose writes all go with the COMMIT
// is one batch: BEGIN, the fence, the claim, the payment, the record and
// COMMIT. A list page is one batch: BEGIN READ ONLY, its planner
// settings, the page and COMMIT. Inside a transaction, a write whose
// outcome is certain (a row under a new key, a change to a row the
// transaction locked) is not waited for either: it goes out with the next
// statement, and the store's own queries carry what is held (a refund's
// row, entry, postings and payment go with the reads between them, and
// the merchant's lock with the balance read after it). Transactions begun
// by anything else (the job queue's own, read snapshots) go through pgx's
// stdlib driver unchanged. The contexts of BeginTx and of each statement carry what may
// be held back or sent together (the keys below).
//
// What holds, and what pgpipe_test.go pins:
//
//   - Statements reach the server in the order they were made, the BEGIN
//     first; a batch stops at its first failing statement, so nothing
//     after a failure runs, the COMMIT included.
//   - A kept statement's failure is reported by the statement or the
//     commit that carried it, never lost: a transaction commits only if
//     every statement of it succeeded.
//   - A kept statement has not run when its Exec returns, so its result
//     has no count of rows (pendingResult): a caller that needs the count
//     (insertOne, execOne) must not keep it.
//   - The claim's division by zero is ErrClaimRefused wherever in its
//     batch it sits, whether the BEGIN was still held or not; a division
//     by zero of any other statement is that statement's error.
//   - Rows read in a batch are the values pgx's stdlib driver gives for
//     the same columns (pipeValue), for the plain types the schema uses.
//   - A transaction that ends leaves its connection idle: a failed batch
//     is rolled back, and a connection that cannot be is closed, never
//     returned to the pool inside a transaction.
//
// When not to touch it: it saves round trips, not work, and the counts
// are pinned by TestPostgresTransactionRoundTrips. A new statement needs
// none of it: without a key on its context it goes as pgx sends it, after
// what is held. Mark a statement only when its answer is needed by
// nothing before the next statement (or the commit), and a query with
// sendWithBegin only when all its columns are of pipeValue's types. A
// change here is a change to every PostgreSQL transaction of the store:
// run the package's tests on PostgreSQL and measure creation
// (docs/benchmarks-history.md) before and after.

type pipeCtxKey int

const (
	// beginLater, on the context of BeginTx, asks for the BEGIN to be
	// held back until the first statement.
	beginLater pipeCtxKey = iota
	// sendWithBegin, on a query's context, lets what is held back (the
	// BEGIN, kept statements) go out in the same batch as the query. Only
	// statements whose columns are of the plain types of pipeValue may
	// carry it; any other query is sent after a batch of what is held.
	// The store's own queries in its transactions carry it (carrying).
	sendWithBegin
	// keepForNext, on an Exec's context while the BEGIN is held back,
	// keeps the statement to go out after the BEGIN in the batch of the
	// next statement. Its result is not looked at: the Exec's has no
	// count (pendingResult), and a failure comes from the next
	// statement. It is for what only matters to what follows (a lock, a
	// planner setting): a transaction that sends nothing after it drops
	// it.
	keepForNext
	// writeWithNext, on an Exec's context in a transaction begun here,
	// keeps a write whose outcome is certain (a new row under a fresh
	// key, a change to a row the transaction holds locked) to go out in
	// the batch of the next statement, or with the COMMIT if none
	// follows. Its result is not looked at: the Exec's has no count
	// (pendingResult), and a failure comes from the statement or the
	// commit that carried it.
	writeWithNext
	// commitAfter, on a query's context, sends the COMMIT in the same
	// batch after the query (and, if it is still held back, the BEGIN
	// before it): the query is the transaction's last statement and its
	// columns are plain. The transaction's Commit then reports how the
	// COMMIT went.
	commitAfter
	// sendWithCommit, on an Exec's context, keeps the statement until the
	// commit and sends it, after the statements kept before it, with the
	// COMMIT. Nothing later in the transaction may depend on it: its
	// result is known only at the commit, so the Exec's has no count
	// (pendingResult) and a failure comes from the commit. While the
	// BEGIN is held back it stays held: a transaction of kept statements
	// and writes at the commit is one batch.
	sendWithCommit
	// claimGuard, on an Exec's context in a transaction begun here, keeps
	// the statement for the next batch, as keepForNext does while the
	// BEGIN is held back (and writeWithNext after); it is the
	// transaction's claim (Tx.IdempotencyClaim), which divides by zero
	// when the claim does not hold. That failure is reported as
	// payd.ErrClaimRefused by the statement or commit that carried it,
	// and by the transaction's Commit and Rollback after it. Outside such
	// a transaction it runs at once, and its failure is reported the
	// same way.
	claimGuard
)

// pipeConnector opens pipeConns.
type pipeConnector struct{ base driver.Connector }

func (c pipeConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &pipeConn{Conn: dc.(*stdlib.Conn)}, nil
}

func (c pipeConnector) Driver() driver.Driver { return c.base.Driver() }

// pipeConn is pgx's stdlib connection with transactions that can begin
// with their first statement and commit with their last.
type pipeConn struct {
	*stdlib.Conn
	// inTx is set while a transaction begun here is open.
	inTx bool
	// held is set while that transaction's BEGIN has not been sent;
	// begin is its text and kept the statements to send after it.
	held  bool
	begin string
	// kept are the statements to send before the next one; mustSend is
	// set when one of them is a write (writeWithNext), which the COMMIT
	// carries if nothing else does.
	kept     []*pgx.QueuedQuery
	mustSend bool
	// txCtx is the context of BeginTx, for COMMIT and ROLLBACK.
	txCtx context.Context
	// atCommit are the statements to send with the COMMIT.
	atCommit []*pgx.QueuedQuery
	// ended is set when the COMMIT went with a query (commitAfter);
	// endErr is what it gave.
	ended  bool
	endErr error
	// guard is the place of the claim among the kept statements, from 1
	// (0: none); guardAt its place in the batch that carries it (-1:
	// none).
	guard, guardAt int
	// refused is set once the claim was found not to hold.
	refused bool
}

func (c *pipeConn) pgx() *pgx.Conn { return c.Conn.Conn() }

func (c *pipeConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if ctx.Value(beginLater) == nil || opts.Isolation != 0 {
		return c.Conn.BeginTx(ctx, opts)
	}
	if c.pgx().IsClosed() {
		return nil, driver.ErrBadConn
	}
	c.endTx()
	c.inTx, c.held, c.begin, c.txCtx = true, true, "begin", ctx
	if opts.ReadOnly {
		c.begin = "begin read only"
	}
	return pipeTx{c}, nil
}

func namedArgs(argsV []driver.NamedValue) []any {
	args := make([]any, len(argsV))
	for i, a := range argsV {
		args[i] = a.Value
	}
	return args
}

// batch starts a batch with what the connection holds back, the BEGIN and
// the statements kept after it, and marks them sent; lead is how many
// results of the batch are theirs.
func (c *pipeConn) batch() (b *pgx.Batch, lead int) {
	b = &pgx.Batch{}
	c.guardAt = -1
	if c.held {
		b.Queue(c.begin)
	}
	if c.guard > 0 {
		// Behind the BEGIN, when it goes in this batch too.
		c.guardAt = len(b.QueuedQueries) + c.guard - 1
	}
	b.QueuedQueries = append(b.QueuedQueries, c.kept...)
	c.held, c.kept, c.guard, c.mustSend = false, nil, 0, false
	return b, len(b.QueuedQueries)
}

// holds is whether anything waits to go out before the next statement.
func (c *pipeConn) holds() bool { return c.held || len(c.kept) > 0 }

// skip reads the results of the first n statements of a batch.
func (c *pipeConn) skip(br pgx.BatchResults, n int) error {
	for i := range n {
		if _, err := br.Exec(); err != nil {
			return c.refusal(i, err)
		}
	}
	return nil
}

// refusal is the error of the i-th statement of the last batch: the
// claim's division by zero is payd.ErrClaimRefused.
func (c *pipeConn) refusal(i int, err error) error {
	if i != c.guardAt {
		return err
	}
	err = claimError(err)
	c.refused = errors.Is(err, payd.ErrClaimRefused)
	return err
}

// claimError is the error of the claim's statement: its division by zero
// is payd.ErrClaimRefused, anything else is what it is.
func claimError(err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "22012" { // division_by_zero
		return err
	}
	return fmt.Errorf("%w: %v", payd.ErrClaimRefused, err)
}

// pendingResult is the result of a statement kept to go out later: it has
// not run when its Exec returns, so there is no count of rows to give.
type pendingResult struct{}

// errPending is what pendingResult answers: a caller that needs a count
// must not keep the statement.
var errPending = errors.New("sqlstore: the statement goes out with a later one; its count of rows is not known yet")

func (pendingResult) LastInsertId() (int64, error) { return 0, errPending }
func (pendingResult) RowsAffected() (int64, error) { return 0, errPending }

// sendBegin sends what is held back on its own, for a statement that
// cannot go with it.
func (c *pipeConn) sendBegin(ctx context.Context) error {
	if !c.holds() {
		return nil
	}
	b, lead := c.batch()
	br := c.pgx().SendBatch(ctx, b)
	err := c.skip(br, lead)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

func (c *pipeConn) ExecContext(ctx context.Context, query string, argsV []driver.NamedValue) (driver.Result, error) {
	switch {
	case c.inTx && ctx.Value(sendWithCommit) != nil:
		c.atCommit = append(c.atCommit, &pgx.QueuedQuery{SQL: query, Arguments: namedArgs(argsV)})
		return pendingResult{}, nil
	case c.inTx && ctx.Value(claimGuard) != nil:
		// Behind a held BEGIN, or after it was sent (a statement that
		// could not carry it went first): either way the claim's
		// failure is told apart by its place in the batch.
		c.kept = append(c.kept, &pgx.QueuedQuery{SQL: query, Arguments: namedArgs(argsV)})
		c.guard = len(c.kept)
		return pendingResult{}, nil
	case c.held && ctx.Value(keepForNext) != nil:
		c.kept = append(c.kept, &pgx.QueuedQuery{SQL: query, Arguments: namedArgs(argsV)})
		return pendingResult{}, nil
	case c.inTx && ctx.Value(writeWithNext) != nil:
		c.kept = append(c.kept, &pgx.QueuedQuery{SQL: query, Arguments: namedArgs(argsV)})
		c.mustSend = true
		return pendingResult{}, nil
	case c.holds():
		b, lead := c.batch()
		b.Queue(query, namedArgs(argsV)...)
		br := c.pgx().SendBatch(ctx, b)
		err := c.skip(br, lead)
		var tag pgconn.CommandTag
		if err == nil {
			tag, err = br.Exec()
		}
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		return driver.RowsAffected(tag.RowsAffected()), err
	case ctx.Value(claimGuard) != nil:
		res, err := c.Conn.ExecContext(ctx, query, argsV)
		return res, claimError(err)
	}
	return c.Conn.ExecContext(ctx, query, argsV)
}

func (c *pipeConn) QueryContext(ctx context.Context, query string, argsV []driver.NamedValue) (driver.Rows, error) {
	commit := c.inTx && len(c.atCommit) == 0 && ctx.Value(commitAfter) != nil
	if commit || (c.holds() && ctx.Value(sendWithBegin) != nil) {
		return c.queryBatch(ctx, query, argsV, commit)
	}
	if err := c.sendBegin(ctx); err != nil {
		return nil, err
	}
	return c.Conn.QueryContext(ctx, query, argsV)
}

func (c *pipeConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if err := c.sendBegin(ctx); err != nil {
		return nil, err
	}
	return c.Conn.PrepareContext(ctx, query)
}

// queryBatch sends the query in one batch with what is held back before it
// and, when commit is set, the COMMIT after it, and reads its rows whole:
// the statements sent so return a row or a page.
func (c *pipeConn) queryBatch(ctx context.Context, query string, argsV []driver.NamedValue, commit bool) (driver.Rows, error) {
	b, lead := c.batch()
	b.Queue(query, namedArgs(argsV)...)
	if commit {
		b.Queue("commit")
	}
	br := c.pgx().SendBatch(ctx, b)
	defer br.Close()
	var out *heldRows
	err := c.skip(br, lead)
	if err == nil {
		out, err = readRows(c.pgx().TypeMap(), br)
	}
	if commit {
		c.ended = true
		if err == nil {
			var tag pgconn.CommandTag
			if tag, err = br.Exec(); err == nil && tag.String() == "ROLLBACK" {
				err = pgx.ErrTxCommitRollback
			}
			c.endErr = err
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if commit {
			c.endErr = err
			c.rollback()
		}
		return nil, err
	}
	return out, nil
}

// readRows reads the rows of the next query of a batch.
func readRows(m *pgtype.Map, br pgx.BatchResults) (*heldRows, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := &heldRows{}
	fds := rows.FieldDescriptions()
	for _, fd := range fds {
		out.cols = append(out.cols, fd.Name)
	}
	for rows.Next() {
		row := make([]driver.Value, len(fds))
		for i, raw := range rows.RawValues() {
			if row[i], err = pipeValue(m, fds[i], raw); err != nil {
				return nil, err
			}
		}
		out.rows = append(out.rows, row)
	}
	return out, rows.Err()
}

// pipeValue is the database/sql value of a column of a plain type, as
// pgx's stdlib driver gives it: booleans, integers, floats, byte strings
// and JSON as they are, timestamps as time.Time, anything else as text.
func pipeValue(m *pgtype.Map, fd pgconn.FieldDescription, raw []byte) (driver.Value, error) {
	if raw == nil {
		return nil, nil
	}
	scan := func(dst any) error { return m.Scan(fd.DataTypeOID, fd.Format, raw, dst) }
	switch fd.DataTypeOID {
	case pgtype.TextOID, pgtype.VarcharOID:
		// Text is its bytes in either format, as pgx's own plan reads
		// it: without looking the plan up for each value of a page.
		return string(raw), nil
	case pgtype.BoolOID:
		var v bool
		return v, scan(&v)
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID:
		var v int64
		return v, scan(&v)
	case pgtype.Float4OID, pgtype.Float8OID:
		var v float64
		return v, scan(&v)
	case pgtype.ByteaOID, pgtype.JSONOID, pgtype.JSONBOID:
		var v []byte
		err := scan(&v)
		return bytes.Clone(v), err
	case pgtype.TimestamptzOID, pgtype.TimestampOID:
		var v time.Time
		return v, scan(&v)
	}
	var v string
	return v, scan(&v)
}

// heldRows are rows read whole.
type heldRows struct {
	cols []string
	rows [][]driver.Value
}

func (r *heldRows) Columns() []string { return r.cols }
func (r *heldRows) Close() error      { return nil }

func (r *heldRows) Next(dest []driver.Value) error {
	if len(r.rows) == 0 {
		return io.EOF
	}
	copy(dest, r.rows[0])
	r.rows = r.rows[1:]
	return nil
}

// pipeTx is a transaction of a pipeConn.
type pipeTx struct{ c *pipeConn }

func (t pipeTx) Commit() error {
	c := t.c
	defer c.endTx()
	switch {
	case c.ended:
		return c.endErr
	case c.refused:
		// The claim did not hold, and what carried it said so; the
		// transaction is aborted on the server.
		c.rollback()
		return payd.ErrClaimRefused
	case c.held && len(c.atCommit) == 0 && !c.mustSend:
		// Nothing was written: there is nothing to commit.
		return nil
	}
	// What is held back (the BEGIN, a claim) goes first in the batch.
	b, _ := c.batch()
	b.QueuedQueries = append(b.QueuedQueries, c.atCommit...)
	b.Queue("commit")
	br := c.pgx().SendBatch(c.txCtx, b)
	var err error
	for i := range b.QueuedQueries {
		var tag pgconn.CommandTag
		if tag, err = br.Exec(); err != nil {
			err = c.refusal(i, err)
			break
		}
		if tag.String() == "ROLLBACK" {
			err = pgx.ErrTxCommitRollback
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// A failed kept write leaves the transaction open and aborted:
		// the COMMIT behind it was skipped.
		c.rollback()
	}
	return err
}

// Rollback reports payd.ErrClaimRefused, once the transaction is rolled
// back, when its claim did not hold: the caller learns it even if what
// carried the claim's failure was not passed on.
func (t pipeTx) Rollback() error {
	c := t.c
	defer c.endTx()
	if c.held || c.ended {
		return nil
	}
	err := c.rollback()
	if c.refused && err == nil {
		err = payd.ErrClaimRefused
	}
	return err
}

// rollback ends the transaction on the server, if it is still open there.
// It runs even when the request's context is gone, for a short while: a
// connection left inside a transaction would be dropped from the pool.
func (c *pipeConn) rollback() error {
	if c.pgx().IsClosed() || c.pgx().PgConn().TxStatus() == 'I' {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.txCtx), 5*time.Second)
	defer cancel()
	_, err := c.pgx().Exec(ctx, "rollback")
	if err != nil {
		c.pgx().Close(ctx)
	}
	return err
}

func (c *pipeConn) endTx() {
	c.inTx, c.held, c.begin, c.kept, c.mustSend, c.txCtx, c.atCommit, c.ended, c.endErr = false, false, "", nil, false, nil, nil, false, nil
	c.guard, c.guardAt, c.refused = 0, -1, false
}

// carrying is the querier of the store's own PostgreSQL transactions
// (Store.Tx): each of its queries may carry what the connection holds
// back (sendWithBegin), as every column of the schema, and every
// expression the store reads, is of a plain type. Queries of others on the
// same transaction (the job queue's) go after a batch of their own.
type carrying struct{ *sql.Tx }

func (q carrying) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return q.Tx.QueryContext(context.WithValue(ctx, sendWithBegin, true), query, args...)
}

func (q carrying) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return q.Tx.QueryRowContext(context.WithValue(ctx, sendWithBegin, true), query, args...)
}

// later runs a write whose outcome is certain — a row under a fresh key, a
// change to a row the transaction holds locked — so that it need not be
// waited for: in the store's PostgreSQL transactions it goes out with the
// next statement or the COMMIT (writeWithNext), elsewhere at once.
func (t *tx) later(ctx context.Context, q string, args ...any) error {
	if t.pipelined {
		ctx = context.WithValue(ctx, writeWithNext, true)
	}
	_, err := t.exec(ctx, q, args...)
	return err
}
