package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
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

// keyOf is the merchant key (migration 0032) of a row, read off the first
// of ids that is not empty: a row is given its merchant's id where it has
// one, else its own id, which the service makes with its merchant's key
// (payd.IDGen.NewFor).
func keyOf(ids ...string) int32 {
	for _, id := range ids {
		if id != "" {
			return int32(payd.KeyOf(id))
		}
	}
	return 0
}

// legacyShopKeys caches the merchant keys of shops whose ids were made
// before merchant keys existed and so do not carry one. A shop never
// changes merchant and its id is unique everywhere, so an entry is never
// stale; there are as many as such shops, a few per merchant.
var legacyShopKeys sync.Map // shop id -> int32

// shopKey is the merchant key of shopID's rows: the one its id carries, or
// for an older shop its merchant's, read once per process. A shop that is
// not there has key 0. Where nothing is distributed the key is not read,
// and an older shop costs no read either: the step that distributes the
// tables derives every row's key anew (citus.go).
func (t *tx) shopKey(ctx context.Context, shopID string) (int32, error) {
	if payd.KeyCarried(shopID) || !t.d.distributed() {
		return int32(payd.KeyOf(shopID)), nil
	}
	if k, ok := legacyShopKeys.Load(shopID); ok {
		return k.(int32), nil
	}
	var merchantID string
	err := t.fanOut(ctx, func(t *tx) error {
		return t.q.QueryRowContext(ctx, `SELECT merchant_id FROM shops WHERE id = $1`, shopID).Scan(&merchantID)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	k := int32(payd.KeyOf(merchantID))
	legacyShopKeys.Store(shopID, k)
	return k, nil
}

// onShop adds to w the condition that names the shard group of shopID's
// rows.
func (t *tx) onShop(ctx context.Context, w *where, shopID string) error {
	k, err := t.shopKey(ctx, shopID)
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
func (t *tx) keyGroups(ids []string, fn func(k int32, at []int) error) error {
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
		k := keyOf(id)
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
