package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"time"

	"github.com/paydhq/payd"
)

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

// MaxUserSessions bounds the sessions one user holds at once: opening one
// more ends the least recently used. Without a bound every sign-in adds a
// row that lives until its timeouts, so a script that signs in with a
// user's password (or a user who signs in from many browsers) grows the
// table without end; ten are more browsers than a person uses.
const MaxUserSessions = 10

// MaxWaitingSessions bounds apart the sessions of one user that await the
// second factor or its enrolment. Counted with the signed-in ones, they
// would let someone who has the password but not the phone sign the user
// out again and again by opening sessions that push the real ones out.
const MaxWaitingSessions = 3

// ErrNoSession answers a session token that is unknown, expired or of a
// disabled user: the browser must sign in again.
var ErrNoSession = &payd.Error{Code: payd.CodeInvalidCredentials, Message: "the session has ended; sign in again"}

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

// newSetupToken puts a fresh one-time setup token into c (its hash, valid
// SetupTokenTTL on the real clock, as the person invited lives by) and
// returns the token, which goes to the person alone.
func (s *Service) newSetupToken(c *payd.UserCredentials) string {
	token, hash := newToken()
	exp := s.sessionNow().Add(SetupTokenTTL)
	c.SetupHash, c.SetupExpiresAt = hash, &exp
	return token
}

func hashToken(tok string) []byte {
	h := sha256.Sum256([]byte(tok))
	return h[:]
}

// openSession stores a new session of h with a fresh token, signed in at
// signedIn (now when zero), and ends the account's least recently used
// sessions beyond MaxUserSessions.
func (s *Service) openSession(ctx context.Context, tx payd.Tx, h *holder, state payd.SessionState, addr, userAgent string, signedIn time.Time) (string, *payd.Session, error) {
	now := s.sessionNow()
	if signedIn.IsZero() {
		signedIn = now
	}
	token, hash := newToken()
	ses := &payd.Session{ID: h.kind.sessionID(h), Kind: h.kind.name(), UserID: h.id, State: state,
		CreatedAt: signedIn, LastSeenAt: now, Addr: addr, UserAgent: truncate(userAgent, 256)}
	if h.user != nil {
		ses.MerchantID = h.user.MerchantID
	}
	if err := tx.SessionInsert(ctx, ses, hash); err != nil {
		return "", nil, err
	}
	if err := s.boundSessions(ctx, tx, ses); err != nil {
		return "", nil, err
	}
	return token, ses, nil
}

// replaceSession ends old and opens a session of the same account,
// sign-in time and address in state, under a new id and token: a
// session's token changes whenever what it may do grows.
func (s *Service) replaceSession(ctx context.Context, tx payd.Tx, old *payd.Session, h *holder, state payd.SessionState) (string, *payd.Session, error) {
	if err := tx.SessionDelete(ctx, old.Kind, old.ID); err != nil {
		return "", nil, err
	}
	// The absolute timeout still counts from the sign-in.
	return s.openSession(ctx, tx, h, state, old.Addr, old.UserAgent, old.CreatedAt)
}

// boundSessions ends the user's sessions beyond MaxUserSessions, least
// recently seen first, never the one just opened. It runs in the
// transaction that opened ses. On PostgreSQL two sign-ins of one user at
// the same moment may each keep the other's new session, leaving one more
// than the bound until the next sign-in trims it again; SQLite's single
// writer never does.
//
// Signed-in sessions and those still waiting for a second factor are
// bounded apart (MaxWaitingSessions): a waiting session never ends a
// signed-in one.
func (s *Service) boundSessions(ctx context.Context, tx payd.Tx, ses *payd.Session) error {
	p := &payd.SessionDeleteOldestParams{Kind: ses.Kind, UserID: ses.UserID, KeepID: ses.ID, Keep: MaxUserSessions, Active: ses.State == payd.SessionActive}
	if !p.Active {
		p.Keep = MaxWaitingSessions
	}
	_, err := tx.SessionDeleteOldest(ctx, p)
	return err
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
func (p SessionPolicy) live(ses *payd.Session, now time.Time) bool {
	return now.Before(ses.LastSeenAt.Add(p.Idle)) && now.Before(ses.CreatedAt.Add(p.Absolute))
}

// Session returns the session of a token and its user, in any state (the
// page lets only an active one past sign-in). An unknown token, a session
// past its idle or absolute timeout and a disabled user's session are
// ErrNoSession. LastSeenAt is written at most once a minute.
func (s *Service) Session(ctx context.Context, token string) (*payd.Session, *payd.User, error) {
	ses, h, err := s.session(ctx, s.users, token)
	if err != nil {
		return nil, nil, err
	}
	return ses, h.user, nil
}

// session is Session for a token of kind k.
func (s *Service) session(ctx context.Context, k kind, token string) (*payd.Session, *holder, error) {
	ses, h, err := s.sessionOf(ctx, k, token)
	if err != nil {
		return nil, nil, err
	}
	if now := s.sessionNow(); now.Sub(ses.LastSeenAt) >= sessionTouchEvery {
		err := s.store.Tx(ctx, func(tx payd.Tx) error { return tx.SessionTouch(ctx, ses.Kind, ses.ID, now) })
		if errors.Is(err, payd.ErrNoRows) {
			return nil, nil, ErrNoSession // signed out meanwhile
		}
		if err != nil {
			return nil, nil, withOp("touch session", err)
		}
		ses.LastSeenAt = now
	}
	return ses, h, nil
}

// sessionOf reads a live session of kind k and its enabled account.
func (s *Service) sessionOf(ctx context.Context, k kind, token string) (ses *payd.Session, h *holder, err error) {
	err = s.store.View(ctx, func(tx payd.Tx) error {
		if ses, err = tx.SessionGetByToken(ctx, k.name(), hashToken(token)); err != nil {
			return err
		}
		h, err = k.get(ctx, tx, ses.UserID, false)
		return err
	})
	if errors.Is(err, payd.ErrNoRows) {
		return nil, nil, ErrNoSession
	}
	if err != nil {
		return nil, nil, withOp("read session", err)
	}
	if !s.sessions.live(ses, s.sessionNow()) || h.disabled {
		return nil, nil, ErrNoSession
	}
	return ses, h, nil
}

// SignOut ends the session of a token, recording it in the audit log
// with addr; an unknown token is no error.
func (s *Service) SignOut(ctx context.Context, token, addr string) error {
	return s.signOut(ctx, s.users, token, addr)
}

// signOut is SignOut for a token of kind k.
func (s *Service) signOut(ctx context.Context, k kind, token, addr string) error {
	err := s.store.Tx(ctx, func(tx payd.Tx) error {
		ses, err := tx.SessionGetByToken(ctx, k.name(), hashToken(token))
		if errors.Is(err, payd.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := tx.SessionDelete(ctx, ses.Kind, ses.ID); err != nil {
			return err
		}
		h, err := k.get(ctx, tx, ses.UserID, false)
		if err != nil {
			return err
		}
		return k.record(ctx, tx, h, addr, evSignOut, ses.ID)
	})
	return withOp("sign out", err)
}

// SignOutEverywhere ends every session of a user. The actor is the user
// or an admin of its merchant.
func (s *Service) SignOutEverywhere(ctx context.Context, actor *payd.Actor, userID string) error {
	err := s.store.Tx(ctx, func(tx payd.Tx) error {
		u, err := tx.UserGet(ctx, userID)
		if err != nil {
			return notFoundAs(err, "user")
		}
		if err := payd.AllowActor(ctx, tx, actor, u.MerchantID, u.ID, payd.AuditSignOutEverywhere.Permission()); err != nil {
			return err
		}
		if _, err := tx.SessionDeleteByUser(ctx, payd.AccountUser, u.ID); err != nil {
			return err
		}
		return s.audit(ctx, tx, actor, u.MerchantID, payd.AuditSignOutEverywhere, u.ID)
	})
	return withOp("sign out everywhere", err)
}

// PurgeSessions deletes the sessions past their timeouts and the setup
// tokens past their expiry; a periodic job runs it.
func (s *Service) PurgeSessions(ctx context.Context) (n int64, err error) {
	now := s.sessionNow()
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		if n, err = tx.SessionDeleteExpired(ctx, now.Add(-s.sessions.Idle), now.Add(-s.sessions.Absolute)); err != nil {
			return err
		}
		m, err := tx.UserSetupTokensExpire(ctx, now)
		n += m
		return err
	})
	return n, withOp("purge sessions", err)
}

// truncate cuts s to at most n characters.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}
