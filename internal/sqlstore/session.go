package sqlstore

import (
	"context"
	"time"

	"github.com/paydhq/payd"
)

// sessionTable is the table of a kind's sessions: the kinds share their
// columns (merchant_id is "" for staff) and nothing else, so a token of
// one kind is never found as the other's.
func sessionTable(kind payd.AccountKind) string {
	if kind == payd.AccountStaff {
		return "staff_sessions"
	}
	return "dashboard_sessions"
}

const sessionCols = `id, user_id, merchant_id, state, created_at, last_seen_at, addr, user_agent, failed_sign_ins, code_failures`

func (t *tx) SessionInsert(ctx context.Context, s *payd.Session, tokenHash []byte) error {
	_, err := t.exec(ctx, `INSERT INTO `+sessionTable(s.Kind)+` (`+sessionCols+`, token_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		s.ID, s.UserID, s.MerchantID, s.State, micros(s.CreatedAt), micros(s.LastSeenAt), s.Addr, s.UserAgent, s.FailedSignIns, s.CodeFailures, tokenHash)
	return err
}

func (t *tx) SessionGetByToken(ctx context.Context, kind payd.AccountKind, tokenHash []byte) (*payd.Session, error) {
	s := payd.Session{Kind: kind}
	var created, seen int64
	err := t.q.QueryRowContext(ctx, `SELECT `+sessionCols+` FROM `+sessionTable(kind)+` WHERE token_hash = $1`, tokenHash).
		Scan(&s.ID, &s.UserID, &s.MerchantID, &s.State, &created, &seen, &s.Addr, &s.UserAgent, &s.FailedSignIns, &s.CodeFailures)
	if err != nil {
		return nil, noRows(err)
	}
	s.CreatedAt, s.LastSeenAt = fromMicros(created), fromMicros(seen)
	return &s, nil
}

func (t *tx) SessionTouch(ctx context.Context, kind payd.AccountKind, id string, at time.Time) error {
	return t.execOne(ctx, `UPDATE `+sessionTable(kind)+` SET last_seen_at = $2 WHERE id = $1`, id, micros(at))
}

func (t *tx) SessionNoteFailures(ctx context.Context, kind payd.AccountKind, id string, n int) error {
	return t.execOne(ctx, `UPDATE `+sessionTable(kind)+` SET failed_sign_ins = $2 WHERE id = $1`, id, n)
}

func (t *tx) SessionCodeFailed(ctx context.Context, kind payd.AccountKind, id string) (int, error) {
	var n int
	err := t.q.QueryRowContext(ctx, `UPDATE `+sessionTable(kind)+` SET code_failures = code_failures + 1 WHERE id = $1 RETURNING code_failures`, id).Scan(&n)
	return n, noRows(err)
}

func (t *tx) SessionDelete(ctx context.Context, kind payd.AccountKind, id string) error {
	_, err := t.exec(ctx, `DELETE FROM `+sessionTable(kind)+` WHERE id = $1`, id)
	return err
}

func (t *tx) SessionDeleteByUser(ctx context.Context, kind payd.AccountKind, userID string) (int64, error) {
	return t.deleteCount(ctx, `DELETE FROM `+sessionTable(kind)+` WHERE user_id = $1`, userID)
}

// sqlSessionActive is dashboard_sessions.state of an active session, as
// an SQL literal.
const sqlSessionActive = "'" + string(payd.SessionActive) + "'"

// SessionDeleteOldest walks the table's index of user_id: a user's
// sessions are few (MaxUserSessions and the ones opened at the same
// moment).
func (t *tx) SessionDeleteOldest(ctx context.Context, p *payd.SessionDeleteOldestParams) (int64, error) {
	table := sessionTable(p.Kind)
	return t.deleteCount(ctx, `DELETE FROM `+table+` WHERE user_id = $1 AND id <> $2 AND (state = `+sqlSessionActive+`) = $4 AND id NOT IN (
		SELECT id FROM `+table+` WHERE user_id = $1 AND id <> $2 AND (state = `+sqlSessionActive+`) = $4
		ORDER BY last_seen_at DESC, created_at DESC, id DESC LIMIT $3)`, p.UserID, p.KeepID, max(p.Keep-1, 0), p.Active)
}

func (t *tx) SessionDeleteExpired(ctx context.Context, idleBefore, createdBefore time.Time) (int64, error) {
	var n int64
	for _, kind := range []payd.AccountKind{payd.AccountUser, payd.AccountStaff} {
		m, err := t.deleteCount(ctx, `DELETE FROM `+sessionTable(kind)+` WHERE last_seen_at <= $1 OR created_at <= $2`,
			micros(idleBefore), micros(createdBefore))
		if err != nil {
			return n, err
		}
		n += m
	}
	return n, nil
}

// deleteCount runs a DELETE and returns how many rows it removed.
func (t *tx) deleteCount(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := t.exec(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
