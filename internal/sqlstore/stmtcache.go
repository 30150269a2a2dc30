package sqlstore

import (
	"container/list"
	"context"
	"database/sql/driver"
	"errors"
	"reflect"
)

// SQLite connections keep each statement text they run prepared, so a
// statement is parsed and planned once per connection instead of on every
// call. modernc.org/sqlite prepares, runs and finalizes a statement for each
// Exec or Query it is handed; under load that parsing was about a quarter of
// the CPU of the single writer connection (docs/benchmarks-history.md). PostgreSQL
// needs none of this: pgx caches prepared statements per connection itself.
//
// database/sql never uses one driver connection from two goroutines at once
// (every call and every Rows.Close holds the connection's lock), so the cache
// needs no lock of its own.

// stmtCacheSize is how many statement texts a connection keeps prepared.
// The store's statements are a few dozen fixed texts, plus multi-row INSERTs
// and IN lists whose text depends on their length; the least recently used
// is finalized when the cache is full.
const stmtCacheSize = 128

// cachingConnector opens SQLite connections that cache their statements.
type cachingConnector struct {
	driver.Connector
}

func (c cachingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return newCachingConn(conn)
}

// innerConn is what the wrapped SQLite connection implements and the cache
// passes through.
type innerConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

type cachingConn struct {
	innerConn
	lru   *list.List // of *cachedStmt, most recently used first
	texts map[string]*list.Element
}

// cachedStmt is one prepared statement; busy while rows read from it.
type cachedStmt struct {
	text   string
	stmt   driver.Stmt
	busy   bool
	closed bool // evicted while busy: finalize when its rows close
}

func newCachingConn(c driver.Conn) (driver.Conn, error) {
	in, ok := c.(innerConn)
	if !ok {
		c.Close()
		return nil, errors.New("sqlstore: the SQLite driver's connection lacks an interface the statement cache needs")
	}
	return &cachingConn{innerConn: in, lru: list.New(), texts: map[string]*list.Element{}}, nil
}

// lookup returns the statement prepared for text, preparing it when it is
// new, or nil when it is reading rows (a query run again before its rows are
// closed then runs unprepared).
func (c *cachingConn) lookup(ctx context.Context, text string) (*cachedStmt, error) {
	if el, ok := c.texts[text]; ok {
		cs := el.Value.(*cachedStmt)
		if cs.busy {
			return nil, nil
		}
		c.lru.MoveToFront(el)
		return cs, nil
	}
	st, err := c.innerConn.PrepareContext(ctx, text)
	if err != nil {
		return nil, err
	}
	cs := &cachedStmt{text: text, stmt: st}
	c.texts[text] = c.lru.PushFront(cs)
	if c.lru.Len() > stmtCacheSize {
		c.evict(c.lru.Back())
	}
	return cs, nil
}

func (c *cachingConn) evict(el *list.Element) {
	cs := c.lru.Remove(el).(*cachedStmt)
	delete(c.texts, cs.text)
	cs.closed = true
	if !cs.busy {
		cs.stmt.Close()
	}
}

func (c *cachingConn) ExecContext(ctx context.Context, text string, args []driver.NamedValue) (driver.Result, error) {
	cs, err := c.lookup(ctx, text)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.innerConn.ExecContext(ctx, text, args)
	}
	return cs.stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (c *cachingConn) QueryContext(ctx context.Context, text string, args []driver.NamedValue) (driver.Rows, error) {
	cs, err := c.lookup(ctx, text)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.innerConn.QueryContext(ctx, text, args)
	}
	rows, err := cs.stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	cs.busy = true
	return &cachedRows{Rows: rows, cs: cs}, nil
}

// Close finalizes every cached statement before the connection: SQLite
// keeps a connection with unfinalized statements open.
func (c *cachingConn) Close() error {
	for el := c.lru.Front(); el != nil; el = el.Next() {
		cs := el.Value.(*cachedStmt)
		if !cs.busy {
			cs.stmt.Close()
		}
	}
	c.lru.Init()
	clear(c.texts)
	return c.innerConn.Close()
}

// cachedRows gives its statement back to the cache when closed.
type cachedRows struct {
	driver.Rows
	cs *cachedStmt
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	if r.cs != nil {
		r.cs.busy = false
		if r.cs.closed {
			r.cs.stmt.Close()
		}
		r.cs = nil
	}
	return err
}

// The column-type methods of the SQLite rows, for sql.Rows.ColumnTypes.

func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *cachedRows) ColumnTypeNullable(i int) (nullable, ok bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}
