package account_test

import (
	"errors"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestSessionsPerUserBounded: a user holds at most MaxUserSessions
// sessions; each sign-in past them ends the least recently used, and
// another user's sessions are not touched.
func TestSessionsPerUserBounded(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupUsers(t, be)
		b.user(t, "a@example.test", payd.RoleAdmin)
		b.user(t, "b@example.test", payd.RoleViewer)
		otherTok, _ := b.signIn(t, "b@example.test")
		const extra = 5
		var toks []string
		for range account.MaxUserSessions + extra {
			tok, _ := b.signIn(t, "a@example.test")
			toks = append(toks, tok)
		}
		live := func(tok string) bool {
			_, _, err := b.acc.Session(b.ctx, tok)
			if err != nil && !errors.Is(err, account.ErrNoSession) {
				t.Fatal(err)
			}
			return err == nil
		}
		for i, tok := range toks {
			if want := i >= extra; live(tok) != want {
				t.Errorf("sign-in %d of %d: live %v, want %v", i+1, len(toks), !want, want)
			}
		}
		if !live(otherTok) {
			t.Error("another user's session ended")
		}

		// The oldest live session, used again, outlives later ones not
		// used since: the next sign-in ends the least recently used.
		b.clock.Advance(2 * time.Minute)
		if !live(toks[extra]) {
			t.Fatal("the oldest live session ended")
		}
		b.signIn(t, "a@example.test")
		if !live(toks[extra]) || live(toks[extra+1]) {
			t.Errorf("after one more sign-in: used session live %v, next oldest live %v; want true, false",
				live(toks[extra]), live(toks[extra+1]))
		}
	})
}

// TestWaitingSessionsEndNoSignedInOne: someone with the password but not
// the phone opens sessions awaiting the code; they are bounded among
// themselves and never end the user's signed-in sessions.
func TestWaitingSessionsEndNoSignedInOne(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupGuarded(t, be)
		u := b.user(t, "phone@example.test", payd.RoleAdmin)
		secret := b.enableTOTP(t, u)
		pending, _ := b.signIn(t, u.Email)
		// The next step's code: enrolment used the current one.
		signedIn, _, err := b.acc.SecondFactor(b.ctx, pending, totpCode(t, secret, b.clock.Now().Add(30*time.Second)), "192.0.2.1")
		if err != nil {
			t.Fatal(err)
		}
		var waiting []string
		for range account.MaxUserSessions + 5 {
			tok, ses := b.signIn(t, u.Email)
			if ses.State != payd.SessionSecondFactor {
				t.Fatalf("state %q, want second_factor", ses.State)
			}
			waiting = append(waiting, tok)
		}
		if _, _, err := b.acc.Session(b.ctx, signedIn); err != nil {
			t.Fatalf("the signed-in session after %d waiting ones: %v", len(waiting), err)
		}
		live := 0
		for _, tok := range waiting {
			if _, _, err := b.acc.Session(b.ctx, tok); err == nil {
				live++
			}
		}
		if live != account.MaxWaitingSessions {
			t.Fatalf("%d waiting sessions live, want %d", live, account.MaxWaitingSessions)
		}
	})
}
