package payd

import "context"

// MaxUserSessions bounds the sessions one user holds at once: opening one
// more ends the least recently used. Without a bound every sign-in adds a
// row that lives until its timeouts, so a script that signs in with a
// user's password (or a user who signs in from many browsers) grows the
// table without end; ten are more browsers than a person uses.
const MaxUserSessions = 10

// SessionDeleteOldestParams names the sessions SessionDeleteOldest keeps:
// of the user's, the one named KeepID and the Keep-1 others most recently
// seen.
type SessionDeleteOldestParams struct {
	UserID string
	KeepID string
	Keep   int
}

// boundSessions ends the user's sessions beyond MaxUserSessions, least
// recently seen first, never the one just opened. It runs in the
// transaction that opened ses. On PostgreSQL two sign-ins of one user at
// the same moment may each keep the other's new session, leaving one more
// than the bound until the next sign-in trims it again; SQLite's single
// writer never does.
func (s *Service) boundSessions(ctx context.Context, tx Tx, ses *Session) error {
	_, err := tx.SessionDeleteOldest(ctx, &SessionDeleteOldestParams{UserID: ses.UserID, KeepID: ses.ID, Keep: MaxUserSessions})
	return err
}
