package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/seal"
)

// The secrets the store must read back in clear are sealed under the
// store's keyring (package seal) on their way in and opened on their way
// out, so that neither a dump of the database nor SQLite's WAL holds them
// in clear: the columns of sealedTables. Each value is bound to its table,
// column and row (sealContext): copied to another row it does not open.
// Secrets that are only compared are hashed by the domain instead (API
// keys, session and setup tokens, confirmation tokens) and are not here.

// sealedTable is a table with sealed columns, walked by key in resealing.
type sealedTable struct {
	name string
	// key are the primary key's columns, in the order of the walk.
	key []string
	// cols are the sealed columns; binary when they are BYTEA.
	cols   []string
	binary bool
	// merchants is set for a table of merchants' rows (citus.go).
	merchants bool
	// since is the migration that made the table, when after 0029: the
	// sealing of secrets in clear (0029) runs before it exists and walks
	// only the tables made before.
	since int
}

var sealedTables = []sealedTable{
	{name: "webhook_endpoints", key: []string{"id"}, cols: []string{"secret", "prev_secret"}, merchants: true},
	{name: "dashboard_users", key: []string{"id"}, cols: []string{"totp_secret", "totp_pending"}},
	{name: "service_secrets", key: []string{"name"}, cols: []string{"value"}, binary: true},
	{name: "idempotency_keys", key: []string{"shop_id", "mode", "idem_key"}, cols: []string{"body"}, binary: true, merchants: true},
	{name: "staff", key: []string{"id"}, cols: []string{"totp_secret", "totp_pending"}, since: 33},
}

// sealedTablesAt are the tables of sealedTables that migration version
// made or found, in sealedTables' order.
func sealedTablesAt(version int) []sealedTable {
	var out []sealedTable
	for _, tb := range sealedTables {
		if tb.since <= version {
			out = append(out, tb)
		}
	}
	return out
}

// sealContext is the additional data of a sealed value: where it lives.
func sealContext(table, col string, key ...string) string {
	return table + "." + col + "\x00" + strings.Join(key, "\x00")
}

// ephemeralKeyring is the keyring of a store opened without one.
func ephemeralKeyring() *seal.Keyring {
	line, err := seal.Generate("ephemeral")
	if err != nil {
		panic("sqlstore: " + err.Error())
	}
	k, err := seal.Parse(line)
	if err != nil {
		panic("sqlstore: " + err.Error())
	}
	return k
}

// sealText seals a text secret; "" stays "": an empty column says there
// is no secret (a user without a second factor), and is read as such.
func (t *tx) sealText(plain string, table, col string, key ...string) string {
	if plain == "" {
		return ""
	}
	return t.keys.Seal([]byte(plain), sealContext(table, col, key...))
}

// openText opens what sealText stored.
func (t *tx) openText(v string, table, col string, key ...string) (string, error) {
	if v == "" {
		return "", nil
	}
	b, err := t.keys.Open(v, sealContext(table, col, key...))
	if err != nil {
		return "", fmt.Errorf("%s.%s of %s: %w", table, col, strings.Join(key, "/"), err)
	}
	return string(b), nil
}

// sealBytes seals a binary secret; nil stays nil (NULL).
func (t *tx) sealBytes(plain []byte, table, col string, key ...string) []byte {
	if plain == nil {
		return nil
	}
	return []byte(t.keys.Seal(plain, sealContext(table, col, key...)))
}

// openBytes opens what sealBytes stored.
func (t *tx) openBytes(v []byte, table, col string, key ...string) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	b, err := t.keys.Open(string(v), sealContext(table, col, key...))
	if err != nil {
		return nil, fmt.Errorf("%s.%s of %s: %w", table, col, strings.Join(key, "/"), err)
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// resealCursor is where a walk of sealedTables stands: the table's index
// and the key of the last row done there (none: from its start).
type resealCursor struct {
	Table int      `json:"t"`
	After []string `json:"k,omitempty"`
}

// SecretsReseal seals again, under the keyring's first key, the values of
// at most limit rows after cursor that another key sealed. With one key
// there is nothing to do: a value under another key would not open.
func (t *tx) secretsReseal(ctx context.Context, cursor string, limit int) (string, int, error) {
	if len(t.keys.IDs()) < 2 {
		return "", 0, nil
	}
	return t.resealBatch(ctx, sealedTables, cursor, limit)
}

// resealBatch walks at most limit rows of tables from cursor and
// seals under the first key each value that is not: one sealed under
// another key, or one in clear (those migration 0029 finds). It returns
// the cursor after them, "" once the last table is done.
func (t *tx) resealBatch(ctx context.Context, tables []sealedTable, cursor string, limit int) (string, int, error) {
	var c resealCursor
	if cursor != "" {
		if err := json.Unmarshal([]byte(cursor), &c); err != nil || c.Table < 0 || c.Table >= len(tables) {
			return "", 0, fmt.Errorf("reseal: bad cursor %q", cursor)
		}
	}
	tb := tables[c.Table]
	// On a cluster the walk over every merchant's rows cannot lock them:
	// each row is rewritten only if it still holds what was read, and
	// one a writer changed meanwhile is left, sealed by it with the
	// current key.
	lock, cas := t.d.forUpdate(), tb.merchants && t.d.distributed()
	keyCol := "0"
	if cas {
		lock, keyCol = "", "merchant_key"
	}
	q := "SELECT " + strings.Join(tb.key, ", ") + ", " + strings.Join(tb.cols, ", ") + ", " + keyCol + " FROM " + tb.name
	var args []any
	if len(c.After) == len(tb.key) {
		var ph []string
		for i, k := range c.After {
			ph, args = append(ph, "$"+strconv.Itoa(i+1)), append(args, k)
		}
		q += " WHERE (" + strings.Join(tb.key, ", ") + ") > (" + strings.Join(ph, ", ") + ")"
	}
	q += " ORDER BY " + strings.Join(tb.key, ", ") + " LIMIT " + strconv.Itoa(limit) + lock
	type row struct {
		key  []string
		vals [][]byte
		mkey int32
	}
	var rows []row
	err := eachRow(ctx, t.q, q, args, func(r *sql.Rows) error {
		keys := make([]string, len(tb.key))
		vals := make([][]byte, len(tb.cols))
		dst := make([]any, 0, len(keys)+len(vals))
		for i := range keys {
			dst = append(dst, &keys[i])
		}
		for i := range vals {
			dst = append(dst, &vals[i])
		}
		var mkey int32
		if err := r.Scan(append(dst, &mkey)...); err != nil {
			return err
		}
		rows = append(rows, row{keys, vals, mkey})
		return nil
	})
	if err != nil {
		return "", 0, fmt.Errorf("reseal %s: %w", tb.name, err)
	}
	done := 0
	for _, r := range rows {
		var sets []string
		var args []any
		for i, col := range tb.cols {
			v := string(r.vals[i])
			if r.vals[i] == nil || (v == "" && !tb.binary) {
				continue
			}
			ctxt := sealContext(tb.name, col, r.key...)
			var nv string
			if _, sealed := seal.KeyID(v); sealed {
				var changed bool
				var err error
				if nv, changed, err = t.keys.Reseal(v, ctxt); err != nil {
					return "", done, fmt.Errorf("reseal %s.%s of %s: %w", tb.name, col, strings.Join(r.key, "/"), err)
				} else if !changed {
					continue
				}
			} else {
				nv = t.keys.Seal(r.vals[i], ctxt)
			}
			args = append(args, nv)
			if tb.binary {
				args[len(args)-1] = []byte(nv)
			}
			sets = append(sets, col+" = $"+strconv.Itoa(len(args)))
		}
		if len(sets) == 0 {
			continue
		}
		var where []string
		for i, k := range tb.key {
			args = append(args, r.key[i])
			where = append(where, k+" = $"+strconv.Itoa(len(args)))
		}
		if cas {
			args = append(args, r.mkey)
			where = append(where, "merchant_key = $"+strconv.Itoa(len(args)))
			for i, col := range tb.cols {
				args = append(args, r.vals[i])
				if !tb.binary {
					args[len(args)-1] = string(r.vals[i])
				}
				where = append(where, col+" IS NOT DISTINCT FROM $"+strconv.Itoa(len(args)))
			}
		}
		res, err := t.exec(ctx, "UPDATE "+tb.name+" SET "+strings.Join(sets, ", ")+" WHERE "+strings.Join(where, " AND "), args...)
		if err != nil {
			return "", done, fmt.Errorf("reseal %s: %w", tb.name, err)
		}
		n, err := res.RowsAffected()
		switch {
		case err != nil:
			return "", done, err
		case n == 0 && !cas:
			return "", done, fmt.Errorf("reseal %s: %w", tb.name, payd.ErrNoRows)
		case n > 0:
			done++
		}
	}
	next := resealCursor{Table: c.Table + 1}
	if len(rows) == limit {
		next = resealCursor{Table: c.Table, After: rows[len(rows)-1].key}
	} else if next.Table == len(tables) {
		return "", done, nil
	}
	b, _ := json.Marshal(next)
	return string(b), done, nil
}
