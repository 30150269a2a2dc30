package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/seal"
)

// Group commit on SQLite.
//
// SQLite has one writer, and with synchronous=FULL every commit waits for
// its WAL to reach the disk: concurrent transactions take turns, and each
// pays a flush of its own. PostgreSQL lets the commits that wait at the
// same moment share one flush; SQLite does not, so the store does it.
// Store.Tx queues its transaction, and whoever finds the writer free leads:
// it runs the transactions waiting at that moment, in their order, as one
// database transaction, each inside a savepoint of its own, and commits
// once. A transaction whose fn fails is rolled back to its savepoint and
// leaves the others as they were; each sees the effects of those before it
// and none of those after, exactly as if they had run one by one; none
// returns before the COMMIT that makes it durable, and if that COMMIT
// fails, every one of them fails. Alone in the queue, a transaction runs
// as it always did, without a savepoint.

// maxGroup bounds the transactions of one commit, so that none waits for
// more than that many others.
const maxGroup = 64

// commitGroup is the queue of a SQLite store's transactions.
type commitGroup struct {
	db   *sql.DB
	d    dialect
	keys *seal.Keyring

	mu      sync.Mutex
	waiting []*grouped
	leading bool // a transaction is leading a group
}

// grouped is a transaction waiting in the queue or running in a group.
type grouped struct {
	ctx context.Context
	fn  func(payd.Tx) error
	// wake receives true when the transaction is to lead the next group,
	// false when its group ended; err is then its outcome.
	wake     chan bool
	err      error
	panicked any
	after    []func()
}

// run is Store.Tx on SQLite.
func (g *commitGroup) run(ctx context.Context, fn func(payd.Tx) error) error {
	me := &grouped{ctx: ctx, fn: fn, wake: make(chan bool, 1)}
	g.mu.Lock()
	g.waiting = append(g.waiting, me)
	lead := !g.leading
	g.leading = true
	g.mu.Unlock()
	if !lead {
		// No return before the group ends, even for a canceled request:
		// its fn may be running in it. A transaction waits here at most
		// as long as the writer's turn would have taken.
		lead = <-me.wake
	}
	if lead {
		g.lead()
	}
	if me.panicked != nil {
		panic(me.panicked)
	}
	if me.err == nil {
		for _, f := range me.after {
			f()
		}
	}
	return me.err
}

// lead runs one group: the leader and those queued behind it, up to the
// first bulk transaction (payd.WithBulk), which runs alone: requests
// queued beside a sandbox reset's batch commit without waiting for it.
// Then it hands the lead to the first transaction queued meanwhile, if
// any.
func (g *commitGroup) lead() {
	g.mu.Lock()
	n := 1
	if !payd.IsBulk(g.waiting[0].ctx) {
		for n < min(len(g.waiting), maxGroup) && !payd.IsBulk(g.waiting[n].ctx) {
			n++
		}
	}
	group := append([]*grouped(nil), g.waiting[:n]...)
	g.waiting = append(g.waiting[:0], g.waiting[n:]...)
	g.mu.Unlock()

	finished := false
	defer func() {
		// Even when commit panics (in the driver): no member may wait
		// forever, or take a group that did not commit for one that did.
		if !finished {
			for _, m := range group {
				if m.err == nil {
					m.err = errGroupBroken
				}
			}
		}
		for _, m := range group[1:] {
			m.wake <- false
		}
		g.mu.Lock()
		if len(g.waiting) > 0 {
			g.waiting[0].wake <- true
		} else {
			g.leading = false
		}
		g.mu.Unlock()
	}()
	g.commit(group)
	finished = true
}

// errGroupBroken: the database ended the group's transaction under it (a
// savepoint could not be rolled back to or released), so nothing of the
// group can be committed.
var errGroupBroken = errors.New("the group's transaction was ended by the database")

// commit runs the group in one transaction and sets each member's outcome.
func (g *commitGroup) commit(group []*grouped) {
	// The transaction outlives any one request: a member's cancellation
	// must not end the others'. Its statements carry the leader's values
	// (its trace).
	ctx := context.WithoutCancel(group[0].ctx)
	fail := func(err error) {
		for _, m := range group {
			if m.err == nil && m.panicked == nil {
				m.err = err
			}
		}
	}
	sqlTx, err := g.db.BeginTx(ctx, nil)
	if err != nil {
		fail(translate(fmt.Errorf("begin: %w", err)))
		return
	}
	alone := len(group) == 1
	for _, m := range group {
		if m.err = m.ctx.Err(); m.err != nil {
			continue
		}
		if err := g.one(ctx, sqlTx, m, alone); err != nil {
			_ = sqlTx.Rollback()
			fail(err)
			return
		}
	}
	if alone && (group[0].err != nil || group[0].panicked != nil) {
		_ = sqlTx.Rollback()
		return
	}
	if err := sqlTx.Commit(); err != nil {
		fail(translate(fmt.Errorf("commit: %w", err)))
	}
}

// one runs a member's fn in the group's transaction: inside a savepoint,
// rolled back to when fn fails or panics, unless the member is alone (the
// whole transaction then rolls back). Its fn's statements are not canceled
// with its request: an interrupted write would end the whole transaction.
// An error returned by one breaks the group.
func (g *commitGroup) one(ctx context.Context, sqlTx *sql.Tx, m *grouped, alone bool) error {
	t := &tx{q: uncanceled{sqlTx}, sqlTx: sqlTx, d: g.d, keys: g.keys}
	if !alone {
		if _, err := sqlTx.ExecContext(ctx, "SAVEPOINT member"); err != nil {
			return translate(err)
		}
	}
	m.err, m.panicked = call(m, t)
	if m.err == nil && m.panicked == nil {
		m.err = t.beforeCommit(ctx)
	}
	m.err = translate(m.err)
	failed := m.err != nil || m.panicked != nil
	if !failed {
		m.after = t.afterCommit
	}
	if alone {
		return nil
	}
	if failed {
		if _, err := sqlTx.ExecContext(ctx, "ROLLBACK TO member"); err != nil {
			return fmt.Errorf("%w: %v", errGroupBroken, err)
		}
	}
	if _, err := sqlTx.ExecContext(ctx, "RELEASE member"); err != nil {
		return fmt.Errorf("%w: %v", errGroupBroken, err)
	}
	return nil
}

// call runs m's fn, turning a panic into a value its own goroutine panics
// with again (run).
func call(m *grouped, t *tx) (err error, panicked any) {
	defer func() {
		if p := recover(); p != nil {
			panicked = p
		}
	}()
	return m.fn(t), nil
}

// uncanceled runs statements without their context's cancellation: in a
// group, a write interrupted for one request would end the transaction
// of all (SQLite rolls back a transaction whose write was interrupted).
// A member's fn runs for a few milliseconds at most, and a request that
// is gone by its turn is not run at all (commit).
type uncanceled struct{ q *sql.Tx }

func (u uncanceled) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return u.q.ExecContext(context.WithoutCancel(ctx), query, args...)
}

func (u uncanceled) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return u.q.QueryContext(context.WithoutCancel(ctx), query, args...)
}

func (u uncanceled) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return u.q.QueryRowContext(context.WithoutCancel(ctx), query, args...)
}
