package paydtest

import (
	"database/sql"
	"net/url"
)

// InspectDB is a connection to the service's database for a test's own
// reads and writes of whole tables (counts, dumps, rows planted for a
// case). On a Citus cluster the service's connections refuse statements
// that touch every shard group (sqlstore/fanout.go), a rule for the
// service's work, not for a test's look at everything; these do not.
func (e *Env) InspectDB() *sql.DB {
	e.T.Helper()
	if e.Backend.Name != "citus" {
		return e.Instance.Store.DB()
	}
	u, err := url.Parse(e.DatabaseURL)
	if err != nil {
		e.T.Fatal(err)
	}
	q := u.Query()
	q.Set("citus.multi_task_query_log_level", "off")
	u.RawQuery = q.Encode()
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		e.T.Fatal(err)
	}
	e.T.Cleanup(func() { db.Close() })
	return db
}
