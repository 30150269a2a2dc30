package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"sync"

	"github.com/paydhq/payd"
)

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
// not there has key 0.
func (t *tx) shopKey(ctx context.Context, shopID string) (int32, error) {
	if payd.KeyCarried(shopID) {
		return int32(payd.KeyOf(shopID)), nil
	}
	if k, ok := legacyShopKeys.Load(shopID); ok {
		return k.(int32), nil
	}
	var merchantID string
	err := t.q.QueryRowContext(ctx, `SELECT merchant_id FROM shops WHERE id = $1`, shopID).Scan(&merchantID)
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
