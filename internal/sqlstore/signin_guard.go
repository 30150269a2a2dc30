package sqlstore

import (
	"context"
	"time"

	"github.com/paydhq/payd"
)

const guardCols = `key, failures, window_start, locked_until, lockouts, since_sign_in, last_failure_at, last_failure_addr, updated_at`

// SignInGuardLock inserts the guard when it is missing, so that the SELECT
// finds a row to lock: two first attempts on one account name at once
// then wait for each other instead of both starting from nothing.
func (t *tx) SignInGuardLock(ctx context.Context, key string) (*payd.SignInGuard, error) {
	if _, err := t.exec(ctx, `INSERT INTO signin_guards (key) VALUES ($1) ON CONFLICT DO NOTHING`, key); err != nil {
		return nil, err
	}
	var g payd.SignInGuard
	var window, locked, last, updated int64
	err := t.q.QueryRowContext(ctx, `SELECT `+guardCols+` FROM signin_guards WHERE key = $1`+t.d.forUpdate(), key).
		Scan(&g.Key, &g.Failures, &window, &locked, &g.Lockouts, &g.SinceSignIn, &last, &g.LastFailureAddr, &updated)
	if err != nil {
		return nil, noRows(err)
	}
	g.WindowStart, g.LockedUntil, g.LastFailureAt, g.UpdatedAt = zeroMicros(window), zeroMicros(locked), zeroMicros(last), zeroMicros(updated)
	return &g, nil
}

func (t *tx) SignInGuardPut(ctx context.Context, g *payd.SignInGuard) error {
	return t.execOne(ctx, `UPDATE signin_guards SET failures = $2, window_start = $3, locked_until = $4, lockouts = $5,
		since_sign_in = $6, last_failure_at = $7, last_failure_addr = $8, updated_at = $9 WHERE key = $1`,
		g.Key, g.Failures, microsZero(g.WindowStart), microsZero(g.LockedUntil), g.Lockouts, g.SinceSignIn,
		microsZero(g.LastFailureAt), g.LastFailureAddr, microsZero(g.UpdatedAt))
}

func (t *tx) SignInGuardDeleteBefore(ctx context.Context, before time.Time, limit int) (int64, error) {
	return t.deleteCount(ctx, `DELETE FROM signin_guards WHERE key IN
		(SELECT key FROM signin_guards WHERE updated_at < $1 ORDER BY updated_at LIMIT $2)`, micros(before), limit)
}

// microsZero and zeroMicros keep the zero time as 0.
func microsZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return micros(t)
}

func zeroMicros(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return fromMicros(v)
}
