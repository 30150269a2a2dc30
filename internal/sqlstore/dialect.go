package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// dialect is what differs between the two databases.
type dialect interface {
	// Name is "sqlite" or "postgres".
	Name() string
	// forUpdate is appended to a SELECT that must lock its row.
	forUpdate() string
	// skipLocked is appended to a SELECT that takes rows for work: other
	// workers skip what one has locked.
	skipLocked() string
	// tryLockExpr is an SQL expression that takes a transaction-scoped
	// lock on the BIGINT $1 without waiting and is true when it got it.
	tryLockExpr() string
	// jsonStrings is a subquery of the strings of the JSON array bound
	// to $n, for IN lists whose length must not change a statement's text.
	jsonStrings(n int) string
	// jsonArrays is a FROM item, named k with one column v, of the
	// elements of the JSON array of arrays of strings bound to $n:
	// k.v->>0 is an element's first string. It binds a batch of rows
	// to one statement whose text is the same for any batch.
	jsonArrays(n int) string
	isUnique(err error) bool
	ddl(sql string) string
	// keysetRead runs a list page's query through fn, on q or on a
	// transaction of its own, so that it is planned as a walk of its
	// index in cursor order. fn runs the page's query, as its last, with
	// the context it is given.
	keysetRead(ctx context.Context, q querier, fn func(context.Context, querier) error) error
	// indexedBy follows a list's FROM table to make the query use the
	// named index, where the database takes such a hint.
	indexedBy(index string) string
	// nextFeedSeq is an SQL expression for the next number of the
	// sandbox event feed of the shop bound to $n (migration 0019).
	nextFeedSeq(n int) string
	// fenceLock is a statement that takes a transaction-scoped lock on
	// the BIGINT $1, waiting for it: shared with other sharers, or
	// exclusive. Empty where the database has one writer, which holds
	// everything anyway.
	fenceLock(shared bool) string
	// epochDay is the YYYY-MM-DD text of the UTC day of the BIGINT
	// expression secs, seconds since the Unix epoch.
	epochDay(secs string) string
	// ownSlot is an SQL expression of the slot of a running total that
	// no transaction running beside this one writes (payment_total.go).
	ownSlot() string
	// distributed reports a Citus cluster, where a statement that is to
	// touch one shard group must name it and some statements take
	// another form.
	distributed() bool
}

type sqliteDialect struct{}

func (sqliteDialect) Name() string      { return "sqlite" }
func (sqliteDialect) forUpdate() string { return "" }

// SQLite's one writer already keeps two claims apart.
func (sqliteDialect) skipLocked() string { return "" }

// SQLite has one writer at a time and the store uses one connection, so a
// transaction already excludes every other and the lock is always had; the
// in-process guard of the service answers parallel replays. $1 is still
// named so that both dialects bind the same arguments.
func (sqliteDialect) tryLockExpr() string { return "($1 IS NOT NULL)" }

func (sqliteDialect) jsonStrings(n int) string {
	return "SELECT value FROM json_each($" + strconv.Itoa(n) + ")"
}

func (sqliteDialect) jsonArrays(n int) string {
	return "(SELECT value AS v FROM json_each($" + strconv.Itoa(n) + ")) AS k"
}

func (sqliteDialect) isUnique(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code()
		return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

// ddl turns a migration's PostgreSQL text into SQLite's: BYTEA is BLOB, and
// a cast of a TEXT document to jsonb is dropped, since SQLite's -> and ->>
// read JSON held as text.
//
// SQLite has no sequences: the one migration that creates one (0019, the
// sandbox event feed) numbers the feed by nextFeedSeq instead.
//
// A table's storage parameters (fillfactor, migration 0024) are
// PostgreSQL's: SQLite has none, and the statements setting them are
// dropped.
func (sqliteDialect) ddl(s string) string {
	s = storageParams.ReplaceAllString(s, "")
	return strings.NewReplacer("BYTEA", "BLOB", "::jsonb", "", "CREATE SEQUENCE events_feed_seq;", "").Replace(s)
}

var storageParams = regexp.MustCompile(`(?m)^ALTER TABLE \w+ SET \([a-z_]+ = \d+\);$`)

// nextFeedSeq takes the shop's highest number plus one: the single writer
// makes it unique and gives numbers in commit order, so a feed reader
// never sees a number appear below one it has already read. The partial
// index events_feed makes it one index probe.
func (sqliteDialect) nextFeedSeq(n int) string {
	return "(SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE shop_id = $" + strconv.Itoa(n) + " AND test)"
}

// SQLite's single writer already excludes every other transaction.
func (sqliteDialect) fenceLock(bool) string { return "" }

func (sqliteDialect) keyTarget() string { return "" }

func (sqliteDialect) distributed() bool { return false }

// One writer: every transaction may write the same slot.
func (sqliteDialect) ownSlot() string { return "0" }

func (sqliteDialect) onKey(_ string, n int) string { return " AND $" + strconv.Itoa(n) + " >= 0" }

func (sqliteDialect) epochDay(secs string) string { return "date(" + secs + ", 'unixepoch')" }

// SQLite's planner takes an index that gives the ORDER BY over a sort
// whenever one fits the WHERE, with or without statistics (the plan tests
// check it), so a list page runs as it is.
func (sqliteDialect) indexedBy(index string) string {
	if index == "" {
		return ""
	}
	return " INDEXED BY " + index
}

func (sqliteDialect) keysetRead(ctx context.Context, q querier, fn func(context.Context, querier) error) error {
	return fn(ctx, q)
}

// postgresDialect is PostgreSQL's; citus is set on a Citus coordinator,
// where the merchants' tables are distributed by merchant_key.
type postgresDialect struct{ citus bool }

func (d postgresDialect) distributed() bool { return d.citus }

func (postgresDialect) indexedBy(string) string { return "" }

// keysetRead plans a list page with sorts and bitmap scans ruled out
// (set_config with is_local: for this transaction only), so PostgreSQL
// walks the list's index from the cursor. Left to its statistics it
// chose, on a table that grew after its last ANALYZE (every fresh
// deployment), a bitmap scan of every row older than the cursor and a
// sort of them: a page 100,000 rows deep read 100,000 rows. Outside a
// transaction the page gets a read-only one of its own, in the same round
// trip. A list run inside a caller's transaction leaves the setting on for
// the rest of it; no caller does more than read there.

func (postgresDialect) keysetRead(ctx context.Context, q querier, fn func(context.Context, querier) error) error {
	const plan = `SELECT set_config('enable_sort', 'off', true), set_config('enable_bitmapscan', 'off', true)`
	if r, ok := q.(routed); ok {
		return postgresDialect{}.keysetRead(ctx, r.q, func(ctx context.Context, q querier) error { return fn(ctx, routed{q}) })
	}
	if in, ok := q.(carrying); ok {
		// The settings go out with the page.
		if _, err := in.ExecContext(context.WithValue(ctx, writeWithNext, true), plan); err != nil {
			return err
		}
		return fn(ctx, in)
	}
	if in, ok := q.(*sql.Tx); ok {
		if _, err := in.ExecContext(ctx, plan); err != nil {
			return err
		}
		return fn(ctx, in)
	}
	db, ok := q.(*sql.DB)
	if !ok {
		return fn(ctx, q)
	}
	// One batch (pgpipe.go): BEGIN READ ONLY, the settings, the page
	// and COMMIT.
	tx, err := db.BeginTx(context.WithValue(ctx, beginLater, true), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(context.WithValue(ctx, keepForNext, true), plan); err != nil {
		return err
	}
	if err := fn(context.WithValue(ctx, commitAfter, true), tx); err != nil {
		return err
	}
	return tx.Commit()
}

// nextFeedSeq draws from one sequence for every shop: numbers never repeat
// and never wait for another transaction, but may commit out of order (a
// transaction that drew earlier can commit later) and leave gaps (a
// rollback's). The feed's reader allows for both (docs/sandbox.md).
func (postgresDialect) nextFeedSeq(int) string { return "nextval('events_feed_seq')" }

// fenceLock uses a transaction-level advisory lock: unlike a row lock it
// writes nothing (no tuple header, no multixact for its many sharers) and
// needs no round trip of its own (Tx.IdempotencyLockGet).
func (postgresDialect) fenceLock(shared bool) string {
	if shared {
		return "SELECT pg_advisory_xact_lock_shared($1)"
	}
	return "SELECT pg_advisory_xact_lock($1)"
}

func (postgresDialect) Name() string { return "postgres" }

// ownSlot is the server process's id: a transaction runs in one process,
// and no two live processes share an id.
func (postgresDialect) ownSlot() string    { return "pg_backend_pid()" }
func (postgresDialect) forUpdate() string  { return " FOR UPDATE" }
func (postgresDialect) skipLocked() string { return " FOR UPDATE SKIP LOCKED" }

// tryLockExpr uses a transaction-level advisory lock, released at commit
// or rollback, so several payd instances never run one idempotency key
// twice.
func (postgresDialect) tryLockExpr() string { return "pg_try_advisory_xact_lock($1)" }

func (postgresDialect) jsonStrings(n int) string {
	return "SELECT jsonb_array_elements_text(CAST($" + strconv.Itoa(n) + " AS jsonb))"
}

func (postgresDialect) jsonArrays(n int) string {
	return "jsonb_array_elements(CAST($" + strconv.Itoa(n) + " AS jsonb)) AS k (v)"
}

func (postgresDialect) isUnique(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

func (postgresDialect) ddl(s string) string { return s }

func (postgresDialect) epochDay(secs string) string {
	return "to_char(to_timestamp(" + secs + ") AT TIME ZONE 'UTC', 'YYYY-MM-DD')"
}

// querier is what *sql.DB and *sql.Tx share.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}
