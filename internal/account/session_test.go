package account_test

import (
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/paydtest"
)

// On a test clock (`serve --test-clock`) sessions live on the wall clock:
// moving the sandboxes' time by 31 minutes or by days signs no one out,
// and a session opened after a move is stamped with the real time, so its
// timeouts still count real time. The timeouts themselves are tested on a
// stub clock (TestSessionLifetime).
func TestSessionsIgnoreTheTestClock(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		// The service runs on a test clock; the bundle's stub clock is
		// not used.
		clock := &payd.TestClock{}
		b := setupUsersWith(t, be, func(c *account.Config) { c.Clock = clock })
		ctx, svc, m := b.ctx, b.acc, b.m
		b.user(t, "a@example.test", payd.RoleAdmin)
		signIn := func() (string, *payd.Session) { t.Helper(); return b.signIn(t, "a@example.test") }

		tok, _ := signIn()
		clock.Advance(31 * time.Minute)
		if _, _, err := svc.Session(ctx, tok); err != nil {
			t.Fatalf("after a 31-minute move of the test clock: %v, want the session alive", err)
		}
		clock.Advance(13 * time.Hour) // past the absolute timeout too
		if _, _, err := svc.Session(ctx, tok); err != nil {
			t.Fatalf("after a 13-hour move of the test clock: %v, want the session alive", err)
		}
		if n, err := svc.PurgeSessions(ctx); err != nil || n != 0 {
			t.Fatalf("PurgeSessions after the moves: %d, %v; want no session ended", n, err)
		}

		// Opened after the moves: stamped with the real time, not the
		// clock's 13.5 hours ahead, which would keep it alive that much
		// longer than its timeouts.
		before := time.Now()
		late, ses := signIn()
		if ses.CreatedAt.Before(before.Add(-time.Second)) || ses.CreatedAt.After(time.Now().Add(time.Second)) ||
			!ses.LastSeenAt.Equal(ses.CreatedAt) {
			t.Fatalf("session opened at %v (last seen %v), want the wall clock's %v", ses.CreatedAt, ses.LastSeenAt, before)
		}
		if got, _, err := svc.Session(ctx, late); err != nil || !got.CreatedAt.Equal(ses.CreatedAt) {
			t.Fatalf("the fresh session reads %v, %v", got, err)
		}

		// A setup link lives its 72 real hours too: a move of four days
		// neither expires nor purges it.
		u, link, err := svc.CreateUser(ctx, nil, m.ID, "invited@example.test", payd.RoleViewer)
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(4 * 24 * time.Hour)
		if _, err := svc.PurgeSessions(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.SetPassword(ctx, link, "a long enough password", "192.0.2.1"); err != nil {
			t.Fatalf("%s's setup link after a four-day move of the test clock: %v", u.Email, err)
		}
	})
}
