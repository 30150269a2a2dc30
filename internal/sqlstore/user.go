package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/paydhq/payd"
)

// userCols are the columns of payd.User; has_password and totp_enabled
// are read from the credentials they stand for.
const userCols = `id, merchant_id, email, role, created_at, disabled_at, password_hash <> '', totp_secret <> ''`

func scanUser(r interface{ Scan(...any) error }) (*payd.User, error) {
	var u payd.User
	var created int64
	var disabled sql.NullInt64
	if err := r.Scan(&u.ID, &u.MerchantID, &u.Email, &u.Role, &created, &disabled, &u.HasPassword, &u.TOTPEnabled); err != nil {
		return nil, noRows(err)
	}
	u.CreatedAt, u.DisabledAt = fromMicros(created), timePtr(disabled)
	return &u, nil
}

func (t *tx) UserInsert(ctx context.Context, u *payd.User) error {
	return t.insertOne(ctx, `INSERT INTO dashboard_users (id, merchant_id, email, role, created_at, disabled_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
		u.ID, u.MerchantID, u.Email, u.Role, micros(u.CreatedAt), nullMicros(u.DisabledAt))
}

func (t *tx) UserGet(ctx context.Context, id string) (*payd.User, error) {
	return scanUser(t.q.QueryRowContext(ctx, `SELECT `+userCols+` FROM dashboard_users WHERE id = $1`, id))
}

func (t *tx) UserGetForUpdate(ctx context.Context, id string) (*payd.User, error) {
	return scanUser(t.q.QueryRowContext(ctx, `SELECT `+userCols+` FROM dashboard_users WHERE id = $1`+t.d.forUpdate(), id))
}

func (t *tx) UserGetByEmail(ctx context.Context, email string) (*payd.User, error) {
	return scanUser(t.q.QueryRowContext(ctx, `SELECT `+userCols+` FROM dashboard_users WHERE email = $1`, email))
}

func (t *tx) UserGetBySetupToken(ctx context.Context, hash []byte) (*payd.User, error) {
	return scanUser(t.q.QueryRowContext(ctx, `SELECT `+userCols+` FROM dashboard_users WHERE setup_hash = $1`, hash))
}

func (t *tx) UserUpdate(ctx context.Context, u *payd.User) error {
	return t.execOne(ctx, `UPDATE dashboard_users SET role = $2, disabled_at = $3 WHERE id = $1`,
		u.ID, u.Role, nullMicros(u.DisabledAt))
}

func (t *tx) UserListByMerchant(ctx context.Context, merchantID string) ([]*payd.User, error) {
	rows, err := t.q.QueryContext(ctx, `SELECT `+userCols+` FROM dashboard_users WHERE merchant_id = $1 ORDER BY created_at, id`, merchantID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*payd.User{}
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

func (t *tx) UserCountAdmins(ctx context.Context, merchantID string) (n int, err error) {
	err = t.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM dashboard_users WHERE merchant_id = $1 AND role = $2 AND disabled_at IS NULL`,
		merchantID, payd.RoleAdmin).Scan(&n)
	return n, err
}

func (t *tx) UserCredentialsGet(ctx context.Context, userID string) (*payd.UserCredentials, error) {
	c := payd.UserCredentials{UserID: userID}
	var expires sql.NullInt64
	err := t.q.QueryRowContext(ctx, `SELECT password_hash, totp_secret, totp_pending, totp_last_step, setup_hash, setup_expires_at
		FROM dashboard_users WHERE id = $1`, userID).Scan(&c.PasswordHash, &c.TOTPSecret, &c.TOTPPending, &c.TOTPLastStep, &c.SetupHash, &expires)
	if err != nil {
		return nil, noRows(err)
	}
	c.SetupExpiresAt = timePtr(expires)
	if c.TOTPSecret, err = t.openText(c.TOTPSecret, "dashboard_users", "totp_secret", userID); err != nil {
		return nil, err
	}
	if c.TOTPPending, err = t.openText(c.TOTPPending, "dashboard_users", "totp_pending", userID); err != nil {
		return nil, err
	}
	return &c, nil
}

func (t *tx) UserCredentialsUpdate(ctx context.Context, c *payd.UserCredentials) error {
	var setup any
	if c.SetupHash != nil {
		setup = c.SetupHash
	}
	return t.execOne(ctx, `UPDATE dashboard_users SET password_hash = $2, totp_secret = $3, totp_pending = $4, totp_last_step = $5,
		setup_hash = $6, setup_expires_at = $7 WHERE id = $1`,
		c.UserID, c.PasswordHash, t.sealText(c.TOTPSecret, "dashboard_users", "totp_secret", c.UserID),
		t.sealText(c.TOTPPending, "dashboard_users", "totp_pending", c.UserID), c.TOTPLastStep, setup, nullMicros(c.SetupExpiresAt))
}

func (t *tx) UserSetupTokensExpire(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	for _, table := range []string{"dashboard_users", "staff"} {
		res, err := t.exec(ctx, `UPDATE `+table+` SET setup_hash = NULL, setup_expires_at = NULL
			WHERE setup_expires_at IS NOT NULL AND setup_expires_at <= $1`, micros(now))
		if err != nil {
			return n, err
		}
		m, err := res.RowsAffected()
		if err != nil {
			return n, err
		}
		n += m
	}
	return n, nil
}
