package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"
)

// A sweep of a periodic job reads every shard group (fanout.go) in one
// statement, which Citus splits into a task per shard. When one worker is
// down that statement fails as a whole, and so the sweep would stall for
// every merchant while the outage lasts: no payment expires, no webhook
// is claimed. The sweeps where a merchant or a payer waits (the expiries,
// the settlement days, the webhook sender's claim) read through
// readGroups instead: on the first failure to reach a worker, and for as
// long as one stays unreachable, they read worker by worker, each
// worker's shards in one statement of its own, and skip the workers that
// do not answer. Their merchants' due items stay due and are taken up by
// the first sweep after the worker is back. The sweeps whose delay harms
// no one (retention, the fold of ledger totals, the reseal of secrets)
// and the operator's reports and checks, which must see everything, keep
// the single statement and fail until the worker returns.
//
// The statements per worker go through Citus's master_run_on_worker,
// from the coordinator: payd keeps one connection string, the
// coordinator's. Each command names the shards by their own names
// (shard_name) and returns its rows as one JSON array, which jsonRow
// scans as database/sql would.

// groupRead is a read of one distributed table that a sweep makes over
// every shard group: query names the table as {table} and its parameters
// as $1, $2, …; args must not be nil.
type groupRead struct {
	table string
	query string
	args  []any
}

// groupHealth remembers, per Store, that a worker was unreachable: until
// a read by worker finds every worker answering, reads go by worker.
type groupHealth struct {
	byWorker atomic.Bool
	// onSkipped, when set, is told of each read that left out workers'
	// shard groups, with the table and how many workers (Options.OnGroupsSkipped).
	onSkipped func(table string, groups int)
}

// rowScanner is what *sql.Rows and jsonRow share.
type rowScanner interface{ Scan(dest ...any) error }

// readGroups runs r and calls scan for every row it returns; off Citus,
// and while every worker answers, as one statement.
func (t *tx) readGroups(ctx context.Context, r groupRead, scan func(rowScanner) error) error {
	if t.groups == nil || !t.groups.byWorker.Load() {
		err := t.fanOut(ctx, func(t *tx) error {
			return eachRow(ctx, t.q, strings.ReplaceAll(r.query, "{table}", r.table), r.args,
				func(rows *sql.Rows) error { return scan(rows) })
		})
		if t.groups != nil && workerUnreachable(err) {
			// This read fails; the next reads go by worker.
			t.groups.byWorker.Store(true)
		}
		return err
	}
	return t.readByWorker(ctx, r, scan)
}

// workerUnreachable reports an error a Citus coordinator raises when it
// cannot reach a worker: SQLSTATE class 08 (connection exception) in an
// answer of the coordinator itself, which is reachable then.
func workerUnreachable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && strings.HasPrefix(pe.Code, "08")
}

// byWorkerSQL builds, on the coordinator, one command per worker that
// reads r's query on each of the worker's shards of the table ($1), the
// query given as a format string ($2) with its parameters as literals
// ($3), and runs the commands in parallel. A worker that cannot be
// reached or fails answers success false.
const byWorkerSQL = `WITH shard AS (
	SELECT n.nodename, n.nodeport, shard_name(s.logicalrelid, s.shardid) AS name
	FROM pg_dist_shard s
	JOIN pg_dist_placement p ON p.shardid = s.shardid
	JOIN pg_dist_node n ON n.groupid = p.groupid AND n.noderole = 'primary'
	WHERE s.logicalrelid = $1::regclass
), worker AS (
	SELECT nodename, nodeport,
		'SELECT coalesce(json_agg((SELECT json_agg(e.value) FROM json_each(to_json(q)) e)), ''[]'') FROM (' ||
		string_agg('(' || format($2, VARIADIC array_prepend(name::text, $3::text[])) || ')', ' UNION ALL ') || ') q' AS command
	FROM shard GROUP BY nodename, nodeport
)
SELECT r.node_name, r.node_port, r.success, r.result
FROM (SELECT array_agg(nodename) AS names, array_agg(nodeport) AS ports, array_agg(command) AS commands FROM worker) w,
	master_run_on_worker(w.names, w.ports, w.commands, true) r`

func (t *tx) readByWorker(ctx context.Context, r groupRead, scan func(rowScanner) error) error {
	args, err := literalArgs(r.args)
	if err != nil {
		return err
	}
	rows, err := t.q.QueryContext(ctx, byWorkerSQL, r.table, formatQuery(r.query), args)
	if err != nil {
		return err
	}
	defer rows.Close()
	var results [][]byte
	skipped := 0
	for rows.Next() {
		var node, result string
		var port int
		var ok bool
		if err := rows.Scan(&node, &port, &ok, &result); err != nil {
			return err
		}
		if !ok {
			skipped++
			continue
		}
		results = append(results, []byte(result))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if skipped == 0 {
		t.groups.byWorker.Store(false)
	} else if t.groups.onSkipped != nil {
		t.groups.onSkipped(r.table, skipped)
	}
	for _, res := range results {
		var list []jsonRow
		if err := json.Unmarshal(res, &list); err != nil {
			// A worker's own error (not a failure to reach it) comes
			// back as its message.
			return fmt.Errorf("read %s by worker: %s", r.table, res)
		}
		for _, row := range list {
			if err := scan(row); err != nil {
				return err
			}
		}
	}
	return nil
}

var placeholder = regexp.MustCompile(`\$([0-9]+)`)

// formatQuery turns a query into a format() string: {table} becomes the
// shard's name (the first value), $n the n-th parameter as a literal.
func formatQuery(q string) string {
	q = strings.ReplaceAll(q, "%", "%%")
	q = strings.ReplaceAll(q, "{table}", "%1$s")
	return placeholder.ReplaceAllStringFunc(q, func(m string) string {
		n, _ := strconv.Atoi(m[1:])
		return "%" + strconv.Itoa(n+1) + "$L"
	})
}

// literalArgs renders the parameters as text, which format() quotes.
func literalArgs(args []any) ([]string, error) {
	out := make([]string, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			out[i] = v
		case int:
			out[i] = strconv.Itoa(v)
		case int32:
			out[i] = strconv.FormatInt(int64(v), 10)
		case int64:
			out[i] = strconv.FormatInt(v, 10)
		case bool:
			out[i] = strconv.FormatBool(v)
		default:
			return nil, fmt.Errorf("readGroups: parameter %d of type %T", i+1, a)
		}
	}
	return out, nil
}

// jsonRow is a row a worker returned as a JSON array, in column order.
type jsonRow []json.RawMessage

// Scan assigns the row's values as database/sql would for the types the
// sweeps read.
func (r jsonRow) Scan(dest ...any) error {
	if len(dest) != len(r) {
		return fmt.Errorf("jsonRow: %d values into %d destinations", len(r), len(dest))
	}
	for i, d := range dest {
		v := r[i]
		var err error
		switch d := d.(type) {
		case *string:
			err = scanText(v, d)
		case *sql.NullString:
			if d.Valid = string(v) != "null"; d.Valid {
				err = scanText(v, &d.String)
			}
		case *int64:
			err = json.Unmarshal(v, d)
		case *int32:
			err = json.Unmarshal(v, d)
		case *int:
			err = json.Unmarshal(v, d)
		case *bool:
			err = json.Unmarshal(v, d)
		default:
			// A named string type (a currency, a status), as
			// database/sql converts it.
			if rv := reflect.ValueOf(d); rv.Kind() == reflect.Pointer && rv.Elem().Kind() == reflect.String {
				var s string
				if err = scanText(v, &s); err == nil {
					rv.Elem().SetString(s)
				}
				break
			}
			err = fmt.Errorf("destination of type %T", d)
		}
		if err != nil {
			return fmt.Errorf("jsonRow: column %d: %w", i+1, err)
		}
	}
	return nil
}

// scanText reads a text column: a JSON string, or the JSON itself of a
// json or jsonb column.
func scanText(v json.RawMessage, d *string) error {
	if len(v) > 0 && v[0] == '"' {
		return json.Unmarshal(v, d)
	}
	*d = string(v)
	return nil
}
