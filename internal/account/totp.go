package account

import (
	"cmp"
	"context"
	"crypto/subtle"
	"errors"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/paydhq/payd"
)

// The second factor is TOTP (RFC 6238): 6 digits, SHA-1, a 30-second
// step, what every authenticator app reads from an otpauth:// address. A
// code of the step before or after is accepted for clocks that drift, and
// a step whose code was accepted once is never accepted again.
const (
	totpPeriod = 30
	totpSkew   = 1
	totpIssuer = "payd"
)

var totpOpts = totp.ValidateOpts{Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// totpStep checks code against secret at now and returns the step it
// belongs to, or 0 when it matches none within the skew or only steps at
// or before lastStep.
func totpStep(secret, code string, now time.Time, lastStep int64) int64 {
	if len(code) != 6 {
		return 0
	}
	step := now.Unix() / totpPeriod
	for d := int64(-totpSkew); d <= totpSkew; d++ {
		at := time.Unix((step+d)*totpPeriod, 0)
		want, err := totp.GenerateCodeCustom(secret, at, totpOpts)
		if err != nil {
			return 0
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && step+d > lastStep {
			return step + d
		}
	}
	return 0
}

// BeginTOTP starts a user's enrolment in the second factor: it keeps a new
// pending secret and returns it with its otpauth:// address (for a QR
// code). Only the user itself enrols. The secret is never returned again.
func (s *Service) BeginTOTP(ctx context.Context, actor *payd.Actor, userID string) (secret, otpauthURL string, err error) {
	if actor != nil && actor.UserID != userID {
		return "", "", payd.ErrForbidden
	}
	return s.beginTOTP(ctx, s.users, userID)
}

// beginTOTP is BeginTOTP for the account id of kind k.
func (s *Service) beginTOTP(ctx context.Context, k kind, id string) (secret, otpauthURL string, err error) {
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		h, err := k.get(ctx, tx, id, true)
		if err != nil {
			return notFoundAs(err, "user")
		}
		if h.totp {
			return payd.Errorf(payd.CodeInvalidState, "the second factor is already on; turn it off first")
		}
		key, err := newTOTPKey(h.email)
		if err != nil {
			return err
		}
		c, err := k.credentials(ctx, tx, h.id)
		if err != nil {
			return err
		}
		c.TOTPPending = key.Secret()
		secret, otpauthURL = key.Secret(), key.URL()
		return k.putCredentials(ctx, tx, c)
	})
	return secret, otpauthURL, withOp("begin second factor", err)
}

// ConfirmTOTP turns the second factor on with a code of the pending
// secret, for the user of the session token. The session is replaced by
// an active one with a new token (an enroll session thus becomes usable).
func (s *Service) ConfirmTOTP(ctx context.Context, actor *payd.Actor, token, code string) (newToken string, ses *payd.Session, err error) {
	if actor == nil {
		return s.confirmTOTP(ctx, s.users, token, code, "", "")
	}
	return s.confirmTOTP(ctx, s.users, token, code, actor.Addr, actor.UserID)
}

// confirmTOTP is ConfirmTOTP for a session of kind k, the enrolment
// recorded as from addr ("": the session's address); a session of another
// account than self ("": any) is refused.
func (s *Service) confirmTOTP(ctx context.Context, k kind, token, code, addr, self string) (newToken string, ses *payd.Session, err error) {
	old, h, err := s.sessionOf(ctx, k, token)
	if err != nil {
		return "", nil, err
	}
	if old.State == payd.SessionSecondFactor || (self != "" && self != h.id) {
		return "", nil, payd.ErrForbidden
	}
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		if h, err = k.get(ctx, tx, h.id, true); err != nil {
			return err
		}
		if err := sessionStands(ctx, tx, k, token); err != nil {
			return err
		}
		c, err := k.credentials(ctx, tx, h.id)
		if err != nil {
			return err
		}
		if c.TOTPPending == "" {
			return payd.Errorf(payd.CodeInvalidState, "start the enrolment first")
		}
		step := totpStep(c.TOTPPending, code, s.sessionNow(), 0)
		if step == 0 {
			return ErrSecondFactorFailed
		}
		c.TOTPSecret, c.TOTPPending, c.TOTPLastStep = c.TOTPPending, "", step
		if err := k.putCredentials(ctx, tx, c); err != nil {
			return err
		}
		h.totp = true
		if h.user != nil {
			h.user.TOTPEnabled = true
		} else {
			h.staff.TOTPEnabled = true
		}
		if newToken, ses, err = s.replaceSession(ctx, tx, old, h, payd.SessionActive); err != nil {
			return err
		}
		return k.record(ctx, tx, h, cmp.Or(addr, old.Addr), evEnableTOTP, h.id)
	})
	if err != nil {
		return "", nil, withOp("confirm second factor", err)
	}
	return newToken, ses, nil
}

// DisableTOTP turns a user's second factor off. The actor is the user or
// an admin of its merchant (a lost phone).
func (s *Service) DisableTOTP(ctx context.Context, actor *payd.Actor, userID string) (u *payd.User, err error) {
	err = s.store.Tx(ctx, func(tx payd.Tx) error {
		if u, err = tx.UserGetForUpdate(ctx, userID); err != nil {
			return notFoundAs(err, "user")
		}
		if err := payd.AllowActor(ctx, tx, actor, u.MerchantID, u.ID, payd.AuditDisableTOTP.Permission()); err != nil {
			return err
		}
		c, err := tx.UserCredentialsGet(ctx, u.ID)
		if err != nil {
			return err
		}
		c.TOTPSecret, c.TOTPPending = "", ""
		if err := tx.UserCredentialsUpdate(ctx, c); err != nil {
			return err
		}
		u.TOTPEnabled = false
		return s.audit(ctx, tx, actor, u.MerchantID, payd.AuditDisableTOTP, u.ID)
	})
	return u, withOp("disable second factor", err)
}

// sessionStands checks, under the user's lock, that the session of token
// was not replaced or ended meanwhile, so one session awaiting a code is
// replaced once even when two codes arrive at the same moment.
func sessionStands(ctx context.Context, tx payd.Tx, k kind, token string) error {
	_, err := tx.SessionGetByToken(ctx, k.name(), hashToken(token))
	if errors.Is(err, payd.ErrNoRows) {
		return ErrNoSession
	}
	return err
}

// newTOTPKey makes a second factor's secret for the account of email, as
// every authenticator app reads it: six digits, SHA-1, totpPeriod.
func newTOTPKey(email string) (*otp.Key, error) {
	return totp.Generate(totp.GenerateOpts{Issuer: totpIssuer, AccountName: email, Period: totpPeriod,
		Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
}
