package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/paydhq/payd"
)

const keyCols = `id, shop_id, mode, hint, secret_hash, created_at, expires_at, revoked_at, last_used_at`

func scanKey(r interface{ Scan(...any) error }) (*payd.APIKey, error) {
	var k payd.APIKey
	var created int64
	var expires, revoked, used sql.NullInt64
	if err := r.Scan(&k.ID, &k.ShopID, &k.Mode, &k.Hint, &k.Hash, &created, &expires, &revoked, &used); err != nil {
		return nil, noRows(err)
	}
	k.CreatedAt, k.ExpiresAt, k.RevokedAt, k.LastUsedAt = fromMicros(created), timePtr(expires), timePtr(revoked), timePtr(used)
	return &k, nil
}

func (t *tx) KeyInsert(ctx context.Context, k *payd.APIKey) error {
	_, err := t.exec(ctx, `INSERT INTO api_keys (`+keyCols+`, merchant_key) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		k.ID, k.ShopID, k.Mode, k.Hint, k.Hash, micros(k.CreatedAt), nullMicros(k.ExpiresAt), nullMicros(k.RevokedAt), nullMicros(k.LastUsedAt),
		keyOf(k.ID))
	return err
}

func (t *tx) KeyGet(ctx context.Context, id string) (*payd.APIKey, error) {
	return scanKey(t.q.QueryRowContext(ctx, `SELECT `+keyCols+` FROM api_keys WHERE id = $1`+onKey(t.d, "merchant_key", 2), id, keyOf(id)))
}

func (t *tx) KeyListByShop(ctx context.Context, shopID string) ([]*payd.APIKey, error) {
	k, err := t.idKey(ctx, shopID)
	if err != nil {
		return nil, err
	}
	rows, err := t.q.QueryContext(ctx, `SELECT `+keyCols+` FROM api_keys WHERE shop_id = $1`+onKey(t.d, "merchant_key", 2)+
		` ORDER BY created_at DESC, id DESC`, shopID, k)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*payd.APIKey
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

func (t *tx) KeyExpireOthers(ctx context.Context, shopID string, mode payd.Mode, exceptID string, at time.Time) error {
	k, err := t.idKey(ctx, shopID)
	if err != nil {
		return err
	}
	_, err = t.exec(ctx, `UPDATE api_keys SET expires_at = $4
		WHERE shop_id = $1 AND mode = $2 AND id <> $3 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $4)`+
		onKey(t.d, "merchant_key", 5), shopID, mode, exceptID, micros(at), k)
	return err
}

// KeyExpire never moves an expiry later: expiring a key early must not
// lengthen the life of one that stopped already.
func (t *tx) KeyExpire(ctx context.Context, id string, at time.Time) error {
	k := keyOf(id)
	if _, err := t.KeyGet(ctx, id); err != nil {
		return err
	}
	_, err := t.exec(ctx, `UPDATE api_keys SET expires_at = $2
		WHERE id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)`+onKey(t.d, "merchant_key", 3), id, micros(at), k)
	return err
}

func (t *tx) KeyRevoke(ctx context.Context, id string, at time.Time) error {
	return t.execOne(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1`+onKey(t.d, "merchant_key", 3), id, micros(at), keyOf(id))
}

// KeyTouch moves last_used_at forward only: two instances recording uses
// out of order leave the later one.
func (t *tx) KeyTouch(ctx context.Context, id string, at time.Time) error {
	_, err := t.exec(ctx, `UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)`+onKey(t.d, "merchant_key", 3),
		id, micros(at), keyOf(id))
	return err
}
