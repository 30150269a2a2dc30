package jobs

import (
	"context"
	"database/sql/driver"
	"hash/fnv"
	"sync"
)

// lockKind takes the lock a periodic run of kind works under, without
// waiting: ok is false when another run holds it, on this instance or any
// other. On PostgreSQL it is a session advisory lock on a connection of
// its own, held for the run's many transactions and freed by the server
// when that connection ends, so a run whose process died holds nothing;
// on SQLite, whose database one process holds, a mutex.
func (q *Queue) lockKind(ctx context.Context, kind string) (unlock func(), ok bool, err error) {
	if q.dialect != "postgres" {
		m, _ := q.kindLocks.LoadOrStore(kind, new(sync.Mutex))
		mu := m.(*sync.Mutex)
		if !mu.TryLock() {
			return nil, false, nil
		}
		return mu.Unlock, true, nil
	}
	conn, err := q.db.Conn(ctx)
	if err != nil {
		return nil, false, err
	}
	// Advisory locks are the whole database's: the key is mixed with the
	// schema, so that deployments (or tests) in schemas of one database
	// do not hold each other's kinds.
	key := kindLockKey(kind)
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1 # hashtextextended(current_schema(), 0))`, key).Scan(&ok); err != nil || !ok {
		conn.Close()
		return nil, false, err
	}
	return func() {
		// A failed unlock (the connection broke) leaves nothing held
		// once the server ends the session; the connection is thrown
		// away rather than handed back to the pool holding the lock.
		_, uerr := conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1 # hashtextextended(current_schema(), 0))`, key)
		if uerr != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		conn.Close()
	}, true, nil
}

// kindLockKey is the advisory lock key of a periodic kind: the FNV-1a hash
// of "periodic", NUL and the kind, the shape of the store's keys
// (sqlstore/locks.go), so that it meets none of them.
func kindLockKey(kind string) int64 {
	h := fnv.New64a()
	h.Write([]byte("periodic"))
	h.Write([]byte{0})
	h.Write([]byte(kind))
	return int64(h.Sum64())
}
