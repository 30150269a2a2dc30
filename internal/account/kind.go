package account

import (
	"context"

	"github.com/paydhq/payd"
)

// holder is whoever a sign-in or a session is of, as the credentials core
// reads it: the same for a dashboard user and a staff member. The kind's
// own record rides along for the adapters (user or staff).
type holder struct {
	kind     kind
	id       string
	email    string
	disabled bool
	totp     bool
	user     *payd.User
	staff    *payd.Staff
}

// event is what happened to an account that its audit log keeps.
type event int

const (
	evSignIn event = iota
	evSignInFailed
	evSecondFactorFailed
	evSecondFactorEnded
	evAccountLocked
	evSignOut
	evEnableTOTP
	evSetPassword
)

// kind is what differs between the kinds of account, and only that:
// where the account and its secrets are stored, the state a session opens
// in after the right password, and the audit log its events go to. The
// sign-in path, the KDF and its bound, the guard, the second factor and
// the sessions are the core's, once for both.
type kind interface {
	name() payd.AccountKind
	byEmail(ctx context.Context, tx payd.Tx, email string) (*holder, error)
	get(ctx context.Context, tx payd.Tx, id string, lock bool) (*holder, error)
	bySetupToken(ctx context.Context, tx payd.Tx, hash []byte) (*holder, error)
	credentials(ctx context.Context, tx payd.Tx, id string) (*payd.UserCredentials, error)
	putCredentials(ctx context.Context, tx payd.Tx, c *payd.UserCredentials) error
	// opening is the state of a session opened by the right password.
	opening(ctx context.Context, tx payd.Tx, h *holder) (payd.SessionState, error)
	// record writes ev of h, at addr, to the kind's audit log in tx.
	record(ctx context.Context, tx payd.Tx, h *holder, addr string, ev event, objectID string) error
	// sessionID names a new session of h.
	sessionID(h *holder) string
}

// users are the merchants' dashboard users: their second factor is on
// when they turned it on or their merchant requires it, and their events
// go to the merchant's audit log.
type users struct{ s *Service }

func userHolder(k kind, u *payd.User) *holder {
	return &holder{kind: k, id: u.ID, email: u.Email, disabled: u.DisabledAt != nil, totp: u.TOTPEnabled, user: u}
}

func (users) name() payd.AccountKind { return payd.AccountUser }

func (k users) byEmail(ctx context.Context, tx payd.Tx, email string) (*holder, error) {
	u, err := tx.UserGetByEmail(ctx, email)
	if err != nil {
		return nil, err
	}
	return userHolder(k, u), nil
}

func (k users) get(ctx context.Context, tx payd.Tx, id string, lock bool) (*holder, error) {
	read := tx.UserGet
	if lock {
		read = tx.UserGetForUpdate
	}
	u, err := read(ctx, id)
	if err != nil {
		return nil, err
	}
	return userHolder(k, u), nil
}

func (k users) bySetupToken(ctx context.Context, tx payd.Tx, hash []byte) (*holder, error) {
	u, err := tx.UserGetBySetupToken(ctx, hash)
	if err != nil {
		return nil, err
	}
	return userHolder(k, u), nil
}

func (users) credentials(ctx context.Context, tx payd.Tx, id string) (*payd.UserCredentials, error) {
	return tx.UserCredentialsGet(ctx, id)
}

func (users) putCredentials(ctx context.Context, tx payd.Tx, c *payd.UserCredentials) error {
	return tx.UserCredentialsUpdate(ctx, c)
}

func (users) opening(ctx context.Context, tx payd.Tx, h *holder) (payd.SessionState, error) {
	if h.totp {
		return payd.SessionSecondFactor, nil
	}
	m, err := tx.MerchantGet(ctx, h.user.MerchantID)
	if err != nil {
		return "", err
	}
	if m.RequireSecondFactor {
		return payd.SessionEnroll, nil
	}
	return payd.SessionActive, nil
}

// userEvents are the merchant audit log's actions of the core's events.
var userEvents = map[event]payd.AuditAction{
	evSignIn: payd.AuditSignIn, evSignInFailed: payd.AuditSignInFailed,
	evSecondFactorFailed: payd.AuditSecondFactorFailed, evSecondFactorEnded: payd.AuditSecondFactorEnded,
	evAccountLocked: payd.AuditAccountLocked, evSignOut: payd.AuditSignOut,
	evEnableTOTP: payd.AuditEnableTOTP, evSetPassword: payd.AuditSetPassword,
}

func (k users) record(ctx context.Context, tx payd.Tx, h *holder, addr string, ev event, objectID string) error {
	return k.s.audit(ctx, tx, &payd.Actor{UserID: h.id, Email: h.email, Addr: addr}, h.user.MerchantID, userEvents[ev], objectID)
}

func (k users) sessionID(h *holder) string {
	return k.s.ids.NewFor(payd.PrefixSession, k.s.sessionNow(), h.user.MerchantID)
}

// staffKind is the operator's staff: the second factor is mandatory, so
// a session opened without one enrols it before anything else, and their
// events go to the operator audit log.
type staffKind struct{ s *Service }

func staffHolder(k kind, st *payd.Staff) *holder {
	return &holder{kind: k, id: st.ID, email: st.Email, disabled: st.DisabledAt != nil, totp: st.TOTPEnabled, staff: st}
}

func (staffKind) name() payd.AccountKind { return payd.AccountStaff }

func (k staffKind) byEmail(ctx context.Context, tx payd.Tx, email string) (*holder, error) {
	st, err := tx.StaffGetByEmail(ctx, email)
	if err != nil {
		return nil, err
	}
	return staffHolder(k, st), nil
}

func (k staffKind) get(ctx context.Context, tx payd.Tx, id string, lock bool) (*holder, error) {
	read := tx.StaffGet
	if lock {
		read = tx.StaffGetForUpdate
	}
	st, err := read(ctx, id)
	if err != nil {
		return nil, err
	}
	return staffHolder(k, st), nil
}

func (k staffKind) bySetupToken(ctx context.Context, tx payd.Tx, hash []byte) (*holder, error) {
	st, err := tx.StaffGetBySetupToken(ctx, hash)
	if err != nil {
		return nil, err
	}
	return staffHolder(k, st), nil
}

func (staffKind) credentials(ctx context.Context, tx payd.Tx, id string) (*payd.UserCredentials, error) {
	return tx.StaffCredentialsGet(ctx, id)
}

func (staffKind) putCredentials(ctx context.Context, tx payd.Tx, c *payd.UserCredentials) error {
	return tx.StaffCredentialsUpdate(ctx, c)
}

func (staffKind) opening(_ context.Context, _ payd.Tx, h *holder) (payd.SessionState, error) {
	if h.totp {
		return payd.SessionSecondFactor, nil
	}
	return payd.SessionEnroll, nil
}

// staffEvents are the operator audit log's actions of the core's events.
var staffEvents = map[event]string{
	evSignIn: "staff.sign_in", evSignInFailed: "staff.sign_in_failed",
	evSecondFactorFailed: "staff.second_factor_failed", evSecondFactorEnded: "staff.second_factor_ended",
	evAccountLocked: "staff.locked", evSignOut: "staff.sign_out",
	evEnableTOTP: "staff.second_factor_on", evSetPassword: "staff.set_password",
}

func (k staffKind) record(ctx context.Context, tx payd.Tx, h *holder, addr string, ev event, objectID string) error {
	now := k.s.clock.Now()
	return tx.OperatorAuditInsert(ctx, &payd.OperatorAuditEntry{ID: k.s.ids.New(payd.PrefixOperatorAudit, now), At: now,
		StaffID: h.id, StaffEmail: h.email, Via: payd.StaffViaSession, Addr: addr, Action: staffEvents[ev], ObjectID: objectID})
}

func (k staffKind) sessionID(*holder) string {
	return k.s.ids.New(payd.PrefixSession, k.s.sessionNow())
}
