package account

import (
	"context"
	"errors"

	"github.com/paydhq/payd"
)

// The operator's staff are the second kind of account: people of the
// operator, with a role of payd.StaffRole, a password of the same KDF and
// a second factor that is mandatory. Who may manage them is the domain's
// table (StaffActor.Allow with payd.StaffManageStaff); every change is in
// the operator audit log, written by the store in the change's
// transaction (payd.OperatorAudited) when the adapter names the act.

var errStaffEmailTaken = &payd.Error{Code: payd.CodeEmailTaken, Param: "email", Message: "a staff member with this email exists"}

var errLastStaffAdmin = &payd.Error{Code: payd.CodeInvalidState, Message: "this is the last staff admin; make another staff member admin first"}

// CreateStaff adds a staff member and returns it with a one-time setup
// token (valid SetupTokenTTL) through which the person sets a password;
// the second factor is enrolled at the first sign-in, before anything
// else. actor must be allowed to manage staff.
func (s *Service) CreateStaff(ctx context.Context, actor *payd.StaffActor, email string, role payd.StaffRole) (st *payd.Staff, token string, err error) {
	email = NormalizeEmail(email)
	if err := checkEmail(email); err != nil {
		return nil, "", err
	}
	if _, err := payd.ParseStaffRole(string(role)); err != nil {
		return nil, "", err
	}
	if err := actor.Allow(payd.StaffManageStaff); err != nil {
		return nil, "", err
	}
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		if st, err = s.insertStaff(ctx, tx, email, role); err != nil {
			return err
		}
		c := &payd.UserCredentials{UserID: st.ID}
		token = s.newSetupToken(c)
		return tx.StaffCredentialsUpdate(ctx, c)
	})
	if err != nil {
		return nil, "", withOp("create staff", err)
	}
	return st, token, nil
}

// insertStaff inserts a staff member and names it as the act's object.
func (s *Service) insertStaff(ctx context.Context, tx payd.Tx, email string, role payd.StaffRole) (*payd.Staff, error) {
	now := s.clock.Now()
	st := &payd.Staff{ID: s.ids.New(payd.PrefixStaff, now), Email: email, Role: role, CreatedAt: now}
	if err := tx.StaffInsert(ctx, st); err != nil {
		if errors.Is(err, payd.ErrConflict) {
			return nil, errStaffEmailTaken
		}
		return nil, err
	}
	payd.NoteOperatorObject(ctx, st.ID, "")
	return st, nil
}

// SeedStaff makes a staff member ready to sign in at once, with password
// and an enrolled second factor whose secret it returns: the demo staff
// admin of `serve --dev`, whose sign-in dev.json keeps. A member of that
// email already there gets the password and a new secret.
func (s *Service) SeedStaff(ctx context.Context, email string, role payd.StaffRole, password string) (st *payd.Staff, totpSecret string, err error) {
	email = NormalizeEmail(email)
	if err := checkPassword(password, email); err != nil {
		return nil, "", err
	}
	key, err := newTOTPKey(email)
	if err != nil {
		return nil, "", err
	}
	done, err := s.beginPasswordCheck()
	if err != nil {
		return nil, "", err
	}
	phc := s.hashPassword(password, s.argon2)
	done()
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		st, err = tx.StaffGetByEmail(ctx, email)
		if errors.Is(err, payd.ErrNoRows) {
			st, err = s.insertStaff(ctx, tx, email, role)
		}
		if err != nil {
			return err
		}
		st.HasPassword, st.TOTPEnabled = true, true
		return tx.StaffCredentialsUpdate(ctx, &payd.UserCredentials{UserID: st.ID, PasswordHash: phc, TOTPSecret: key.Secret()})
	})
	if err != nil {
		return nil, "", withOp("seed staff", err)
	}
	return st, key.Secret(), nil
}

// ListStaff lists every staff member, oldest first.
func (s *Service) ListStaff(ctx context.Context) ([]*payd.Staff, error) {
	return view(ctx, s, "list staff", func(tx payd.Tx) ([]*payd.Staff, error) { return tx.StaffList(ctx) })
}

// GetStaff reads a staff member.
func (s *Service) GetStaff(ctx context.Context, id string) (*payd.Staff, error) {
	return view(ctx, s, "get staff", func(tx payd.Tx) (*payd.Staff, error) {
		st, err := tx.StaffGet(ctx, id)
		return st, notFoundAs(err, "staff")
	})
}

// ChangeStaff gives a staff member another role (role non-empty) or
// disables it (disable); the last enabled staff admin keeps the role. A
// disabled member's tokens stop working with it and its back-office
// sessions end.
func (s *Service) ChangeStaff(ctx context.Context, actor *payd.StaffActor, id string, role payd.StaffRole, disable bool) (st *payd.Staff, err error) {
	if role != "" {
		if _, err := payd.ParseStaffRole(string(role)); err != nil {
			return nil, err
		}
	}
	if err := actor.Allow(payd.StaffManageStaff); err != nil {
		return nil, err
	}
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		// The enabled admins are locked first, in one order, so that two
		// changes of the last two admins at once cannot both pass.
		admins, err := tx.StaffLockAdmins(ctx)
		if err != nil {
			return err
		}
		if st, err = tx.StaffGetForUpdate(ctx, id); err != nil {
			return notFoundAs(err, "staff")
		}
		before := *st
		if role != "" {
			st.Role = role
		}
		if disable && st.DisabledAt == nil {
			now := s.clock.Now()
			st.DisabledAt = &now
		}
		if st.Role == before.Role && (st.DisabledAt == nil) == (before.DisabledAt == nil) {
			return nil
		}
		if before.Role == payd.StaffAdmin && before.DisabledAt == nil && admins <= 1 {
			return errLastStaffAdmin
		}
		payd.NoteOperatorChange(ctx, &before, st)
		if st.DisabledAt != nil {
			if _, err := tx.SessionDeleteByUser(ctx, payd.AccountStaff, st.ID); err != nil {
				return err
			}
		}
		return tx.StaffUpdate(ctx, st)
	})
	return st, withOp("change staff", err)
}

// staffTokenPrefix starts every staff API token's secret, so that a token
// found in a log or a repository is recognised as one.
const staffTokenPrefix = "pst_"

// IssueStaffToken issues an API token to a staff member and returns it
// with its secret, shown this once. A token is a person's own: only that
// person issues one, or the break-glass token for the first setup (a
// staff admin may not, or it could act with another's role).
func (s *Service) IssueStaffToken(ctx context.Context, actor *payd.StaffActor, staffID, name string) (k *payd.StaffToken, secret string, err error) {
	if name == "" || len(name) > 100 {
		return nil, "", payd.Invalid("name", "name must be 1..100 characters")
	}
	if err := payd.CheckBidi("name", name); err != nil {
		return nil, "", err
	}
	if actor == nil || (actor.Via != payd.StaffViaBreakGlass && actor.StaffID != staffID) {
		return nil, "", payd.ErrStaffForbidden
	}
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		st, err := tx.StaffGet(ctx, staffID)
		if err != nil {
			return notFoundAs(err, "staff")
		}
		if st.DisabledAt != nil {
			return payd.Errorf(payd.CodeInvalidState, "the staff member is disabled")
		}
		tok, hash := newToken()
		secret = staffTokenPrefix + tok
		hash = hashToken(secret)
		now := s.clock.Now()
		k = &payd.StaffToken{ID: s.ids.New(payd.PrefixStaffToken, now), StaffID: st.ID, Name: name, CreatedAt: now}
		payd.NoteOperatorObject(ctx, k.ID, "")
		return tx.StaffTokenInsert(ctx, k, hash)
	})
	if err != nil {
		return nil, "", withOp("issue staff token", err)
	}
	return k, secret, nil
}

// ListStaffTokens lists a staff member's tokens: the person's own, or any
// to whoever manages staff.
func (s *Service) ListStaffTokens(ctx context.Context, actor *payd.StaffActor, staffID string) ([]*payd.StaffToken, error) {
	if err := selfOrStaffManager(actor, staffID); err != nil {
		return nil, err
	}
	return view(ctx, s, "list staff tokens", func(tx payd.Tx) ([]*payd.StaffToken, error) {
		if _, err := tx.StaffGet(ctx, staffID); err != nil {
			return nil, notFoundAs(err, "staff")
		}
		return tx.StaffTokenListByStaff(ctx, staffID)
	})
}

// RevokeStaffToken stops a token at once: its holder's own, or any to
// whoever manages staff.
func (s *Service) RevokeStaffToken(ctx context.Context, actor *payd.StaffActor, id string) (k *payd.StaffToken, err error) {
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		if k, err = tx.StaffTokenGet(ctx, id); err != nil {
			return notFoundAs(err, "staff token")
		}
		if err := selfOrStaffManager(actor, k.StaffID); err != nil {
			return err
		}
		if k.RevokedAt != nil {
			return nil
		}
		now := s.clock.Now()
		k.RevokedAt = &now
		return tx.StaffTokenRevoke(ctx, id, now)
	})
	return k, withOp("revoke staff token", err)
}

// selfOrStaffManager lets actor act on what is staffID's: its own, or
// anyone's when it manages staff.
func selfOrStaffManager(actor *payd.StaffActor, staffID string) error {
	if actor != nil && actor.StaffID != "" && actor.StaffID == staffID {
		return nil
	}
	return actor.Allow(payd.StaffManageStaff)
}

// IsStaffToken reports whether secret has the form of a staff API token,
// so that the operator API tells it from the break-glass token before
// reading storage.
func IsStaffToken(secret string) bool {
	return len(secret) > len(staffTokenPrefix) && secret[:len(staffTokenPrefix)] == staffTokenPrefix
}

// ErrStaffToken answers a staff token that is unknown, revoked, or of a
// disabled person.
var ErrStaffToken = &payd.Error{Code: payd.CodeInvalidCredentials, Message: "missing or wrong operator token"}

// StaffByToken returns the actor of a staff API token, with the person's
// role read now, and records the token's use (at most once a minute, as a
// session's). addr is where the request came from.
func (s *Service) StaffByToken(ctx context.Context, secret, addr string) (*payd.StaffActor, error) {
	var k *payd.StaffToken
	var st *payd.Staff
	err := s.store.View(ctx, func(tx payd.Tx) (err error) {
		if k, err = tx.StaffTokenGetByHash(ctx, hashToken(secret)); err != nil {
			return err
		}
		st, err = tx.StaffGet(ctx, k.StaffID)
		return err
	})
	if errors.Is(err, payd.ErrNoRows) {
		return nil, ErrStaffToken
	}
	if err != nil {
		return nil, withOp("read staff token", err)
	}
	if k.RevokedAt != nil || st.DisabledAt != nil {
		return nil, ErrStaffToken
	}
	if now := s.clock.Now(); k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= sessionTouchEvery {
		// Recorded without the caller's act: a use is no change to audit.
		err := s.store.Tx(context.WithoutCancel(payd.WithOperatorAct(ctx, nil)), func(tx payd.Tx) error { return tx.StaffTokenTouch(ctx, k.ID, now) })
		if err != nil {
			return nil, withOp("record staff token use", err)
		}
	}
	return &payd.StaffActor{StaffID: st.ID, Email: st.Email, Role: st.Role, Via: payd.StaffViaToken, TokenID: k.ID, Addr: addr}, nil
}

// NewStaffSetupToken issues a fresh setup token for a staff member who
// lost theirs, forgot the password or lost the phone; the previous one
// stops working. It resets the second factor too and ends the member's
// sessions: whoever uses the link sets a password and, at the first
// sign-in, enrols a new second factor.
func (s *Service) NewStaffSetupToken(ctx context.Context, actor *payd.StaffActor, id string) (st *payd.Staff, token string, err error) {
	if err := actor.Allow(payd.StaffManageStaff); err != nil {
		return nil, "", err
	}
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		if st, err = tx.StaffGetForUpdate(ctx, id); err != nil {
			return notFoundAs(err, "staff")
		}
		if st.DisabledAt != nil {
			return payd.Errorf(payd.CodeInvalidState, "the staff member is disabled")
		}
		c, err := tx.StaffCredentialsGet(ctx, st.ID)
		if err != nil {
			return err
		}
		token = s.newSetupToken(c)
		c.TOTPSecret, c.TOTPPending = "", ""
		st.TOTPEnabled = false
		if _, err := tx.SessionDeleteByUser(ctx, payd.AccountStaff, st.ID); err != nil {
			return err
		}
		return tx.StaffCredentialsUpdate(ctx, c)
	})
	return st, token, withOp("new staff setup token", err)
}
