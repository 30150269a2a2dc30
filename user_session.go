package payd

import (
	"context"
	"errors"
	"time"
)

// SessionState says what a session may do.
type SessionState string

// Session states. A session in second_factor or enroll may do nothing but
// finish signing in; only an active one reaches the pages.
const (
	// SessionActive: signed in.
	SessionActive SessionState = "active"
	// SessionSecondFactor: the password was right, the second factor's
	// code is awaited.
	SessionSecondFactor SessionState = "second_factor"
	// SessionEnroll: the merchant requires a second factor this user has
	// not set up; only enrolment is allowed.
	SessionEnroll SessionState = "enroll"
)

// SessionStateAll returns every session state.
func SessionStateAll() []SessionState {
	return []SessionState{SessionActive, SessionSecondFactor, SessionEnroll}
}

// Session is a signed-in browser. Only the SHA-256 of its token (the
// cookie's value) is stored; ID is its public name, for lists and the
// audit log, never the cookie.
type Session struct {
	ID         string       `json:"id"`
	UserID     string       `json:"user_id"`
	MerchantID string       `json:"merchant_id"`
	State      SessionState `json:"state"`
	CreatedAt  time.Time    `json:"created_at"`
	LastSeenAt time.Time    `json:"last_seen_at"`
	Addr       string       `json:"addr"`
	UserAgent  string       `json:"user_agent"`
	// FailedSignIns is how many failed attempts (passwords and codes)
	// the account had between its previous sign-in and the one that
	// opened this session: the pages tell the owner.
	FailedSignIns int `json:"failed_sign_ins,omitempty"`
	// CodeFailures counts the wrong codes given to a session awaiting
	// the second factor; SignInPolicy.CodeFailures of them end it.
	CodeFailures int `json:"-"`
}

// SessionPolicy bounds a session's life.
type SessionPolicy struct {
	// Idle ends a session not used for this long; 0 means 30 minutes.
	Idle time.Duration
	// Absolute ends a session this long after sign-in, used or not; 0
	// means 12 hours.
	Absolute time.Duration
}

// Defaults of SessionPolicy (docs/dashboard.md).
const (
	DefaultSessionIdle     = 30 * time.Minute
	DefaultSessionAbsolute = 12 * time.Hour
)

// sessionTouchEvery is how stale LastSeenAt may be before a request writes
// it: a minute, so that a busy page costs no write per request while the
// idle timeout stays exact to the minute.
const sessionTouchEvery = time.Minute

// ErrSignInFailed is the one answer to a failed sign-in, whatever failed:
// unknown email, wrong password, disabled user, no password yet.
var ErrSignInFailed = &Error{Code: CodeInvalidCredentials, Message: "wrong email or password"}

// ErrNoSession answers a session token that is unknown, expired or of a
// disabled user: the browser must sign in again.
var ErrNoSession = &Error{Code: CodeInvalidCredentials, Message: "the session has ended; sign in again"}

// ErrSecondFactorFailed answers a wrong, stale or reused second-factor code.
var ErrSecondFactorFailed = &Error{Code: CodeInvalidRequest, Param: "code", Message: "the code is wrong or was already used"}

// SignIn checks an email and password and opens a session, returning its
// token (for the cookie). Every failure of the credentials is
// ErrSignInFailed. The order keeps an attack cheap to refuse: a slot for the
// password check is taken first (ErrPasswordChecksBusy at once when none
// is free), then the account name's guard counts the attempt (refused at
// once while it is locked), and only then does argon2id run. An unknown
// email runs the same steps: one password verification, the guard's two
// writes, so neither the answer nor its time tells whether it exists.
func (s *Service) SignIn(ctx context.Context, email, password, addr, userAgent string) (token string, ses *Session, err error) {
	email = NormalizeEmail(email)
	if len(password) > PasswordMaxBytes {
		password = password[:PasswordMaxBytes]
	}
	done, err := s.beginPasswordCheck()
	if err != nil {
		return "", nil, err
	}
	defer func() { done() }()
	var u *User
	var c *UserCredentials
	err = s.store.View(ctx, func(tx Tx) error {
		if u, err = tx.UserGetByEmail(ctx, email); errors.Is(err, ErrNoRows) {
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
	var state SessionState
	err = s.store.Tx(ctx, func(tx Tx) error {
		m, err := tx.MerchantGet(ctx, u.MerchantID)
		if err != nil {
			return err
		}
		switch {
		case u.TOTPEnabled:
			state = SessionSecondFactor
		case m.RequireSecondFactor:
			state = SessionEnroll
		default:
			state = SessionActive
		}
		if rehashed != "" {
			c.PasswordHash = rehashed
			if err := tx.UserCredentialsUpdate(ctx, c); err != nil {
				return err
			}
		}
		failures := 0
		err = updateGuard(ctx, tx, email, func(g *SignInGuard) {
			if state == SessionSecondFactor {
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
		return s.audit(ctx, tx, &Actor{UserID: u.ID, Email: u.Email, Addr: addr}, u.MerchantID, AuditSignIn, ses.ID)
	})
	if err != nil {
		return "", nil, withOp("sign in", err)
	}
	return token, ses, nil
}

// signInFailed records a wrong password (or a disabled or password-less
// user) on the guard, and in the audit log when the account exists; it
// returns ErrSignInFailed to answer.
func (s *Service) signInFailed(ctx context.Context, email string, u *User, addr string) error {
	err := s.store.Tx(ctx, func(tx Tx) error {
		if err := updateGuard(ctx, tx, email, func(g *SignInGuard) { g.failed(s.sessionNow(), addr) }); err != nil {
			return err
		}
		if u == nil {
			return nil
		}
		return s.audit(ctx, tx, &Actor{UserID: u.ID, Email: u.Email, Addr: addr}, u.MerchantID, AuditSignInFailed, u.ID)
	})
	if err != nil {
		return withOp("sign in", err)
	}
	return ErrSignInFailed
}

// noRowsAsNil is err, except that no rows is no error.
func noRowsAsNil(err error) error {
	if errors.Is(err, ErrNoRows) {
		return nil
	}
	return err
}

// noteFailures keeps on a session that completes a sign-in how many
// failed attempts the account had since its previous sign-in, for the
// notice its pages show.
func (s *Service) noteFailures(ctx context.Context, tx Tx, ses *Session, failures int) error {
	if failures == 0 {
		return nil
	}
	ses.FailedSignIns = failures
	return tx.SessionNoteFailures(ctx, ses.ID, failures)
}

// openSession stores a new session of u with a fresh token, signed in at
// signedIn (now when zero), and ends the user's least recently used
// sessions beyond MaxUserSessions.
func (s *Service) openSession(ctx context.Context, tx Tx, u *User, state SessionState, addr, userAgent string, signedIn time.Time) (string, *Session, error) {
	now := s.sessionNow()
	if signedIn.IsZero() {
		signedIn = now
	}
	token, hash := newToken()
	ses := &Session{ID: s.ids.NewFor(PrefixSession, now, u.MerchantID), UserID: u.ID, MerchantID: u.MerchantID, State: state,
		CreatedAt: signedIn, LastSeenAt: now, Addr: addr, UserAgent: truncate(userAgent, 256)}
	if err := tx.SessionInsert(ctx, ses, hash); err != nil {
		return "", nil, err
	}
	if err := s.boundSessions(ctx, tx, ses); err != nil {
		return "", nil, err
	}
	return token, ses, nil
}

// replaceSession ends old and opens a session of the same user, sign-in
// time and address in state, under a new id and token: a session's
// token changes whenever what it may do grows.
func (s *Service) replaceSession(ctx context.Context, tx Tx, old *Session, u *User, state SessionState) (string, *Session, error) {
	if err := tx.SessionDelete(ctx, old.ID); err != nil {
		return "", nil, err
	}
	// The absolute timeout still counts from the sign-in.
	return s.openSession(ctx, tx, u, state, old.Addr, old.UserAgent, old.CreatedAt)
}

// policy returns the session policy with its defaults.
func (p SessionPolicy) withDefaults() SessionPolicy {
	if p.Idle <= 0 {
		p.Idle = DefaultSessionIdle
	}
	if p.Absolute <= 0 {
		p.Absolute = DefaultSessionAbsolute
	}
	return p
}

// live reports whether ses is within its timeouts at now.
func (p SessionPolicy) live(ses *Session, now time.Time) bool {
	return now.Before(ses.LastSeenAt.Add(p.Idle)) && now.Before(ses.CreatedAt.Add(p.Absolute))
}

// sessionNow is the time of what a person at a browser lives by: sessions'
// stamps and timeouts, setup links' expiry, the sign-in guard's windows
// and locks, authenticator codes. It is the service clock, except the
// wall clock when that is a test clock (`serve --test-clock`). A test clock is the sandboxes' time, every
// merchant's on the instance, moved by hours or days; a session is a
// person at a browser, whose idle and absolute timeouts are real time. On
// the test clock a move would end every session of every merchant (or,
// for one opened after a move, let it outlive its timeouts).
func (s *Service) sessionNow() time.Time {
	if _, ok := s.clock.(*TestClock); ok {
		return SystemClock{}.Now()
	}
	return s.clock.Now()
}

// Session returns the session of a token and its user, in any state (the
// page lets only an active one past sign-in). An unknown token, a session
// past its idle or absolute timeout and a disabled user's session are
// ErrNoSession. LastSeenAt is written at most once a minute.
func (s *Service) Session(ctx context.Context, token string) (*Session, *User, error) {
	ses, u, err := s.sessionOf(ctx, token)
	if err != nil {
		return nil, nil, err
	}
	if now := s.sessionNow(); now.Sub(ses.LastSeenAt) >= sessionTouchEvery {
		err := s.store.Tx(ctx, func(tx Tx) error { return tx.SessionTouch(ctx, ses.ID, now) })
		if errors.Is(err, ErrNoRows) {
			return nil, nil, ErrNoSession // signed out meanwhile
		}
		if err != nil {
			return nil, nil, withOp("touch session", err)
		}
		ses.LastSeenAt = now
	}
	return ses, u, nil
}

// sessionOf reads a live session and its enabled user.
func (s *Service) sessionOf(ctx context.Context, token string) (ses *Session, u *User, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		if ses, err = tx.SessionGetByToken(ctx, hashToken(token)); err != nil {
			return err
		}
		u, err = tx.UserGet(ctx, ses.UserID)
		return err
	})
	if errors.Is(err, ErrNoRows) {
		return nil, nil, ErrNoSession
	}
	if err != nil {
		return nil, nil, withOp("read session", err)
	}
	if !s.sessions.live(ses, s.sessionNow()) || u.DisabledAt != nil {
		return nil, nil, ErrNoSession
	}
	return ses, u, nil
}

// SignOut ends the session of a token, recording it in the audit log
// with addr; an unknown token is no error.
func (s *Service) SignOut(ctx context.Context, token, addr string) error {
	err := s.store.Tx(ctx, func(tx Tx) error {
		ses, err := tx.SessionGetByToken(ctx, hashToken(token))
		if errors.Is(err, ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := tx.SessionDelete(ctx, ses.ID); err != nil {
			return err
		}
		u, err := tx.UserGet(ctx, ses.UserID)
		if err != nil {
			return err
		}
		return s.audit(ctx, tx, &Actor{UserID: u.ID, Email: u.Email, Addr: addr}, u.MerchantID, AuditSignOut, ses.ID)
	})
	return withOp("sign out", err)
}

// SignOutEverywhere ends every session of a user. The actor is the user
// or an admin of its merchant.
func (s *Service) SignOutEverywhere(ctx context.Context, actor *Actor, userID string) error {
	err := s.store.Tx(ctx, func(tx Tx) error {
		u, err := tx.UserGet(ctx, userID)
		if err != nil {
			return notFoundAs(err, "user")
		}
		if err := AllowActor(ctx, tx, actor, u.MerchantID, u.ID, AuditSignOutEverywhere.Permission()); err != nil {
			return err
		}
		if _, err := tx.SessionDeleteByUser(ctx, u.ID); err != nil {
			return err
		}
		return s.audit(ctx, tx, actor, u.MerchantID, AuditSignOutEverywhere, u.ID)
	})
	return withOp("sign out everywhere", err)
}

// PurgeSessions deletes the sessions past their timeouts and the setup
// tokens past their expiry; a periodic job runs it.
func (s *Service) PurgeSessions(ctx context.Context) (n int64, err error) {
	now := s.sessionNow()
	err = s.store.Tx(ctx, func(tx Tx) error {
		if n, err = tx.SessionDeleteExpired(ctx, now.Add(-s.sessions.Idle), now.Add(-s.sessions.Absolute)); err != nil {
			return err
		}
		m, err := tx.UserSetupTokensExpire(ctx, now)
		n += m
		return err
	})
	return n, withOp("purge sessions", err)
}
