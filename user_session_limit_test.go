package payd_test

import (
	"errors"
	"testing"
	"time"

	"github.com/paydhq/payd"
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
		for range payd.MaxUserSessions + extra {
			tok, _ := b.signIn(t, "a@example.test")
			toks = append(toks, tok)
		}
		live := func(tok string) bool {
			_, _, err := b.svc.Session(b.ctx, tok)
			if err != nil && !errors.Is(err, payd.ErrNoSession) {
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
