package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/paydhq/payd"
)

// where accumulates the conditions and arguments of a list query, numbering
// placeholders as it goes.
type where struct {
	conds []string
	args  []any
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
// the limit to tell whether another page exists.
func listPage[T any](ctx context.Context, q querier, sel string, w where, lp payd.ListParams,
	scan func(*sql.Rows) (T, error), key func(T) payd.Cursor) (payd.Page[T], error) {
	limit := lp.Limit
	if limit <= 0 || limit > payd.MaxPageSize {
		limit = payd.DefaultPageSize
	}
	if lp.After != nil {
		// A row-value comparison (both databases have them) is used as an
		// index condition on (created_at, id); the equivalent OR form made
		// PostgreSQL scan every newer row for each page.
		w.add("(created_at, id) < (?, ?)", micros(lp.After.CreatedAt), lp.After.ID)
	}
	query := sel
	if len(w.conds) > 0 {
		query += " WHERE " + strings.Join(w.conds, " AND ")
	}
	query += fmt.Sprintf(" ORDER BY created_at DESC, id DESC LIMIT %d", limit+1)
	rows, err := q.QueryContext(ctx, query, w.args...)
	if err != nil {
		return payd.Page[T]{}, err
	}
	defer rows.Close()
	var page payd.Page[T]
	for rows.Next() {
		item, err := scan(rows)
		if err != nil {
			return payd.Page[T]{}, err
		}
		page.Items = append(page.Items, item)
	}
	if err := rows.Err(); err != nil {
		return payd.Page[T]{}, err
	}
	if len(page.Items) > limit {
		page.Items = page.Items[:limit]
		c := key(page.Items[limit-1])
		page.Next = &c
	}
	return page, nil
}

func joinAnd(conds []string) string { return strings.Join(conds, " AND ") }
