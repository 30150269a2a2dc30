package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
)

// onKey is the condition " AND col = $n" that names a statement's shard
// group on a Citus cluster, col being a merchant_key column and $n the key
// of the rows. Where nothing is distributed the key is not read and the
// condition only binds $n.
func onKey(d dialect, col string, n int) string {
	if d.distributed() {
		return " AND " + col + " = $" + strconv.Itoa(n)
	}
	return " AND $" + strconv.Itoa(n) + " >= 0"
}

// keyTarget is what an ON CONFLICT target of a table distributed by
// merchant_key adds after its columns: on a Citus cluster every unique
// index holds the distribution column (citus.go).
func keyTarget(d dialect) string {
	if d.distributed() {
		return ", merchant_key"
	}
	return ""
}

// keyOf is the merchant key (migration 0032) of a row, as a statement's
// argument, read off the first of ids that is not empty: a row is given
// its merchant's id where it has one, else its own id, which the service
// makes with its merchant's key (payd.IDGen.NewFor).
func keyOf(ids ...string) routeKey {
	for _, id := range ids {
		if id != "" {
			return routeKey(id)
		}
	}
	return ""
}

// merchantKey is the key of a merchant's rows, read off its id.
func merchantKey(merchantID string) int32 { return int32(payd.KeyOf(merchantID)) }

// routeKey is an argument that stands for the merchant key of an object's
// rows, given as the object's identifier. Bound as it is, it is the key
// the identifier carries. On a cluster the store's statements go through
// routed, which gives an identifier made before merchant keys existed the
// key of its merchant from the directory of such identifiers.
type routeKey string

// Value is the key the identifier carries.
func (k routeKey) Value() (driver.Value, error) { return int64(payd.KeyOf(string(k))), nil }

// unkeyed reports whether id may be one made before merchant keys: it
// carries random bits where its merchant's key would be. A merchant's own
// id is its key.
func unkeyed(id string) bool {
	return len(id) >= 26 && !payd.KeyCarried(id) && !strings.HasPrefix(id, payd.PrefixMerchant)
}

// idKey is the merchant key of the rows of object id (a shop's, an
// entry's, …), for code that needs it before the statement: grouping rows
// by shard group, a list's condition.
func (t *tx) idKey(ctx context.Context, id string) (int32, error) {
	if !t.d.distributed() || !unkeyed(id) {
		return int32(payd.KeyOf(id)), nil
	}
	return directoryKey(ctx, t.q, id)
}

// The directory of identifiers made before merchant keys (unkeyed_ids,
// made by distribute in citus.go) holds each one's merchant key. It is a
// table distributed by the identifier, so a look-up is one statement on
// one worker; a cluster made empty has no such identifiers and never
// reads it. An entry never changes, and the keys read are kept, up to
// directoryCached of them: an older database's hot objects are read from
// memory, and a walk over millions of them does not hold them all.
const directoryCached = 1 << 16

var directory struct {
	sync.Mutex
	keys map[string]int32
}

// directoryKey reads id's key from the directory; an id it does not hold
// (one that names nothing) has the key it carries.
func directoryKey(ctx context.Context, q querier, id string) (int32, error) {
	directory.Lock()
	k, ok := directory.keys[id]
	directory.Unlock()
	if ok {
		return k, nil
	}
	err := q.QueryRowContext(alone{ctx}, `SELECT merchant_key FROM unkeyed_ids WHERE id = $1`, id).Scan(&k)
	if errors.Is(err, sql.ErrNoRows) {
		return int32(payd.KeyOf(id)), nil
	}
	if err != nil {
		return 0, err
	}
	directory.Lock()
	if len(directory.keys) >= directoryCached || directory.keys == nil {
		directory.keys = make(map[string]int32)
	}
	directory.keys[id] = k
	directory.Unlock()
	return k, nil
}

// alone is the context of a statement the store adds before one of its
// own: it carries none of what the statement it precedes may hold back or
// send with it (pgpipe.go).
type alone struct{ context.Context }

func (c alone) Value(key any) any {
	if _, ok := key.(pipeCtxKey); ok {
		return nil
	}
	return c.Context.Value(key)
}

// routed is the querier of a cluster's store: it binds every routeKey
// argument to the key of its object's merchant, from the directory where
// the identifier does not carry it.
type routed struct{ q querier }

// route is q as the store's statements use it with dialect d.
func route(d dialect, q querier) querier {
	if d.distributed() {
		return routed{q}
	}
	return q
}

// unrouted is the querier under q.
func unrouted(q querier) querier {
	if r, ok := q.(routed); ok {
		return r.q
	}
	return q
}

func (r routed) bind(ctx context.Context, args []any) ([]any, error) {
	var out []any
	for i, a := range args {
		k, ok := a.(routeKey)
		if !ok || !unkeyed(string(k)) {
			continue
		}
		v, err := directoryKey(ctx, r.q, string(k))
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = slices.Clone(args)
		}
		out[i] = v
	}
	if out == nil {
		return args, nil
	}
	return out, nil
}

func (r routed) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	args, err := r.bind(ctx, args)
	if err != nil {
		return nil, err
	}
	return r.q.ExecContext(ctx, query, args...)
}

func (r routed) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	args, err := r.bind(ctx, args)
	if err != nil {
		return nil, err
	}
	return r.q.QueryContext(ctx, query, args...)
}

// QueryRowContext reports a failed look-up as the row's error, through a
// context canceled with it: a *sql.Row cannot be made otherwise.
func (r routed) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	bound, err := r.bind(ctx, args)
	if err != nil {
		failed, cancel := context.WithCancelCause(ctx)
		cancel(err)
		return r.q.QueryRowContext(failed, query, args...)
	}
	return r.q.QueryRowContext(ctx, query, bound...)
}

// onShop adds to w the condition that names the shard group of shopID's
// rows.
func (t *tx) onShop(ctx context.Context, w *where, shopID string) error {
	k, err := t.idKey(ctx, shopID)
	if err != nil {
		return err
	}
	w.addKey(t.d, k)
	return nil
}

// onOwner is onKey for the ledger rows of owner: a merchant's are in its
// shard group; the service's are spread over every group, one part per
// merchant (citus.go, rebuildServiceTotals), and their sums are read from
// all of them. $n is bound either way.
func (t *tx) onOwner(owner string, n int) string {
	if owner == ledger.ServiceOwner {
		return " AND $" + strconv.Itoa(n) + " >= 0"
	}
	return onKey(t.d, "merchant_key", n)
}

// keyGroups calls fn with the positions in ids of each shard group's, in
// the order the groups first appear: on a cluster, where a statement names
// one group, a call per merchant key; elsewhere one call for all, with
// key 0, which nothing reads.
func (t *tx) keyGroups(ctx context.Context, ids []string, fn func(k int32, at []int) error) error {
	if !t.d.distributed() {
		at := make([]int, len(ids))
		for i := range at {
			at[i] = i
		}
		return fn(0, at)
	}
	groups := map[int32][]int{}
	var order []int32
	for i, id := range ids {
		k, err := t.idKey(ctx, id)
		if err != nil {
			return err
		}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	for _, k := range order {
		if err := fn(k, groups[k]); err != nil {
			return err
		}
	}
	return nil
}

// pick returns the elements of list at positions at.
func pick[T any](list []T, at []int) []T {
	out := make([]T, len(at))
	for i, j := range at {
		out[i] = list[j]
	}
	return out
}
