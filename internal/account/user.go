package account

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/paydhq/payd"
)

// NormalizeEmail is the form emails are stored and looked up in: trimmed
// and lower-cased.
func NormalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func checkEmail(email string) error {
	at := strings.LastIndexByte(email, '@')
	if email == "" || len(email) > 254 || at < 1 || at == len(email)-1 || strings.ContainsAny(email, " \t\r\n<>\",;") || !utf8.ValidString(email) {
		return payd.Invalid("email", "must be an email address")
	}
	// Staff read emails in the users list and the audit log.
	return payd.CheckBidi("email", email)
}

// errEmailTaken: another dashboard user has the email.
var errEmailTaken = &payd.Error{Code: payd.CodeEmailTaken, Param: "email", Message: "a dashboard user with this email exists"}

var errLastAdmin = &payd.Error{Code: payd.CodeInvalidState, Message: "this is the merchant's last admin; make another user admin first"}

// CreateUser adds a dashboard user to a merchant and returns it with a
// one-time setup token (valid SetupTokenTTL) through which the user sets a
// password; SetupURL makes the link of it. actor is nil for the operator.
func (s *Service) CreateUser(ctx context.Context, actor *payd.Actor, merchantID, email string, role payd.Role) (u *payd.User, token string, err error) {
	email = NormalizeEmail(email)
	if err := checkEmail(email); err != nil {
		return nil, "", err
	}
	if _, err := payd.ParseRole(string(role)); err != nil {
		return nil, "", err
	}
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		if _, err := tx.MerchantGet(ctx, merchantID); err != nil {
			return notFoundAs(err, "merchant")
		}
		if err := payd.AllowActor(ctx, tx, actor, merchantID, "", payd.AuditInviteUser.Permission()); err != nil {
			return err
		}
		now := s.clock.Now()
		u = &payd.User{ID: s.ids.NewFor(payd.PrefixUser, now, merchantID), MerchantID: merchantID, Email: email, Role: role, CreatedAt: now}
		if err := tx.UserInsert(ctx, u); err != nil {
			if errors.Is(err, payd.ErrConflict) {
				return errEmailTaken
			}
			return err
		}
		c := &payd.UserCredentials{UserID: u.ID}
		token = s.newSetupToken(c)
		if err := tx.UserCredentialsUpdate(ctx, c); err != nil {
			return err
		}
		return s.audit(ctx, tx, actor, merchantID, payd.AuditInviteUser, u.ID)
	})
	if err != nil {
		return nil, "", withOp("create user", err)
	}
	return u, token, nil
}

// userOf reads a merchant's user; a user of another merchant is not found.
func (s *Service) userOf(ctx context.Context, tx payd.Tx, merchantID, userID string, lock bool) (*payd.User, error) {
	get := tx.UserGet
	if lock {
		get = tx.UserGetForUpdate
	}
	u, err := get(ctx, userID)
	if err != nil {
		return nil, notFoundAs(err, "user")
	}
	if u.MerchantID != merchantID {
		return nil, payd.NotFound("user")
	}
	return u, nil
}

// ListUsers lists a merchant's users, oldest first.
func (s *Service) ListUsers(ctx context.Context, merchantID string) ([]*payd.User, error) {
	return view(ctx, s, "list users", func(tx payd.Tx) ([]*payd.User, error) {
		if _, err := tx.MerchantGet(ctx, merchantID); err != nil {
			return nil, notFoundAs(err, "merchant")
		}
		return tx.UserListByMerchant(ctx, merchantID)
	})
}

// GetUser reads a merchant's user.
func (s *Service) GetUser(ctx context.Context, merchantID, userID string) (*payd.User, error) {
	return view(ctx, s, "get user", func(tx payd.Tx) (*payd.User, error) { return s.userOf(ctx, tx, merchantID, userID, false) })
}

// ChangeUserRole gives a merchant's user another role. The merchant's last
// enabled admin keeps the role.
func (s *Service) ChangeUserRole(ctx context.Context, actor *payd.Actor, merchantID, userID string, role payd.Role) (u *payd.User, err error) {
	if _, err := payd.ParseRole(string(role)); err != nil {
		return nil, err
	}
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		if u, err = s.lockUser(ctx, tx, actor, payd.AuditChangeRole, merchantID, userID); err != nil {
			return err
		}
		if u.Role == role {
			return nil
		}
		if err := s.keepAnAdmin(ctx, tx, u); err != nil {
			return err
		}
		u.Role = role
		if err := tx.UserUpdate(ctx, u); err != nil {
			return err
		}
		return s.audit(ctx, tx, actor, merchantID, payd.AuditChangeRole, u.ID)
	})
	return u, withOp("change user role", err)
}

// DisableUser stops a merchant's user from signing in and ends its
// sessions. The merchant's last enabled admin cannot be disabled.
func (s *Service) DisableUser(ctx context.Context, actor *payd.Actor, merchantID, userID string) (u *payd.User, err error) {
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		if u, err = s.lockUser(ctx, tx, actor, payd.AuditDisableUser, merchantID, userID); err != nil {
			return err
		}
		if u.DisabledAt != nil {
			return nil
		}
		if err := s.keepAnAdmin(ctx, tx, u); err != nil {
			return err
		}
		now := s.clock.Now()
		u.DisabledAt = &now
		if err := tx.UserUpdate(ctx, u); err != nil {
			return err
		}
		if _, err := tx.SessionDeleteByUser(ctx, payd.AccountUser, u.ID); err != nil {
			return err
		}
		return s.audit(ctx, tx, actor, merchantID, payd.AuditDisableUser, u.ID)
	})
	return u, withOp("disable user", err)
}

// lockUser locks the merchant, so that changes of its admins serialise
// and the last-admin rule holds between two instances, then reads and
// locks the user and checks actor may manage users.
func (s *Service) lockUser(ctx context.Context, tx payd.Tx, actor *payd.Actor, action payd.AuditAction, merchantID, userID string) (*payd.User, error) {
	if _, err := tx.MerchantGetForUpdate(ctx, merchantID); err != nil {
		return nil, notFoundAs(err, "merchant")
	}
	u, err := s.userOf(ctx, tx, merchantID, userID, true)
	if err != nil {
		return nil, err
	}
	return u, payd.AllowActor(ctx, tx, actor, merchantID, "", action.Permission())
}

// keepAnAdmin refuses to take the admin role from u (a change of role or
// a disabling) when u is its merchant's last enabled admin.
func (s *Service) keepAnAdmin(ctx context.Context, tx payd.Tx, u *payd.User) error {
	if u.Role != payd.RoleAdmin || u.DisabledAt != nil {
		return nil
	}
	n, err := tx.UserCountAdmins(ctx, u.MerchantID)
	if err != nil {
		return err
	}
	if n <= 1 {
		return errLastAdmin
	}
	return nil
}

// SetSecondFactorPolicy makes a merchant require (or not) a second factor
// of every user. It applies at each user's next sign-in: a user without
// one must then enrol before anything else.
func (s *Service) SetSecondFactorPolicy(ctx context.Context, actor *payd.Actor, merchantID string, require bool) (m *payd.Merchant, err error) {
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		if m, err = tx.MerchantGetForUpdate(ctx, merchantID); err != nil {
			return notFoundAs(err, "merchant")
		}
		if err := payd.AllowActor(ctx, tx, actor, merchantID, "", payd.AuditSecondFactorPolicy.Permission()); err != nil {
			return err
		}
		m.RequireSecondFactor = require
		if err := tx.MerchantUpdate(ctx, m); err != nil {
			return err
		}
		return s.audit(ctx, tx, actor, merchantID, payd.AuditSecondFactorPolicy, merchantID)
	})
	return m, withOp("set second factor policy", err)
}
