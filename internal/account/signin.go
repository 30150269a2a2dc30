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
	return s.signInAs(ctx, s.users, email, password, addr, userAgent)
}

// signInAs is SignIn for an account of kind k.
func (s *Service) signInAs(ctx context.Context, k kind, email, password, addr, userAgent string) (token string, ses *payd.Session, err error) {
	email = NormalizeEmail(email)
	if len(password) > PasswordMaxBytes {
		password = password[:PasswordMaxBytes]
	}
	done, err := s.beginPasswordCheck()
	if err != nil {
		return "", nil, err
	}
	defer func() { done() }()
	var h *holder
	var c *payd.UserCredentials
	err = s.store.View(ctx, func(tx payd.Tx) error {
		if h, err = k.byEmail(ctx, tx, email); errors.Is(err, payd.ErrNoRows) {
			// The same second read as for an account, so that an
			// unknown email costs the database what a known one does.
			h = nil
			_, err = k.credentials(ctx, tx, "")
			return noRowsAsNil(err)
		} else if err != nil {
			return err
		}
		c, err = k.credentials(ctx, tx, h.id)
		return err
	})
	if err != nil {
		return "", nil, withOp("sign in", err)
	}
	if err := s.takeGuard(ctx, k, email, h, addr); err != nil {
		return "", nil, err
	}
	ok, stale := false, false
	if h == nil || c.PasswordHash == "" {
		s.verifyDummy(password)
	} else if ok, stale, err = s.verifyPassword(password, c.PasswordHash); err != nil {
		return "", nil, withOp("sign in", err)
	}
	if !ok || h.disabled {
		return "", nil, s.signInFailed(ctx, k, email, h, addr)
	}
	rehashed := ""
	if stale {
		// Parameters changed since this hash was made: it is replaced
		// now that the password is at hand, within the check's slot.
		rehashed = s.hashPassword(password, s.argon2)
	}
	done()
	done = func() {}
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		state, err := k.opening(ctx, tx, h)
		if err != nil {
			return err
		}
		if rehashed != "" {
			c.PasswordHash = rehashed
			if err := k.putCredentials(ctx, tx, c); err != nil {
				return err
			}
		}
		failures := 0
		err = updateGuard(ctx, tx, k, email, func(g *guard) {
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
		if token, ses, err = s.openSession(ctx, tx, h, state, addr, userAgent, time.Time{}); err != nil {
			return err
		}
		if err := s.noteFailures(ctx, tx, ses, failures); err != nil {
			return err
		}
		return k.record(ctx, tx, h, addr, evSignIn, ses.ID)
	})
	if err != nil {
		return "", nil, withOp("sign in", err)
	}
	return token, ses, nil
}

// signInFailed records a wrong password (or a disabled or password-less
// user) on the guard, and in the audit log when the account exists; it
// returns ErrSignInFailed to answer.
func (s *Service) signInFailed(ctx context.Context, k kind, email string, h *holder, addr string) error {
	err := s.store.Tx(ctx, func(tx payd.Tx) error {
		if err := updateGuard(ctx, tx, k, email, func(g *guard) { g.failed(s.sessionNow(), addr) }); err != nil {
			return err
		}
		if h == nil {
			return nil
		}
		return k.record(ctx, tx, h, addr, evSignInFailed, h.id)
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
	return tx.SessionNoteFailures(ctx, ses.Kind, ses.ID, failures)
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
	return s.secondFactor(ctx, s.users, token, code, addr)
}

// secondFactor is SecondFactor for a session of kind k.
func (s *Service) secondFactor(ctx context.Context, k kind, token, code, addr string) (newToken string, ses *payd.Session, err error) {
	old, h, err := s.sessionOf(ctx, k, token)
	if err != nil {
		return "", nil, err
	}
	if old.State != payd.SessionSecondFactor {
		return "", nil, payd.Errorf(payd.CodeInvalidState, "this session awaits no code")
	}
	var refused error
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		// Locking the account serialises two submissions of one code:
		// the second sees the step the first recorded.
		if _, err := k.get(ctx, tx, h.id, true); err != nil {
			return err
		}
		cur, err := tx.SessionGetByToken(ctx, k.name(), hashToken(token))
		if errors.Is(err, payd.ErrNoRows) {
			return ErrNoSession // replaced or ended meanwhile
		}
		if err != nil {
			return err
		}
		if refused, err = s.takeGuardTx(ctx, tx, k, h.email, h, addr); err != nil || refused != nil {
			return err // the guard's count commits; the code is not checked
		}
		c, err := k.credentials(ctx, tx, h.id)
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
			refused, err = s.codeFailed(ctx, tx, cur, h, addr)
			return err
		}
		failures := 0
		if err := updateGuard(ctx, tx, k, h.email, func(g *guard) { failures = g.signedIn(now) }); err != nil {
			return err
		}
		c.TOTPLastStep = step
		if err := k.putCredentials(ctx, tx, c); err != nil {
			return err
		}
		if newToken, ses, err = s.replaceSession(ctx, tx, old, h, payd.SessionActive); err != nil {
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
func (s *Service) codeFailed(ctx context.Context, tx payd.Tx, ses *payd.Session, h *holder, addr string) (error, error) {
	k := h.kind
	if err := updateGuard(ctx, tx, k, h.email, func(g *guard) { g.failed(s.sessionNow(), addr) }); err != nil {
		return nil, err
	}
	if err := k.record(ctx, tx, h, addr, evSecondFactorFailed, ses.ID); err != nil {
		return nil, err
	}
	n, err := tx.SessionCodeFailed(ctx, ses.Kind, ses.ID)
	if err != nil {
		return nil, err
	}
	if n < s.signIn.CodeFailures {
		return ErrSecondFactorFailed, nil
	}
	if err := tx.SessionDelete(ctx, ses.Kind, ses.ID); err != nil {
		return nil, err
	}
	if err := k.record(ctx, tx, h, addr, evSecondFactorEnded, ses.ID); err != nil {
		return nil, err
	}
	return ErrSecondFactorSessionEnded, nil
}
