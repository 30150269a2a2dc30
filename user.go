package payd

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"time"
	"unicode/utf8"
)

// User is a person who signs in to the dashboard on behalf of a merchant.
// Its secrets (password hash, second-factor secret, setup token) are kept
// apart in UserCredentials, which never leaves the domain.
type User struct {
	ID         string `json:"id"`
	MerchantID string `json:"merchant_id"`
	Email      string `json:"email"`
	Role       Role   `json:"role"`
	// HasPassword is false until the user has used a setup link.
	HasPassword bool       `json:"has_password"`
	TOTPEnabled bool       `json:"totp_enabled"`
	CreatedAt   time.Time  `json:"created_at"`
	DisabledAt  *time.Time `json:"disabled_at,omitempty"`
}

// UserCredentials are a user's secrets, read and written only by the
// service.
type UserCredentials struct {
	UserID string
	// PasswordHash is the argon2id hash in PHC string form; "" before the
	// first password.
	PasswordHash string
	// TOTPSecret is the base32 secret of the second factor, "" when it is
	// off; TOTPPending is a secret being enrolled; TOTPLastStep is the
	// time step of the last code accepted, so a code is used once.
	TOTPSecret   string
	TOTPPending  string
	TOTPLastStep int64
	// SetupHash is the SHA-256 of the one-time setup token, nil when there
	// is none; SetupExpiresAt its expiry.
	SetupHash      []byte
	SetupExpiresAt *time.Time
}

// SetupTokenTTL is how long a setup link works (docs/dashboard.md).
const SetupTokenTTL = 72 * time.Hour

// Actor is who acts through the dashboard: a signed-in user and the
// address the request came from. Pages set Principal.Actor; user
// management methods take it, nil meaning the operator.
type Actor struct {
	UserID, Email, Addr string
}

// NormalizeEmail is the form emails are stored and looked up in: trimmed
// and lower-cased.
func NormalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func checkEmail(email string) error {
	at := strings.LastIndexByte(email, '@')
	if email == "" || len(email) > 254 || at < 1 || at == len(email)-1 || strings.ContainsAny(email, " \t\r\n<>\",;") || !utf8.ValidString(email) {
		return Invalid("email", "must be an email address")
	}
	// Staff read emails in the users list and the audit log.
	return CheckBidi("email", email)
}

// newToken returns 32 random bytes in base64url and their SHA-256: the
// token goes to the user, only the hash is stored.
func newToken() (string, []byte) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	tok := base64.RawURLEncoding.EncodeToString(b)
	return tok, hashToken(tok)
}

func hashToken(tok string) []byte {
	h := sha256.Sum256([]byte(tok))
	return h[:]
}

// errEmailTaken: another dashboard user has the email.
var errEmailTaken = &Error{Code: CodeEmailTaken, Param: "email", Message: "a dashboard user with this email exists"}

var errLastAdmin = &Error{Code: CodeInvalidState, Message: "this is the merchant's last admin; make another user admin first"}

// CreateUser adds a dashboard user to a merchant and returns it with a
// one-time setup token (valid SetupTokenTTL) through which the user sets a
// password; SetupURL makes the link of it. actor is nil for the operator.
func (s *Service) CreateUser(ctx context.Context, actor *Actor, merchantID, email string, role Role) (u *User, token string, err error) {
	email = NormalizeEmail(email)
	if err := checkEmail(email); err != nil {
		return nil, "", err
	}
	if _, err := ParseRole(string(role)); err != nil {
		return nil, "", err
	}
	err = s.store.Tx(ctx, func(tx Tx) error {
		if _, err := tx.MerchantGet(ctx, merchantID); err != nil {
			return notFoundAs(err, "merchant")
		}
		if err := AllowActor(ctx, tx, actor, merchantID, "", AuditInviteUser.Permission()); err != nil {
			return err
		}
		now := s.clock.Now()
		u = &User{ID: s.ids.NewFor(PrefixUser, now, merchantID), MerchantID: merchantID, Email: email, Role: role, CreatedAt: now}
		if err := tx.UserInsert(ctx, u); err != nil {
			if errors.Is(err, ErrConflict) {
				return errEmailTaken
			}
			return err
		}
		var hash []byte
		token, hash = newToken()
		exp := s.sessionNow().Add(SetupTokenTTL) // real time, as the person invited lives by
		if err := tx.UserCredentialsUpdate(ctx, &UserCredentials{UserID: u.ID, SetupHash: hash, SetupExpiresAt: &exp}); err != nil {
			return err
		}
		return s.audit(ctx, tx, actor, merchantID, AuditInviteUser, u.ID)
	})
	if err != nil {
		return nil, "", withOp("create user", err)
	}
	return u, token, nil
}

// SetupURL is the absolute address of a setup token's page.
func (s *Service) SetupURL(token string) string {
	return s.publicURL + s.paths.DashboardSetup + token
}

// NewSetupToken issues a fresh setup token for a merchant's user who lost
// theirs (or must reset a password); the previous token stops working.
func (s *Service) NewSetupToken(ctx context.Context, actor *Actor, merchantID, userID string) (token string, err error) {
	err = s.store.Tx(ctx, func(tx Tx) error {
		u, err := s.userOf(ctx, tx, merchantID, userID, true)
		if err != nil {
			return err
		}
		if err := AllowActor(ctx, tx, actor, merchantID, "", AuditSetupLink.Permission()); err != nil {
			return err
		}
		if u.DisabledAt != nil {
			return Errorf(CodeInvalidState, "the user is disabled")
		}
		c, err := tx.UserCredentialsGet(ctx, u.ID)
		if err != nil {
			return err
		}
		var hash []byte
		token, hash = newToken()
		exp := s.sessionNow().Add(SetupTokenTTL)
		c.SetupHash, c.SetupExpiresAt = hash, &exp
		if err := tx.UserCredentialsUpdate(ctx, c); err != nil {
			return err
		}
		return s.audit(ctx, tx, actor, merchantID, AuditSetupLink, u.ID)
	})
	return token, withOp("new setup token", err)
}

// userOf reads a merchant's user; a user of another merchant is not found.
func (s *Service) userOf(ctx context.Context, tx Tx, merchantID, userID string, lock bool) (*User, error) {
	get := tx.UserGet
	if lock {
		get = tx.UserGetForUpdate
	}
	u, err := get(ctx, userID)
	if err != nil {
		return nil, notFoundAs(err, "user")
	}
	if u.MerchantID != merchantID {
		return nil, NotFound("user")
	}
	return u, nil
}

// ListUsers lists a merchant's users, oldest first.
func (s *Service) ListUsers(ctx context.Context, merchantID string) ([]*User, error) {
	return read(ctx, s, "list users", func(tx Tx) ([]*User, error) {
		if _, err := tx.MerchantGet(ctx, merchantID); err != nil {
			return nil, notFoundAs(err, "merchant")
		}
		return tx.UserListByMerchant(ctx, merchantID)
	})
}

// GetUser reads a merchant's user.
func (s *Service) GetUser(ctx context.Context, merchantID, userID string) (*User, error) {
	return read(ctx, s, "get user", func(tx Tx) (*User, error) { return s.userOf(ctx, tx, merchantID, userID, false) })
}

// ChangeUserRole gives a merchant's user another role. The merchant's last
// enabled admin keeps the role.
func (s *Service) ChangeUserRole(ctx context.Context, actor *Actor, merchantID, userID string, role Role) (u *User, err error) {
	if _, err := ParseRole(string(role)); err != nil {
		return nil, err
	}
	err = s.store.Tx(ctx, func(tx Tx) error {
		if u, err = s.lockUser(ctx, tx, actor, AuditChangeRole, merchantID, userID); err != nil {
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
		return s.audit(ctx, tx, actor, merchantID, AuditChangeRole, u.ID)
	})
	return u, withOp("change user role", err)
}

// DisableUser stops a merchant's user from signing in and ends its
// sessions. The merchant's last enabled admin cannot be disabled.
func (s *Service) DisableUser(ctx context.Context, actor *Actor, merchantID, userID string) (u *User, err error) {
	err = s.store.Tx(ctx, func(tx Tx) error {
		if u, err = s.lockUser(ctx, tx, actor, AuditDisableUser, merchantID, userID); err != nil {
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
		if _, err := tx.SessionDeleteByUser(ctx, u.ID); err != nil {
			return err
		}
		return s.audit(ctx, tx, actor, merchantID, AuditDisableUser, u.ID)
	})
	return u, withOp("disable user", err)
}

// lockUser locks the merchant, so that changes of its admins serialise
// and the last-admin rule holds between two instances, then reads and
// locks the user and checks actor may manage users.
func (s *Service) lockUser(ctx context.Context, tx Tx, actor *Actor, action AuditAction, merchantID, userID string) (*User, error) {
	if _, err := tx.MerchantGetForUpdate(ctx, merchantID); err != nil {
		return nil, notFoundAs(err, "merchant")
	}
	u, err := s.userOf(ctx, tx, merchantID, userID, true)
	if err != nil {
		return nil, err
	}
	return u, AllowActor(ctx, tx, actor, merchantID, "", action.Permission())
}

// keepAnAdmin refuses to take the admin role from u (a change of role or
// a disabling) when u is its merchant's last enabled admin.
func (s *Service) keepAnAdmin(ctx context.Context, tx Tx, u *User) error {
	if u.Role != RoleAdmin || u.DisabledAt != nil {
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
func (s *Service) SetSecondFactorPolicy(ctx context.Context, actor *Actor, merchantID string, require bool) (m *Merchant, err error) {
	err = s.store.Tx(ctx, func(tx Tx) error {
		if m, err = tx.MerchantGetForUpdate(ctx, merchantID); err != nil {
			return notFoundAs(err, "merchant")
		}
		if err := AllowActor(ctx, tx, actor, merchantID, "", AuditSecondFactorPolicy.Permission()); err != nil {
			return err
		}
		m.RequireSecondFactor = require
		if err := tx.MerchantUpdate(ctx, m); err != nil {
			return err
		}
		return s.audit(ctx, tx, actor, merchantID, AuditSecondFactorPolicy, merchantID)
	})
	return m, withOp("set second factor policy", err)
}
