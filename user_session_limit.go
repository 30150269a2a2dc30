package payd

import "context"

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

// SessionDeleteOldestParams names the sessions SessionDeleteOldest keeps:
// of the user's active sessions (Active) or of its others, the one named
// KeepID and the Keep-1 others most recently seen. Sessions of the other
// kind are left alone.
type SessionDeleteOldestParams struct {
	UserID string
	KeepID string
	Keep   int
	Active bool
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
func (s *Service) boundSessions(ctx context.Context, tx Tx, ses *Session) error {
	p := &SessionDeleteOldestParams{UserID: ses.UserID, KeepID: ses.ID, Keep: MaxUserSessions, Active: ses.State == SessionActive}
	if !p.Active {
		p.Keep = MaxWaitingSessions
	}
	_, err := tx.SessionDeleteOldest(ctx, p)
	return err
}
