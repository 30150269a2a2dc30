package account

import (
	"bytes"
	"context"
	"time"

	"github.com/paydhq/payd"
)

// SetupTokenTTL is how long a setup link works (docs/dashboard.md).
const SetupTokenTTL = 72 * time.Hour

// SetupURL is the absolute address of a setup token's page.
func (s *Service) SetupURL(token string) string {
	return s.setupBase + token
}

// NewSetupToken issues a fresh setup token for a merchant's user who lost
// theirs (or must reset a password); the previous token stops working.
func (s *Service) NewSetupToken(ctx context.Context, actor *payd.Actor, merchantID, userID string) (token string, err error) {
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		u, err := s.userOf(ctx, tx, merchantID, userID, true)
		if err != nil {
			return err
		}
		if err := payd.AllowActor(ctx, tx, actor, merchantID, "", payd.AuditSetupLink.Permission()); err != nil {
			return err
		}
		if u.DisabledAt != nil {
			return payd.Errorf(payd.CodeInvalidState, "the user is disabled")
		}
		c, err := tx.UserCredentialsGet(ctx, u.ID)
		if err != nil {
			return err
		}
		token = s.newSetupToken(c)
		if err := tx.UserCredentialsUpdate(ctx, c); err != nil {
			return err
		}
		return s.audit(ctx, tx, actor, merchantID, payd.AuditSetupLink, u.ID)
	})
	return token, withOp("new setup token", err)
}

// SetPassword sets the password of the user a setup token belongs to and
// uses the token up; the user's sessions end, wherever they are. addr is
// where the request came from, for the audit log.
func (s *Service) SetPassword(ctx context.Context, token, password, addr string) (*payd.User, error) {
	h, err := s.setPassword(ctx, s.users, token, password, addr)
	if err != nil {
		return nil, err
	}
	return h.user, nil
}

// setPassword is SetPassword for a setup token of kind k. The new hash is
// made before the transaction, within a password check's slot, so the
// database is not held while argon2id runs.
func (s *Service) setPassword(ctx context.Context, k kind, token, password, addr string) (h *holder, err error) {
	if len(password) > PasswordMaxBytes {
		return nil, payd.Invalid("password", "must have at most %d bytes", PasswordMaxBytes)
	}
	hash := hashToken(token)
	err = s.store.View(ctx, func(tx payd.Tx) (err error) {
		h, err = k.bySetupToken(ctx, tx, hash)
		return err
	})
	if err != nil {
		return nil, withOp("set password", notFoundAs(err, "setup link"))
	}
	if err := checkPassword(password, h.email); err != nil {
		return nil, err
	}
	done, err := s.beginPasswordCheck()
	if err != nil {
		return nil, err
	}
	phc := s.hashPassword(password, s.argon2)
	done()
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		// Locked and read again: of two uses of one token at once, the
		// second finds it gone.
		if h, err = k.get(ctx, tx, h.id, true); err != nil {
			return err
		}
		c, err := k.credentials(ctx, tx, h.id)
		if err != nil {
			return err
		}
		now := s.sessionNow()
		if !bytes.Equal(c.SetupHash, hash) || h.disabled || c.SetupExpiresAt == nil || !now.Before(*c.SetupExpiresAt) {
			return payd.NotFound("setup link")
		}
		c.PasswordHash = phc
		c.SetupHash, c.SetupExpiresAt = nil, nil
		if err := k.putCredentials(ctx, tx, c); err != nil {
			return err
		}
		if h.user != nil {
			h.user.HasPassword = true
		} else {
			h.staff.HasPassword = true
		}
		if _, err := tx.SessionDeleteByUser(ctx, k.name(), h.id); err != nil {
			return err
		}
		// A new password from a link an administrator issued lifts a
		// lock that failed guesses put on the account.
		if err := updateGuard(ctx, tx, k, h.email, func(g *guard) { g.signedIn(s.sessionNow()) }); err != nil {
			return err
		}
		return k.record(ctx, tx, h, addr, evSetPassword, h.id)
	})
	return h, withOp("set password", err)
}
