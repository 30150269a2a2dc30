package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/paydhq/payd"
)

// idemScope names a key within its shop and mode.
func idemScope(shopID string, mode payd.Mode, key string) string {
	return shopID + "\x00" + string(mode) + "\x00" + key
}

// The status column keeps the HTTP status the record's first answer was
// written with, as every version has stored it; the domain names it as an
// outcome. Records written before outcomes had names read the same.
var (
	outcomeStatus = map[payd.Outcome]int64{
		payd.OutcomeOK: 200, payd.OutcomeCreated: 201, payd.OutcomeAccepted: 202, payd.OutcomeNoContent: 204,
	}
	statusOutcome = func() map[int64]payd.Outcome {
		m := make(map[int64]payd.Outcome, len(outcomeStatus))
		for o, st := range outcomeStatus {
			m[st] = o
		}
		return m
	}()
)

// IdempotencyLockGet takes the lock and reads the record in one statement:
// one round trip fewer on the path of every POST. On PostgreSQL the read
// sees the statement's snapshot, taken just before the lock; the service
// allows for that (see Service.idempotent). For a test key the statement
// also reads the shop's reset mark, after the shop's sandbox fence was
// taken by the statement before it (fence), which goes in the same batch.
func (t *tx) IdempotencyLockGet(ctx context.Context, shopID string, mode payd.Mode, key string) (*payd.IdempotencyRecord, bool, error) {
	var locked bool
	var hash, body []byte
	var status, created, expires, resetAt sql.NullInt64
	mkey, err := t.idKey(ctx, shopID)
	if err != nil {
		return nil, false, err
	}
	mark := "NULL"
	if mode == payd.ModeTest {
		if err := t.fence(ctx, shopID, true); err != nil {
			return nil, false, err
		}
		mark = "(SELECT sandbox_reset_at FROM shops WHERE id = $2" + onKey(t.d, "merchant_key", 5) + ")"
	}
	// Its columns are plain, so on PostgreSQL it may carry the BEGIN.
	err = t.q.QueryRowContext(context.WithValue(ctx, sendWithBegin, true), `SELECT `+t.d.tryLockExpr()+`, k.request_hash, k.status, k.body, k.created_at, k.expires_at, `+mark+`
		FROM (SELECT 1 AS one) AS l LEFT JOIN idempotency_keys k ON k.shop_id = $2 AND k.mode = $3 AND k.idem_key = $4`+onKey(t.d, "k.merchant_key", 5),
		lockKey(shopID, mode, key), shopID, mode, key, mkey).Scan(&locked, &hash, &status, &body, &created, &expires, &resetAt)
	switch {
	case err != nil || !locked:
		return nil, locked, err
	case resetAt.Valid:
		return nil, true, payd.ErrSandboxResetting
	case !status.Valid:
		t.absentKey = idemScope(shopID, mode, key)
		return nil, true, nil
	}
	if body, err = t.openBody(body, shopID, mode, key); err != nil {
		return nil, true, err
	}
	return &payd.IdempotencyRecord{ShopID: shopID, Mode: mode, Key: key, RequestHash: hash, Outcome: statusOutcome[status.Int64],
		Body: body, CreatedAt: fromMicros(created.Int64), ExpiresAt: fromMicros(expires.Int64)}, true, nil
}

// IdempotencyClaim keeps, on PostgreSQL, the fence (for a test key) and a
// guard to go with the transaction's first statement or its COMMIT. The
// guard takes the key's lock and divides by the count of rows that pass
// its checks, so a key that is not free fails it with division_by_zero,
// which pipeConn reports as payd.ErrClaimRefused; a failing statement
// skips the rest of its batch, so nothing after it runs. Its reads see
// the statement's snapshot, taken after the fence and just before the
// lock, as IdempotencyLockGet's do; the record is then a plain INSERT at
// the commit, which a record committed in between fails.
func (t *tx) IdempotencyClaim(ctx context.Context, shopID string, mode payd.Mode, key string) (bool, error) {
	if !t.pipelined {
		return false, nil
	}
	mkey, err := t.idKey(ctx, shopID)
	if err != nil {
		return false, err
	}
	guard := t.claimSQL()
	if mode == payd.ModeTest {
		if err := t.fence(ctx, shopID, true); err != nil {
			return false, err
		}
		guard = t.claimTestSQL()
	}
	if _, err := t.q.ExecContext(context.WithValue(ctx, claimGuard, true), guard, lockKey(shopID, mode, key), shopID, mode, key, mkey); err != nil {
		return false, err
	}
	t.absentKey = idemScope(shopID, mode, key)
	return true, nil
}

func (t *tx) claimSQL() string {
	return `SELECT 1 / count(*) FROM (SELECT 1) AS one
	WHERE pg_try_advisory_xact_lock($1)
	AND NOT EXISTS (SELECT 1 FROM idempotency_keys WHERE shop_id = $2 AND mode = $3 AND idem_key = $4` + onKey(t.d, "merchant_key", 5) + `)`
}

// claimTestSQL is a test key's claim, which also asks that the shop's
// reset mark be clear.
func (t *tx) claimTestSQL() string {
	return t.claimSQL() + `
	AND (SELECT sandbox_reset_at FROM shops WHERE id = $2` + onKey(t.d, "merchant_key", 5) + `) IS NULL`
}

func (t *tx) IdempotencyGet(ctx context.Context, shopID string, mode payd.Mode, key string) (*payd.IdempotencyRecord, error) {
	r := payd.IdempotencyRecord{ShopID: shopID, Mode: mode, Key: key}
	var status, created, expires int64
	mkey, err := t.idKey(ctx, shopID)
	if err != nil {
		return nil, err
	}
	err = t.q.QueryRowContext(ctx, `SELECT request_hash, status, body, created_at, expires_at FROM idempotency_keys
		WHERE shop_id = $1 AND mode = $2 AND idem_key = $3`+onKey(t.d, "merchant_key", 4), shopID, mode, key, mkey).
		Scan(&r.RequestHash, &status, &r.Body, &created, &expires)
	if err != nil {
		return nil, noRows(err)
	}
	r.Outcome, r.CreatedAt, r.ExpiresAt = statusOutcome[status], fromMicros(created), fromMicros(expires)
	if r.Body, err = t.openBody(r.Body, shopID, mode, key); err != nil {
		return nil, err
	}
	return &r, nil
}

// IdempotencyPut inserts the record, or replaces an expired record of the
// same key, in one statement; a live record stays and is reported as
// payd.ErrConflict without aborting the transaction.
//
// On PostgreSQL, when the transaction's IdempotencyLockGet found no record
// of the key, the record is a plain INSERT sent with the COMMIT
// (pgpipe.go): a record another transaction committed after that read
// fails the INSERT, the COMMIT behind it is skipped, and Store.Tx reports
// payd.ErrConflict with nothing of the transaction kept.
func (t *tx) IdempotencyPut(ctx context.Context, r *payd.IdempotencyRecord) error {
	body := t.sealBody(r.Body, r.ShopID, r.Mode, r.Key)
	key, err := t.idKey(ctx, r.ShopID)
	if err != nil {
		return err
	}
	if t.pipelined && t.absentKey == idemScope(r.ShopID, r.Mode, r.Key) {
		_, err := t.q.ExecContext(context.WithValue(ctx, sendWithCommit, true), idempotencyInsertSQL,
			r.ShopID, r.Mode, r.Key, r.RequestHash, outcomeStatus[r.Outcome], body, micros(r.CreatedAt), micros(r.ExpiresAt), key)
		return err
	}
	return t.insertOne(ctx, idempotencyInsertSQL+`
		ON CONFLICT (shop_id, mode, idem_key`+keyTarget(t.d)+`) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status,
			body = excluded.body, created_at = excluded.created_at, expires_at = excluded.expires_at
		WHERE idempotency_keys.expires_at <= excluded.created_at`,
		r.ShopID, r.Mode, r.Key, r.RequestHash, outcomeStatus[r.Outcome], body, micros(r.CreatedAt), micros(r.ExpiresAt), key)
}

const idempotencyInsertSQL = `INSERT INTO idempotency_keys (shop_id, mode, idem_key, request_hash, status, body, created_at, expires_at, merchant_key)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`

// IdempotencyDeleteExpired deletes one batch of the records expired
// longest ago: a range of idempotency_keys_expiry, however many records
// are live.
func (t *tx) idempotencyDeleteExpired(ctx context.Context, now time.Time, limit int) (int64, error) {
	return t.deleteCount(ctx, `DELETE FROM idempotency_keys WHERE (shop_id, mode, idem_key) IN
		(SELECT shop_id, mode, idem_key FROM idempotency_keys WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`,
		micros(now), limit)
}

// A record's body is the first answer, replayed as it was; some answers
// carry a secret shown once (a webhook endpoint's signing secret, an
// embedded payment's confirmation token, a checkout address), so every
// body is sealed (seal.go), whatever its operation: no list of the
// operations that answer a secret can go stale.
func (t *tx) sealBody(body []byte, shopID string, mode payd.Mode, key string) []byte {
	return t.sealBytes(body, "idempotency_keys", "body", shopID, string(mode), key)
}

func (t *tx) openBody(body []byte, shopID string, mode payd.Mode, key string) ([]byte, error) {
	return t.openBytes(body, "idempotency_keys", "body", shopID, string(mode), key)
}
