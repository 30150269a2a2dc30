package account

import (
	"context"

	"github.com/paydhq/payd"
)

// The back office's sign-in: the core's path (signin.go, session.go,
// totp.go) for the staff kind. A staff member's second factor is
// mandatory: the right password without one opens a session that may only
// enrol it (payd.SessionEnroll), and with one a session that awaits its
// code. Sessions are the dashboard's (timeouts, cap, token replaced when
// what it may do grows), kept in a table of their own.

// StaffSignIn checks a staff member's email and password and opens a
// session, returning its token; every failure of the credentials is
// ErrSignInFailed, as for the dashboard.
func (s *Service) StaffSignIn(ctx context.Context, email, password, addr, userAgent string) (token string, ses *payd.Session, err error) {
	return s.signInAs(ctx, s.staff, email, password, addr, userAgent)
}

// StaffSecondFactor finishes a staff sign-in awaiting its code.
func (s *Service) StaffSecondFactor(ctx context.Context, token, code, addr string) (newToken string, ses *payd.Session, err error) {
	return s.secondFactor(ctx, s.staff, token, code, addr)
}

// StaffSession returns a staff session and its member, read now (the
// role a page checks is the current one). An unknown or expired token and
// a disabled member's session are ErrNoSession.
func (s *Service) StaffSession(ctx context.Context, token string) (*payd.Session, *payd.Staff, error) {
	ses, h, err := s.session(ctx, s.staff, token)
	if err != nil {
		return nil, nil, err
	}
	return ses, h.staff, nil
}

// StaffBeginTOTP starts the enrolment of the second factor of the member
// of a session (in state enroll, or active after a reset), returning the
// secret and its otpauth:// address, shown this once.
func (s *Service) StaffBeginTOTP(ctx context.Context, token string) (secret, otpauthURL string, err error) {
	ses, _, err := s.sessionOf(ctx, s.staff, token)
	if err != nil {
		return "", "", err
	}
	if ses.State == payd.SessionSecondFactor {
		return "", "", payd.ErrForbidden
	}
	return s.beginTOTP(ctx, s.staff, ses.UserID)
}

// StaffConfirmTOTP turns the member's second factor on with a code of the
// pending secret; the session is replaced by an active one.
func (s *Service) StaffConfirmTOTP(ctx context.Context, token, code, addr string) (newToken string, ses *payd.Session, err error) {
	return s.confirmTOTP(ctx, s.staff, token, code, addr, "")
}

// StaffSignOut ends a staff session; an unknown token is no error.
func (s *Service) StaffSignOut(ctx context.Context, token, addr string) error {
	return s.signOut(ctx, s.staff, token, addr)
}

// StaffSetPassword sets the password of the member a setup token belongs
// to and uses the token up; the member's sessions end.
func (s *Service) StaffSetPassword(ctx context.Context, token, password, addr string) (*payd.Staff, error) {
	h, err := s.setPassword(ctx, s.staff, token, password, addr)
	if err != nil {
		return nil, err
	}
	return h.staff, nil
}
