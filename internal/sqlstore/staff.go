package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/paydhq/payd"
)

// staffCols are the columns of payd.Staff; has_password and totp_enabled
// are read from the credentials they stand for.
const staffCols = `id, email, role, created_at, disabled_at, password_hash <> '', totp_secret <> ''`

func scanStaff(r interface{ Scan(...any) error }) (*payd.Staff, error) {
	var st payd.Staff
	var created int64
	var disabled sql.NullInt64
	if err := r.Scan(&st.ID, &st.Email, &st.Role, &created, &disabled, &st.HasPassword, &st.TOTPEnabled); err != nil {
		return nil, noRows(err)
	}
	st.CreatedAt, st.DisabledAt = fromMicros(created), timePtr(disabled)
	return &st, nil
}

func (t *tx) StaffInsert(ctx context.Context, st *payd.Staff) error {
	return t.insertOne(ctx, `INSERT INTO staff (id, email, role, created_at, disabled_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
		st.ID, st.Email, st.Role, micros(st.CreatedAt), nullMicros(st.DisabledAt))
}

func (t *tx) StaffGet(ctx context.Context, id string) (*payd.Staff, error) {
	return scanStaff(t.q.QueryRowContext(ctx, `SELECT `+staffCols+` FROM staff WHERE id = $1`, id))
}

func (t *tx) StaffGetForUpdate(ctx context.Context, id string) (*payd.Staff, error) {
	return scanStaff(t.q.QueryRowContext(ctx, `SELECT `+staffCols+` FROM staff WHERE id = $1`+t.d.forUpdate(), id))
}

func (t *tx) StaffGetByEmail(ctx context.Context, email string) (*payd.Staff, error) {
	return scanStaff(t.q.QueryRowContext(ctx, `SELECT `+staffCols+` FROM staff WHERE email = $1`, email))
}

func (t *tx) StaffGetBySetupToken(ctx context.Context, hash []byte) (*payd.Staff, error) {
	return scanStaff(t.q.QueryRowContext(ctx, `SELECT `+staffCols+` FROM staff WHERE setup_hash = $1`, hash))
}

func (t *tx) StaffUpdate(ctx context.Context, st *payd.Staff) error {
	return t.execOne(ctx, `UPDATE staff SET role = $2, disabled_at = $3 WHERE id = $1`, st.ID, st.Role, nullMicros(st.DisabledAt))
}

func (t *tx) StaffList(ctx context.Context) ([]*payd.Staff, error) {
	return scanAll(ctx, t, scanStaff, `SELECT `+staffCols+` FROM staff ORDER BY created_at, id`)
}

// scanAll runs query and scans every row of it with scan; no rows is an
// empty list.
func scanAll[T any](ctx context.Context, t *tx, scan func(interface{ Scan(...any) error }) (*T, error), query string, args ...any) ([]*T, error) {
	rows, err := t.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (t *tx) StaffLockAdmins(ctx context.Context) (int, error) {
	rows, err := t.q.QueryContext(ctx, `SELECT id FROM staff WHERE role = $1 AND disabled_at IS NULL ORDER BY id`+t.d.forUpdate(), payd.StaffAdmin)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return n, rows.Err()
}

func (t *tx) StaffCredentialsGet(ctx context.Context, staffID string) (*payd.UserCredentials, error) {
	c := payd.UserCredentials{UserID: staffID}
	var expires sql.NullInt64
	err := t.q.QueryRowContext(ctx, `SELECT password_hash, totp_secret, totp_pending, totp_last_step, setup_hash, setup_expires_at
		FROM staff WHERE id = $1`, staffID).Scan(&c.PasswordHash, &c.TOTPSecret, &c.TOTPPending, &c.TOTPLastStep, &c.SetupHash, &expires)
	if err != nil {
		return nil, noRows(err)
	}
	c.SetupExpiresAt = timePtr(expires)
	if c.TOTPSecret, err = t.openText(c.TOTPSecret, "staff", "totp_secret", staffID); err != nil {
		return nil, err
	}
	if c.TOTPPending, err = t.openText(c.TOTPPending, "staff", "totp_pending", staffID); err != nil {
		return nil, err
	}
	return &c, nil
}

func (t *tx) StaffCredentialsUpdate(ctx context.Context, c *payd.UserCredentials) error {
	var setup any
	if c.SetupHash != nil {
		setup = c.SetupHash
	}
	return t.execOne(ctx, `UPDATE staff SET password_hash = $2, totp_secret = $3, totp_pending = $4, totp_last_step = $5,
		setup_hash = $6, setup_expires_at = $7 WHERE id = $1`,
		c.UserID, c.PasswordHash, t.sealText(c.TOTPSecret, "staff", "totp_secret", c.UserID),
		t.sealText(c.TOTPPending, "staff", "totp_pending", c.UserID), c.TOTPLastStep, setup, nullMicros(c.SetupExpiresAt))
}

const staffTokenCols = `id, staff_id, name, created_at, last_used_at, revoked_at`

func scanStaffToken(r interface{ Scan(...any) error }) (*payd.StaffToken, error) {
	var k payd.StaffToken
	var created int64
	var used, revoked sql.NullInt64
	if err := r.Scan(&k.ID, &k.StaffID, &k.Name, &created, &used, &revoked); err != nil {
		return nil, noRows(err)
	}
	k.CreatedAt, k.LastUsedAt, k.RevokedAt = fromMicros(created), timePtr(used), timePtr(revoked)
	return &k, nil
}

func (t *tx) StaffTokenInsert(ctx context.Context, k *payd.StaffToken, hash []byte) error {
	return t.insertOne(ctx, `INSERT INTO staff_tokens (id, staff_id, name, token_hash, created_at, last_used_at, revoked_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
		k.ID, k.StaffID, k.Name, hash, micros(k.CreatedAt), nullMicros(k.LastUsedAt), nullMicros(k.RevokedAt))
}

func (t *tx) StaffTokenGetByHash(ctx context.Context, hash []byte) (*payd.StaffToken, error) {
	return scanStaffToken(t.q.QueryRowContext(ctx, `SELECT `+staffTokenCols+` FROM staff_tokens WHERE token_hash = $1`, hash))
}

func (t *tx) StaffTokenGet(ctx context.Context, id string) (*payd.StaffToken, error) {
	return scanStaffToken(t.q.QueryRowContext(ctx, `SELECT `+staffTokenCols+` FROM staff_tokens WHERE id = $1`, id))
}

func (t *tx) StaffTokenListByStaff(ctx context.Context, staffID string) ([]*payd.StaffToken, error) {
	return scanAll(ctx, t, scanStaffToken, `SELECT `+staffTokenCols+` FROM staff_tokens WHERE staff_id = $1 ORDER BY created_at, id`, staffID)
}

// StaffTokenRevoke keeps the first revocation's time when asked again.
func (t *tx) StaffTokenRevoke(ctx context.Context, id string, at time.Time) error {
	return t.execOne(ctx, `UPDATE staff_tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1`, id, micros(at))
}

func (t *tx) StaffTokenTouch(ctx context.Context, id string, at time.Time) error {
	return t.execOne(ctx, `UPDATE staff_tokens SET last_used_at = $2 WHERE id = $1`, id, micros(at))
}

const operatorAuditCols = `id, created_at, staff_id, staff_email, via, token_id, addr, action, object_id, merchant_id,
	before_json, after_json, detail, confirmed_by_id, confirmed_by_email`

// OperatorAuditInsert appends an entry. The operator audit log has no
// update or delete statement anywhere in the store.
func (t *tx) OperatorAuditInsert(ctx context.Context, e *payd.OperatorAuditEntry) error {
	_, err := t.exec(ctx, `INSERT INTO operator_audit (`+operatorAuditCols+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
		e.ID, micros(e.At), e.StaffID, e.StaffEmail, e.Via, e.TokenID, e.Addr, e.Action, e.ObjectID, e.MerchantID,
		e.Before, e.After, e.Detail, e.ConfirmedByID, e.ConfirmedByEmail)
	return err
}

// OperatorAuditList walks the index of the one equality filter given
// (staff, object, merchant, in that order of preference), the others
// filtering what it reads.
func (t *tx) OperatorAuditList(ctx context.Context, p *payd.OperatorAuditListParams) (payd.Page[*payd.OperatorAuditEntry], error) {
	w := where{index: "operator_audit_created"}
	for _, f := range []struct{ col, v, index string }{
		{"merchant_id", p.MerchantID, "operator_audit_merchant"},
		{"object_id", p.ObjectID, "operator_audit_object"},
		{"staff_id", p.StaffID, "operator_audit_staff"},
	} {
		if f.v != "" {
			w.add(f.col+" = ?", f.v)
			w.index = f.index
		}
	}
	if p.Action != "" {
		w.add("action = ?", p.Action)
	}
	w.createdRange(p.Created)
	return listPage(ctx, t, `SELECT `+operatorAuditCols+` FROM operator_audit`, w, p.ListParams,
		func(r *sql.Rows) (*payd.OperatorAuditEntry, error) {
			var e payd.OperatorAuditEntry
			var at int64
			if err := r.Scan(&e.ID, &at, &e.StaffID, &e.StaffEmail, &e.Via, &e.TokenID, &e.Addr, &e.Action, &e.ObjectID, &e.MerchantID,
				&e.Before, &e.After, &e.Detail, &e.ConfirmedByID, &e.ConfirmedByEmail); err != nil {
				return nil, err
			}
			e.At = fromMicros(at)
			return &e, nil
		},
		func(e *payd.OperatorAuditEntry) payd.Cursor { return payd.Cursor{CreatedAt: e.At, ID: e.ID} })
}

const proposalCols = `id, action, object_id, method, path, body, state, proposed_by, proposed_by_email, created_at, expires_at,
	decided_by, decided_by_email, decided_at`

func scanProposal(r interface{ Scan(...any) error }) (*payd.Proposal, error) {
	var p payd.Proposal
	var created, expires int64
	var decided sql.NullInt64
	if err := r.Scan(&p.ID, &p.Action, &p.ObjectID, &p.Method, &p.Path, &p.Body, &p.State, &p.ProposedBy, &p.ProposedByEmail,
		&created, &expires, &p.DecidedBy, &p.DecidedByEmail, &decided); err != nil {
		return nil, noRows(err)
	}
	p.CreatedAt, p.ExpiresAt, p.DecidedAt = fromMicros(created), fromMicros(expires), timePtr(decided)
	return &p, nil
}

func (t *tx) ProposalInsert(ctx context.Context, p *payd.Proposal) error {
	return t.insertOne(ctx, `INSERT INTO proposals (`+proposalCols+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT DO NOTHING`,
		p.ID, p.Action, p.ObjectID, p.Method, p.Path, p.Body, p.State, p.ProposedBy, p.ProposedByEmail,
		micros(p.CreatedAt), micros(p.ExpiresAt), p.DecidedBy, p.DecidedByEmail, nullMicros(p.DecidedAt))
}

func (t *tx) ProposalGetForUpdate(ctx context.Context, id string) (*payd.Proposal, error) {
	return scanProposal(t.q.QueryRowContext(ctx, `SELECT `+proposalCols+` FROM proposals WHERE id = $1`+t.d.forUpdate(), id))
}

func (t *tx) ProposalDecide(ctx context.Context, p *payd.Proposal) error {
	return t.execOne(ctx, `UPDATE proposals SET state = $2, decided_by = $3, decided_by_email = $4, decided_at = $5 WHERE id = $1`,
		p.ID, p.State, p.DecidedBy, p.DecidedByEmail, nullMicros(p.DecidedAt))
}

func (t *tx) ProposalList(ctx context.Context, state payd.ProposalState, limit int) ([]*payd.Proposal, error) {
	q, args := `SELECT `+proposalCols+` FROM proposals`, []any{}
	if state != "" {
		q, args = q+` WHERE state = $1`, append(args, state)
	}
	return scanAll(ctx, t, scanProposal, q+fmt.Sprintf(` ORDER BY created_at DESC, id DESC LIMIT %d`, limit), args...)
}
