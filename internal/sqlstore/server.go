package sqlstore

import (
	"context"

	"github.com/jackc/pgx/v5/pgconn"
)

// serverIdentity names the server a connection reached: its address and
// port as the server sees them, and when its postmaster started. A
// promoted standby has another address (or, behind one address, another
// start time); a restarted server another start time.
const serverIdentity = `SELECT coalesce(host(inet_server_addr()), 'socket') || ':' || coalesce(inet_server_port(), 0)::text || ' ' || pg_postmaster_start_time()::text`

// reportServer runs next, then tells onServer which server the new
// connection reached. A connection whose server cannot say is kept and
// reported as nothing: the identity is for metrics, never a reason to
// refuse a connection.
func reportServer(next pgconn.AfterConnectFunc, onServer func(string)) pgconn.AfterConnectFunc {
	return func(ctx context.Context, conn *pgconn.PgConn) error {
		if next != nil {
			if err := next(ctx, conn); err != nil {
				return err
			}
		}
		res := conn.ExecParams(ctx, serverIdentity, nil, nil, nil, nil).Read()
		if res.Err == nil && len(res.Rows) == 1 && len(res.Rows[0]) == 1 {
			onServer(string(res.Rows[0][0]))
		}
		return nil
	}
}
