package sqlstore

import (
	"context"
	"time"

	"github.com/paydhq/payd"
)

func (t *tx) IdempotencyLock(ctx context.Context, shopID string, mode payd.Mode, key string) (bool, error) {
	return t.d.tryLock(ctx, t.q, "idem\x00"+shopID+"\x00"+string(mode)+"\x00"+key)
}

func (t *tx) IdempotencyGet(ctx context.Context, shopID string, mode payd.Mode, key string) (*payd.IdempotencyRecord, error) {
	r := payd.IdempotencyRecord{ShopID: shopID, Mode: mode, Key: key}
	var created, expires int64
	err := t.q.QueryRowContext(ctx, `SELECT request_hash, status, body, created_at, expires_at FROM idempotency_keys
		WHERE shop_id = $1 AND mode = $2 AND idem_key = $3`, shopID, mode, key).
		Scan(&r.RequestHash, &r.Status, &r.Body, &created, &expires)
	if err != nil {
		return nil, noRows(err)
	}
	r.CreatedAt, r.ExpiresAt = fromMicros(created), fromMicros(expires)
	return &r, nil
}

// IdempotencyPut inserts the record; an expired record of the same key is
// replaced, a live one is a conflict (the caller checked under the lock).
func (t *tx) IdempotencyPut(ctx context.Context, r *payd.IdempotencyRecord) error {
	if _, err := t.exec(ctx, `DELETE FROM idempotency_keys WHERE shop_id = $1 AND mode = $2 AND idem_key = $3 AND expires_at <= $4`,
		r.ShopID, r.Mode, r.Key, micros(r.CreatedAt)); err != nil {
		return err
	}
	_, err := t.exec(ctx, `INSERT INTO idempotency_keys (shop_id, mode, idem_key, request_hash, status, body, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		r.ShopID, r.Mode, r.Key, r.RequestHash, r.Status, r.Body, micros(r.CreatedAt), micros(r.ExpiresAt))
	return err
}

func (t *tx) IdempotencyDeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	res, err := t.exec(ctx, `DELETE FROM idempotency_keys WHERE expires_at <= $1`, micros(now))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
