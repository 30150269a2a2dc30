package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/paydhq/payd"
)

// where accumulates the conditions and arguments of a list query, numbering
// placeholders as it goes.
type where struct {
	conds []string
	args  []any
	// unique is set when the conditions pin at most one row through a
	// unique index (a payment's order_id): the page then needs no order,
	// and asking for one would make PostgreSQL, which must not sort a
	// list, walk the shop's whole list index instead of the unique one.
	unique bool
	// index is the index the page walks, named to SQLite (INDEXED BY):
	// without statistics it may prefer an index matching more of the
	// filters and sort what it finds. PostgreSQL is steered by
	// keysetRead instead, since it takes no index names.
	index string
}

// add appends a condition whose placeholders are written as ? and numbered
// here.
func (w *where) add(cond string, args ...any) {
	for _, a := range args {
		w.args = append(w.args, a)
		cond = strings.Replace(cond, "?", fmt.Sprintf("$%d", len(w.args)), 1)
	}
	w.conds = append(w.conds, cond)
}

// addKey appends the condition that names the shard group of the rows of
// merchant key k (dialect.onKey).
func (w *where) addKey(d dialect, k int32) {
	w.args = append(w.args, k)
	w.conds = append(w.conds, strings.TrimPrefix(onKey(d, "merchant_key", len(w.args)), " AND "))
}

func (w *where) createdRange(r payd.TimeRange) {
	if r.GTE != nil {
		w.add("created_at >= ?", micros(*r.GTE))
	}
	if r.LT != nil {
		w.add("created_at < ?", micros(*r.LT))
	}
}

// listPage runs the one list query shape of the service: newest first by
// (created_at, id), keyset pagination after the cursor, one row more than
// the limit to tell whether another page exists. Every list has an index
// that leads with its equality filters and goes on in (created_at, id)
// order, so a page is a walk of limit+1 index entries from the cursor,
// however deep the cursor is: keysetRead makes sure PostgreSQL walks it
// whatever its statistics say.
func listPage[T any](ctx context.Context, t *tx, sel string, w where, lp payd.ListParams,
	scan func(*sql.Rows) (T, error), key func(T) payd.Cursor) (payd.Page[T], error) {
	return keysetPage(ctx, t, sel, w, newestFirst, lp, scan, key)
}

// keyset is the order a list walks: a time column, then id, both in one
// direction. The cursor's CreatedAt holds the time column's value.
type keyset struct {
	column    string
	ascending bool
}

// newestFirst is the order of the lists of the contract.
var newestFirst = keyset{column: "created_at"}

// pageSize is the number of items of a page lp asks for.
func pageSize(lp payd.ListParams) int {
	if lp.Limit <= 0 || lp.Limit > payd.MaxPageSize {
		return payd.DefaultPageSize
	}
	return lp.Limit
}

// keysetPage is listPage in the order by: the same shape, for a list
// whose index goes on in by's order (the dispute queue's, by deadline).
func keysetPage[T any](ctx context.Context, t *tx, sel string, w where, by keyset, lp payd.ListParams,
	scan func(*sql.Rows) (T, error), key func(T) payd.Cursor) (payd.Page[T], error) {
	limit := pageSize(lp)
	op, dir := "<", " DESC"
	if by.ascending {
		op, dir = ">", ""
	}
	if lp.After != nil {
		// A row-value comparison (both databases have them) is used as an
		// index condition on (column, id); the equivalent OR form made
		// PostgreSQL scan every newer row for each page.
		w.add("("+by.column+", id) "+op+" (?, ?)", micros(lp.After.CreatedAt), lp.After.ID)
	}
	query := sel + t.d.indexedBy(w.index)
	if len(w.conds) > 0 {
		query += " WHERE " + strings.Join(w.conds, " AND ")
	}
	if !w.unique {
		query += " ORDER BY " + by.column + dir + ", id" + dir
	}
	query += fmt.Sprintf(" LIMIT %d", limit+1)
	var page payd.Page[T]
	err := t.d.keysetRead(ctx, t.q, func(pageCtx context.Context, q querier) error {
		if err := recordPlan(ctx, t.d, q, query, w.args); err != nil {
			return err
		}
		rows, err := q.QueryContext(pageCtx, query, w.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			item, err := scan(rows)
			if err != nil {
				return err
			}
			page.Items = append(page.Items, item)
		}
		return rows.Err()
	})
	if err != nil {
		return payd.Page[T]{}, err
	}
	if len(page.Items) > limit {
		page.Items = page.Items[:limit]
		c := key(page.Items[limit-1])
		page.Next = &c
	}
	return page, nil
}

// PlanFunc receives the query of a list page (or of a sandbox reset's
// pick) and the database's plan of it, as text.
type PlanFunc func(query, plan string)

type planKey struct{}

// WithPlans returns a context under which every list page, and every
// pick of a sandbox reset's batch, also asks the database for its plan and
// hands it to fn: the plan tests check that each walks an index in its
// order.
func WithPlans(ctx context.Context, fn PlanFunc) context.Context {
	return context.WithValue(ctx, planKey{}, fn)
}

// recordPlan hands query's plan to the PlanFunc of ctx, if it has one.
func recordPlan(ctx context.Context, d dialect, q querier, query string, args []any) error {
	rec, ok := ctx.Value(planKey{}).(PlanFunc)
	if !ok {
		return nil
	}
	plan, err := explain(ctx, d, q, query, args)
	if err != nil {
		return err
	}
	rec(query, plan)
	return nil
}

// explain returns the database's plan of query, one line per node.
func explain(ctx context.Context, d dialect, q querier, query string, args []any) (string, error) {
	prefix, col := "EXPLAIN ", 0
	if d.Name() == "sqlite" {
		prefix, col = "EXPLAIN QUERY PLAN ", 3 // id, parent, notused, detail
	}
	rows, err := q.QueryContext(ctx, prefix+query, args...)
	if err != nil {
		return "", fmt.Errorf("explain: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		lines = append(lines, fmt.Sprint(vals[col]))
	}
	return strings.Join(lines, "\n"), rows.Err()
}

// dueRows is the read of every expiry sweep: the ids and due times of
// rows whose column is at or before now, in (column, id) order after the
// position (afterAt, afterID), at most limit, among those that meet cond
// (statusIn, or a condition of its own whose parameters start at $5).
// Each sweep has an index on its condition's columns, then (column, id).
func dueRows[T any](ctx context.Context, t *tx, table, column, cond string, condArgs []any, now, afterAt time.Time, afterID string,
	limit int, row func(id string, at time.Time) T) ([]T, error) {
	args := append([]any{micros(now), micros(afterAt), afterID, limit}, condArgs...)
	type due struct {
		id string
		at int64
	}
	var got []due
	err := t.readGroups(ctx, groupRead{table: table, args: args, query: `SELECT id, ` + column + ` FROM {table}
		WHERE ` + cond + ` AND ` + column + ` <= $1 AND (` + column + `, id) > ($2, $3)
		ORDER BY ` + column + `, id LIMIT $4`}, func(r rowScanner) error {
		var d due
		if err := r.Scan(&d.id, &d.at); err != nil {
			return err
		}
		got = append(got, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Read worker by worker, each worker answers a page of its own: the
	// page is the first limit of them all, in order, so that its last is
	// where the next page starts.
	slices.SortFunc(got, func(a, b due) int { return cmp.Or(cmp.Compare(a.at, b.at), strings.Compare(a.id, b.id)) })
	got = got[:min(len(got), limit)]
	out := make([]T, len(got))
	for i, d := range got {
		out[i] = row(d.id, fromMicros(d.at))
	}
	return out, nil
}

// statusIn is dueRows' condition of rows whose status is one of statuses.
func statusIn(statuses ...string) (string, []any) {
	marks := make([]string, len(statuses))
	args := make([]any, len(statuses))
	for i, st := range statuses {
		marks[i], args[i] = fmt.Sprintf("$%d", 5+i), st
	}
	return "status IN (" + strings.Join(marks, ", ") + ")", args
}

func joinAnd(conds []string) string { return strings.Join(conds, " AND ") }
