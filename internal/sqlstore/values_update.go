package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// valuesUpdate is an UPDATE of table that applies rows of values in one
// statement (UPDATE ... FROM (VALUES ...) AS v): each row names its target
// by its first value, v.column1; set and cond read the values as
// v.column1, v.column2 and so on, of the SQL types in types. With
// returning, the statement returns that column of each row it changed.
type valuesUpdate struct {
	table, set, cond, returning string
	types                       []string
}

// run applies rows in the shard group of merchant key k. A Citus
// coordinator plans an UPDATE ... FROM VALUES over every shard whatever
// the key, so on a cluster each row has a statement of its own, with its
// values in place of v's columns.
func (u valuesUpdate) run(ctx context.Context, t *tx, k int32, rows [][]any) ([]string, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	ret := ""
	if u.returning != "" {
		ret = " RETURNING " + u.table + "." + u.returning
	}
	n := len(u.types)
	if t.d.distributed() {
		pairs := make([]string, 0, 2*n)
		// Highest first, so that v.column1 does not replace the start
		// of v.column10.
		for i := n; i >= 1; i-- {
			pairs = append(pairs, "v.column"+strconv.Itoa(i), "CAST($"+strconv.Itoa(i)+" AS "+u.types[i-1]+")")
		}
		r := strings.NewReplacer(pairs...)
		q := `UPDATE ` + u.table + ` SET ` + r.Replace(u.set) + ` WHERE ` + u.table + `.id = $1 AND ` + r.Replace(u.cond) +
			` AND ` + u.table + `.merchant_key = $` + strconv.Itoa(n+1) + ret
		var out []string
		for _, row := range rows {
			got, err := u.exec(ctx, t, q, append(row[:n:n], k))
			if err != nil {
				return nil, err
			}
			out = append(out, got...)
		}
		return out, nil
	}
	var b strings.Builder
	args := make([]any, 0, n*len(rows)+1)
	for i, row := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(")
		for j, ty := range u.types {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "CAST($%d AS %s)", len(args)+j+1, ty)
		}
		b.WriteString(")")
		args = append(args, row...)
	}
	args = append(args, k)
	return u.exec(ctx, t, `UPDATE `+u.table+` SET `+u.set+` FROM (VALUES `+b.String()+`) AS v
		WHERE `+u.table+`.id = v.column1 AND `+u.cond+onKey(t.d, u.table+".merchant_key", len(args))+ret, args)
}

func (u valuesUpdate) exec(ctx context.Context, t *tx, q string, args []any) ([]string, error) {
	if u.returning == "" {
		_, err := t.exec(ctx, q, args...)
		return nil, err
	}
	return updatedIDs(ctx, t, q, args)
}
