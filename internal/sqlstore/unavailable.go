package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paydhq/payd"
)

// UnavailableRetryAfter is the Retry-After of an answer refused because the
// database cannot be reached: a restart of PostgreSQL usually takes a few
// seconds.
const UnavailableRetryAfter = 2 * time.Second

// errUnavailable is what a request gets while the database is away: 503
// provider_unavailable with Retry-After (Errors: 503 is retried with the
// same Idempotency-Key). A change whose COMMIT was cut off may or may not
// have landed; its idempotency record commits with it, so the retry
// either replays it or runs it afresh, never twice.
func errUnavailable() *payd.Error {
	return &payd.Error{Code: payd.CodeProviderUnavailable, Cause: payd.CauseStorage, RetryAfter: UnavailableRetryAfter,
		Message: "storage is unavailable for a moment; retry after the Retry-After seconds with the same Idempotency-Key"}
}

// translate turns a failure to reach the database into errUnavailable, and
// returns every other error unchanged: a contract error of the service
// stays what it is, and an unexpected one stays internal.
func translate(err error) error {
	if err == nil || !unreachable(err) {
		return err
	}
	var pe *payd.Error
	if errors.As(err, &pe) {
		return err
	}
	return errUnavailable()
}

// unreachable reports whether err says the database cannot be reached or
// dropped the connection: it is down, restarting, refusing connections or
// resetting them, or it is not the primary any more (read-only). A
// canceled request is not one of them.
func unreachable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57P01", // admin_shutdown: the server is stopping
			"57P02",      // crash_shutdown
			"57P03",      // cannot_connect_now: starting up or shutting down
			"53300",      // too_many_connections
			readOnlyCode: // a standby or a demoted primary (dropReadOnly)
			return true
		}
		// Class 08: connection exception.
		return strings.HasPrefix(pgErr.Code, "08") || workerLost(pgErr)
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return true
	}
	var netErr net.Error
	switch {
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.As(err, &netErr):
		return true
	}
	// pgx reports a connection it already closed this way, without a
	// type of its own.
	return strings.Contains(err.Error(), "conn closed")
}

// workerLost reports the errors a Citus coordinator raises when it loses
// its connection to a worker inside a transaction: Citus gives them no
// SQLSTATE of their own (XX000), only these messages. Both abort the
// transaction before any worker commits it (the first when a statement's
// connection fails, the second before PREPARE), so the request's retry
// runs it afresh; they are the worker's outage, not a fault of the
// request.
func workerLost(pgErr *pgconn.PgError) bool {
	return pgErr.Code == "XX000" &&
		(strings.HasPrefix(pgErr.Message, "failure on connection marked as essential") ||
			strings.HasPrefix(pgErr.Message, "could not commit transaction for shard"))
}

// A server that refuses writes answers SQLSTATE 25006
// (read_only_sql_transaction): a standby, or a primary made read-only
// (default_transaction_read_only) or demoted without its sessions being
// ended. With a connection string naming every node and
// target_session_attrs=read-write, a new connection lands on whichever node
// is primary now, but one opened before the failover stays where it was and
// would fail every statement for as long as the pool kept it; the job
// queue shares the pool, so its leader would stay there too (riverqueue
// issue 1225). dropReadOnly closes such a connection at its first
// read-only error, so the pool opens a fresh one; the request itself
// answers 503 (unreachable) and its retry reaches the new primary.
func dropReadOnly(next pgconn.PgErrorHandler, onDrop func()) pgconn.PgErrorHandler {
	return func(c *pgconn.PgConn, pe *pgconn.PgError) bool {
		if pe.Code == readOnlyCode {
			if onDrop != nil {
				onDrop()
			}
			return false
		}
		return next == nil || next(c, pe)
	}
}

// readOnlyCode is SQLSTATE read_only_sql_transaction.
const readOnlyCode = "25006"

// writable reports a server that accepts no writes as unavailable: in
// recovery (a standby) or read-only by default. The connection that saw
// it is closed, as dropReadOnly would, so that the next check connects
// afresh.
func writable(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return translate(err)
	}
	defer conn.Close()
	var readOnly bool
	err = conn.QueryRowContext(ctx,
		`SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on'`).Scan(&readOnly)
	if err != nil {
		return translate(err)
	}
	if readOnly {
		// driver.ErrBadConn tells the pool to discard the connection.
		conn.Raw(func(dc any) error {
			if pc, ok := dc.(*pipeConn); ok {
				pc.Conn.Close()
			}
			return driver.ErrBadConn
		})
		return errUnavailable()
	}
	return nil
}
