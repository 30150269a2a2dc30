package account

import (
	"context"
	"errors"
	"time"

	"github.com/paydhq/payd"
)

// ErrSignInFailed is the one answer to a failed sign-in, whatever failed:
// unknown email, wrong password, disabled user, no password yet.
var ErrSignInFailed = &payd.Error{Code: payd.CodeInvalidCredentials, Message: "wrong email or password"}

// ErrSecondFactorFailed answers a wrong, stale or reused second-factor code.
var ErrSecondFactorFailed = &payd.Error{Code: payd.CodeInvalidRequest, Param: "code", Message: "the code is wrong or was already used"}

// SignIn checks an email and password and opens a session, returning its
// token (for the cookie). Every failure of the credentials is
// ErrSignInFailed. The order keeps an attack cheap to refuse: a slot for the
// password check is taken first (ErrPasswordChecksBusy at once when none
// is free), then the account name's guard counts the attempt (refused at
// once while it is locked), and only then does argon2id run. An unknown
// email runs the same steps: one password verification, the guard's two
// writes, so neither the answer nor its time tells whether it exists.
func (s *Service) SignIn(ctx context.Context, email, password, addr, userAgent string) (token string, ses *payd.Session, err error) {
	email = NormalizeEmail(email)
	if len(password) > PasswordMaxBytes {
		password = password[:PasswordMaxBytes]
	}
	done, err := s.beginPasswordCheck()
	if err != nil {
		return "", nil, err
	}
	defer func() { done() }()
	var u *payd.User
	var c *payd.UserCredentials
	err = s.store.View(ctx, func(tx payd.Tx) error {
		if u, err = tx.UserGetByEmail(ctx, email); errors.Is(err, payd.ErrNoRows) {
			// The same second read as for an account, so that an
			// unknown email costs the database what a known one does.
			u = nil
			_, err = tx.UserCredentialsGet(ctx, "")
			return noRowsAsNil(err)
		} else if err != nil {
			return err
		}
		c, err = tx.UserCredentialsGet(ctx, u.ID)
		return err
	})
	if err != nil {
		return "", nil, withOp("sign in", err)
	}
	if err := s.takeGuard(ctx, email, u, addr); err != nil {
		return "", nil, err
	}
	ok, stale := false, false
	if u == nil || c.PasswordHash == "" {
		s.verifyDummy(password)
	} else if ok, stale, err = s.verifyPassword(password, c.PasswordHash); err != nil {
		return "", nil, withOp("sign in", err)
	}
	if !ok || u.DisabledAt != nil {
		return "", nil, s.signInFailed(ctx, email, u, addr)
	}
	rehashed := ""
	if stale {
		// Parameters changed since this hash was made: it is replaced
		// now that the password is at hand, within the check's slot.
		rehashed = s.hashPassword(password, s.argon2)
	}
	done()
	done = func() {}
	var state payd.SessionState
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		m, err := tx.MerchantGet(ctx, u.MerchantID)
		if err != nil {
			return err
		}
		switch {
		case u.TOTPEnabled:
			state = payd.SessionSecondFactor
		case m.RequireSecondFactor:
			state = payd.SessionEnroll
		default:
			state = payd.SessionActive
		}
		if rehashed != "" {
			c.PasswordHash = rehashed
			if err := tx.UserCredentialsUpdate(ctx, c); err != nil {
				return err
			}
		}
		failures := 0
		err = updateGuard(ctx, tx, email, func(g *guard) {
			if state == payd.SessionSecondFactor {
				// The password was right, but the sign-in is not done:
				// the code's failures still count against the account.
				g.giveBack()
			} else {
				failures = g.signedIn(s.sessionNow())
			}
		})
		if err != nil {
			return err
		}
		if token, ses, err = s.openSession(ctx, tx, u, state, addr, userAgent, time.Time{}); err != nil {
			return err
		}
		if err := s.noteFailures(ctx, tx, ses, failures); err != nil {
			return err
		}
		return s.audit(ctx, tx, &payd.Actor{UserID: u.ID, Email: u.Email, Addr: addr}, u.MerchantID, payd.AuditSignIn, ses.ID)
	})
	if err != nil {
		return "", nil, withOp("sign in", err)
	}
	return token, ses, nil
}

// signInFailed records a wrong password (or a disabled or password-less
// user) on the guard, and in the audit log when the account exists; it
// returns ErrSignInFailed to answer.
func (s *Service) signInFailed(ctx context.Context, email string, u *payd.User, addr string) error {
	err := s.store.Tx(ctx, func(tx payd.Tx) error {
		if err := updateGuard(ctx, tx, email, func(g *guard) { g.failed(s.sessionNow(), addr) }); err != nil {
			return err
		}
		if u == nil {
			return nil
		}
		return s.audit(ctx, tx, &payd.Actor{UserID: u.ID, Email: u.Email, Addr: addr}, u.MerchantID, payd.AuditSignInFailed, u.ID)
	})
	if err != nil {
		return withOp("sign in", err)
	}
	return ErrSignInFailed
}

// noteFailures keeps on a session that completes a sign-in how many
// failed attempts the account had since its previous sign-in, for the
// notice its pages show.
func (s *Service) noteFailures(ctx context.Context, tx payd.Tx, ses *payd.Session, failures int) error {
	if failures == 0 {
		return nil
	}
	ses.FailedSignIns = failures
	return tx.SessionNoteFailures(ctx, ses.ID, failures)
}

// SecondFactor finishes a sign-in whose session awaits the second
// factor's code: on a right code never used before, the session is
// replaced by an active one with a new id and token (the old token stops
// working). Each code is counted on the account's guard before it is
// checked, in the same transaction, so codes sent at once are checked one
// by one against the budget; a wrong one is in the audit log, and
// SignInPolicy.CodeFailures wrong ones end the session
// (ErrSecondFactorSessionEnded): the visitor must give the password again.
func (s *Service) SecondFactor(ctx context.Context, token, code, addr string) (newToken string, ses *payd.Session, err error) {
	old, u, err := s.sessionOf(ctx, token)
	if err != nil {
		return "", nil, err
	}
	if old.State != payd.SessionSecondFactor {
		return "", nil, payd.Errorf(payd.CodeInvalidState, "this session awaits no code")
	}
	var refused error
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		// Locking the user serialises two submissions of one code: the
		// second sees the step the first recorded.
		if _, err := tx.UserGetForUpdate(ctx, u.ID); err != nil {
			return err
		}
		cur, err := tx.SessionGetByToken(ctx, hashToken(token))
		if errors.Is(err, payd.ErrNoRows) {
			return ErrNoSession // replaced or ended meanwhile
		}
		if err != nil {
			return err
		}
		if refused, err = s.takeGuardTx(ctx, tx, u.Email, u, addr); err != nil || refused != nil {
			return err // the guard's count commits; the code is not checked
		}
		c, err := tx.UserCredentialsGet(ctx, u.ID)
		if err != nil {
			return err
		}
		// An authenticator app counts real time, not the sandboxes'.
		now := s.sessionNow()
		step := int64(0)
		if c.TOTPSecret != "" {
			step = totpStep(c.TOTPSecret, code, now, c.TOTPLastStep)
		}
		if step == 0 {
			refused, err = s.codeFailed(ctx, tx, cur, u, addr)
			return err
		}
		failures := 0
		if err := updateGuard(ctx, tx, u.Email, func(g *guard) { failures = g.signedIn(now) }); err != nil {
			return err
		}
		c.TOTPLastStep = step
		if err := tx.UserCredentialsUpdate(ctx, c); err != nil {
			return err
		}
		if newToken, ses, err = s.replaceSession(ctx, tx, old, u, payd.SessionActive); err != nil {
			return err
		}
		return s.noteFailures(ctx, tx, ses, failures)
	})
	if err == nil {
		err = refused
	}
	if err != nil {
		return "", nil, withOp("second factor", err)
	}
	return newToken, ses, nil
}

// ErrSecondFactorSessionEnded answers the wrong code that ended its
// session: the next try starts from the password.
var ErrSecondFactorSessionEnded = &payd.Error{Code: payd.CodeInvalidCredentials,
	Message: "too many wrong codes; sign in again with your password"}

// codeFailed records a wrong code: on the guard (already counted), in the
// audit log, and on the session, which ends at the policy's count. It
// returns the answer to give.
func (s *Service) codeFailed(ctx context.Context, tx payd.Tx, ses *payd.Session, u *payd.User, addr string) (error, error) {
	if err := updateGuard(ctx, tx, u.Email, func(g *guard) { g.failed(s.sessionNow(), addr) }); err != nil {
		return nil, err
	}
	actor := &payd.Actor{UserID: u.ID, Email: u.Email, Addr: addr}
	if err := s.audit(ctx, tx, actor, u.MerchantID, payd.AuditSecondFactorFailed, ses.ID); err != nil {
		return nil, err
	}
	n, err := tx.SessionCodeFailed(ctx, ses.ID)
	if err != nil {
		return nil, err
	}
	if n < s.signIn.CodeFailures {
		return ErrSecondFactorFailed, nil
	}
	if err := tx.SessionDelete(ctx, ses.ID); err != nil {
		return nil, err
	}
	if err := s.audit(ctx, tx, actor, u.MerchantID, payd.AuditSecondFactorEnded, ses.ID); err != nil {
		return nil, err
	}
	return ErrSecondFactorSessionEnded, nil
}
