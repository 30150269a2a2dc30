package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

func testSignInGuard(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("LockPut", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		var fresh *payd.SignInGuard
		mustTx(t, s, func(tx payd.Tx) (err error) { fresh, err = tx.SignInGuardLock(ctx, "k1"); return err })
		if *fresh != (payd.SignInGuard{Key: "k1"}) {
			t.Fatalf("a new guard = %+v, want an empty one", fresh)
		}
		g := &payd.SignInGuard{Key: "k1", Failures: 3, WindowStart: now.Add(-time.Minute), LockedUntil: now.Add(15 * time.Minute),
			Lockouts: 2, SinceSignIn: 13, LastFailureAt: now, LastFailureAddr: "2001:db8::1", UpdatedAt: now}
		mustTx(t, s, func(tx payd.Tx) error { return tx.SignInGuardPut(ctx, g) })
		wantRead(t, s, "the guard after SignInGuardPut", g, func(tx payd.Tx) (*payd.SignInGuard, error) { return tx.SignInGuardLock(ctx, "k1") })
		// Zero times stay zero.
		cleared := &payd.SignInGuard{Key: "k1", UpdatedAt: now}
		mustTx(t, s, func(tx payd.Tx) error { return tx.SignInGuardPut(ctx, cleared) })
		wantRead(t, s, "a cleared guard", cleared, func(tx payd.Tx) (*payd.SignInGuard, error) { return tx.SignInGuardLock(ctx, "k1") })
	})

	// Transactions counting on one guard at once, the first of them
	// creating it, each see the others' counts: none is lost.
	t.Run("LockSerialises", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				err := s.Tx(ctx, func(tx payd.Tx) error {
					g, err := tx.SignInGuardLock(ctx, "busy")
					if err != nil {
						return err
					}
					g.Failures++
					return tx.SignInGuardPut(ctx, g)
				})
				if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		var g *payd.SignInGuard
		mustTx(t, s, func(tx payd.Tx) (err error) { g, err = tx.SignInGuardLock(ctx, "busy"); return err })
		if g.Failures != 20 {
			t.Fatalf("20 counts at once left %d", g.Failures)
		}
	})

	t.Run("DeleteBefore", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		for i, age := range []time.Duration{2 * time.Hour, time.Hour, 0} {
			mustTx(t, s, func(tx payd.Tx) error {
				g, err := tx.SignInGuardLock(ctx, string(rune('a'+i)))
				if err != nil {
					return err
				}
				g.UpdatedAt = now.Add(-age)
				return tx.SignInGuardPut(ctx, g)
			})
		}
		for _, want := range []int64{1, 1, 0} {
			var n int64
			mustTx(t, s, func(tx payd.Tx) (err error) {
				n, err = tx.SignInGuardDeleteBefore(ctx, now.Add(-30*time.Minute), 1)
				return err
			})
			if n != want {
				t.Fatalf("SignInGuardDeleteBefore deleted %d, want %d", n, want)
			}
		}
		var kept *payd.SignInGuard
		mustTx(t, s, func(tx payd.Tx) (err error) { kept, err = tx.SignInGuardLock(ctx, "c"); return err })
		if !kept.UpdatedAt.Equal(now) {
			t.Fatalf("the recent guard was deleted: %+v", kept)
		}
	})
}

// testSessionCounts: a session keeps the failures told at its sign-in and
// counts its wrong codes.
func testSessionCounts(t *testing.T, s payd.Store) {
	ctx := t.Context()
	now := ts(time.Now())
	m := addMerchant(t, s, now)
	u := addUser(t, s, m.ID, "counted@example.test", payd.RoleAdmin, now)
	ses := &payd.Session{ID: newID(payd.PrefixSession, now), Kind: payd.AccountUser, UserID: u.ID, MerchantID: m.ID, State: payd.SessionSecondFactor,
		CreatedAt: now, LastSeenAt: now}
	mustTx(t, s, func(tx payd.Tx) error { return tx.SessionInsert(ctx, ses, []byte("counted")) })
	mustTx(t, s, func(tx payd.Tx) error { return tx.SessionNoteFailures(ctx, payd.AccountUser, ses.ID, 7) })
	for want := 1; want <= 3; want++ {
		var n int
		mustTx(t, s, func(tx payd.Tx) (err error) { n, err = tx.SessionCodeFailed(ctx, payd.AccountUser, ses.ID); return err })
		if n != want {
			t.Fatalf("SessionCodeFailed = %d, want %d", n, want)
		}
	}
	ses.FailedSignIns, ses.CodeFailures = 7, 3
	wantRead(t, s, "the session's counts", ses, func(tx payd.Tx) (*payd.Session, error) {
		return tx.SessionGetByToken(ctx, payd.AccountUser, []byte("counted"))
	})
	mustTx(t, s, func(tx payd.Tx) error { return tx.SessionDelete(ctx, payd.AccountUser, ses.ID) })
	err := s.Tx(ctx, func(tx payd.Tx) error { _, err := tx.SessionCodeFailed(ctx, payd.AccountUser, ses.ID); return err })
	wantErr(t, "SessionCodeFailed of an ended session", err, payd.ErrNoRows)
}
