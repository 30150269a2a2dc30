package sqlstore

import (
	"context"

	"github.com/jackc/pgx/v5/pgconn"
)

// customPlansOnCitus has every connection to a Citus coordinator plan each
// statement with its values (plan_cache_mode = force_custom_plan). pgx
// prepares the store's statements once per connection, and PostgreSQL
// turns to a generic plan, one without the values, after five runs of a
// statement. For a merchant's statement whose shard group is named by a
// parameter inside a subquery (the reset's delete of postings, say),
// Citus cannot route a generic plan to the group: it plans it on every
// shard, which a merchant's work must never do, and which the tests'
// multi_task_query_log_level refuses. With custom plans the group is
// known when each statement is planned. A server without Citus is left
// as it is, for one query at connect.
func customPlansOnCitus(next pgconn.AfterConnectFunc) pgconn.AfterConnectFunc {
	return func(ctx context.Context, conn *pgconn.PgConn) error {
		if next != nil {
			if err := next(ctx, conn); err != nil {
				return err
			}
		}
		res := conn.ExecParams(ctx, `SELECT 1 FROM pg_extension WHERE extname = 'citus'`, nil, nil, nil, nil).Read()
		if res.Err != nil || len(res.Rows) == 0 {
			return res.Err
		}
		return conn.Exec(ctx, `SET plan_cache_mode = force_custom_plan`).Close()
	}
}
