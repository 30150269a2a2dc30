package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paydhq/payd"
)

// addUser inserts a user of merchantID with role, created at created.
func addUser(t *testing.T, s payd.Store, merchantID, email string, role payd.Role, created time.Time) *payd.User {
	t.Helper()
	u := &payd.User{ID: newID(payd.PrefixUser, created), MerchantID: merchantID, Email: email, Role: role, CreatedAt: created}
	mustTx(t, s, func(tx payd.Tx) error { return tx.UserInsert(t.Context(), u) })
	return u
}

func testUser(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("InsertGetList", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m, other := addMerchant(t, s, now), addMerchant(t, s, now)
		b := addUser(t, s, m.ID, "b@example.test", payd.RoleViewer, now)
		a := addUser(t, s, m.ID, "a@example.test", payd.RoleAdmin, now.Add(-time.Hour))
		o := addUser(t, s, other.ID, "o@example.test", payd.RoleAdmin, now)

		wantRead(t, s, "UserGet", b, func(tx payd.Tx) (*payd.User, error) { return tx.UserGet(ctx, b.ID) })
		wantRead(t, s, "UserGetForUpdate", a, func(tx payd.Tx) (*payd.User, error) { return tx.UserGetForUpdate(ctx, a.ID) })
		wantRead(t, s, "UserGetByEmail", o, func(tx payd.Tx) (*payd.User, error) { return tx.UserGetByEmail(ctx, "o@example.test") })
		wantRead(t, s, "UserListByMerchant", []*payd.User{a, b}, func(tx payd.Tx) ([]*payd.User, error) { return tx.UserListByMerchant(ctx, m.ID) })
		wantRead(t, s, "UserListByMerchant of a merchant without users", []*payd.User{},
			func(tx payd.Tx) ([]*payd.User, error) {
				return tx.UserListByMerchant(ctx, newID(payd.PrefixMerchant, now))
			})

		err := s.View(ctx, func(tx payd.Tx) error { _, err := tx.UserGet(ctx, newID(payd.PrefixUser, now)); return err })
		wantErr(t, "UserGet of a missing id", err, payd.ErrNoRows)
		err = s.View(ctx, func(tx payd.Tx) error { _, err := tx.UserGetByEmail(ctx, "nobody@example.test"); return err })
		wantErr(t, "UserGetByEmail of an unknown email", err, payd.ErrNoRows)

		// An email is one account across merchants; the refusal leaves the
		// transaction usable.
		dup := &payd.User{ID: newID(payd.PrefixUser, now), MerchantID: other.ID, Email: b.Email, Role: payd.RoleViewer, CreatedAt: now}
		err = s.Tx(ctx, func(tx payd.Tx) error {
			wantErr(t, "UserInsert of a taken email", tx.UserInsert(ctx, dup), payd.ErrConflict)
			_, err := tx.UserGet(ctx, b.ID)
			return err
		})
		if err != nil {
			t.Errorf("transaction after a refused UserInsert: %v", err)
		}
	})

	t.Run("UpdateCountAdmins", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m, other := addMerchant(t, s, now), addMerchant(t, s, now)
		a1 := addUser(t, s, m.ID, "a1@example.test", payd.RoleAdmin, now)
		a2 := addUser(t, s, m.ID, "a2@example.test", payd.RoleAdmin, now)
		addUser(t, s, m.ID, "v@example.test", payd.RoleViewer, now)
		addUser(t, s, other.ID, "o@example.test", payd.RoleAdmin, now)
		count := func() (n int) {
			mustView(t, s, func(tx payd.Tx) (err error) { n, err = tx.UserCountAdmins(ctx, m.ID); return err })
			return n
		}
		if n := count(); n != 2 {
			t.Errorf("UserCountAdmins = %d, want 2", n)
		}
		a1.Role = payd.RoleSupport
		a2.DisabledAt = ptr(now.Add(time.Minute))
		mustTx(t, s, func(tx payd.Tx) error {
			if err := tx.UserUpdate(ctx, a1); err != nil {
				return err
			}
			return tx.UserUpdate(ctx, a2)
		})
		if n := count(); n != 0 {
			t.Errorf("UserCountAdmins after a demotion and a disabling = %d, want 0", n)
		}
		wantRead(t, s, "user after UserUpdate", a2, func(tx payd.Tx) (*payd.User, error) { return tx.UserGet(ctx, a2.ID) })
		err := s.Tx(ctx, func(tx payd.Tx) error {
			return tx.UserUpdate(ctx, &payd.User{ID: newID(payd.PrefixUser, now), Role: payd.RoleAdmin})
		})
		wantErr(t, "UserUpdate of a missing user", err, payd.ErrNoRows)
	})

	t.Run("Credentials", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m := addMerchant(t, s, now)
		u := addUser(t, s, m.ID, "u@example.test", payd.RoleAdmin, now)
		bystander := addUser(t, s, m.ID, "b@example.test", payd.RoleAdmin, now)

		wantRead(t, s, "credentials of a new user", &payd.UserCredentials{UserID: u.ID},
			func(tx payd.Tx) (*payd.UserCredentials, error) { return tx.UserCredentialsGet(ctx, u.ID) })

		// The hash holds bytes that are not valid UTF-8.
		hash := []byte{0x00, 0xff, 0xfe, 'h'}
		c := &payd.UserCredentials{UserID: u.ID, PasswordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
			TOTPSecret: "JBSWY3DPEHPK3PXP", TOTPPending: "KRSXG5DSNFXGOIDB", TOTPLastStep: 58000000,
			SetupHash: hash, SetupExpiresAt: ptr(now.Add(time.Hour))}
		mustTx(t, s, func(tx payd.Tx) error { return tx.UserCredentialsUpdate(ctx, c) })
		wantRead(t, s, "UserCredentialsGet", c, func(tx payd.Tx) (*payd.UserCredentials, error) { return tx.UserCredentialsGet(ctx, u.ID) })
		u.HasPassword, u.TOTPEnabled = true, true
		wantRead(t, s, "user with credentials", u, func(tx payd.Tx) (*payd.User, error) { return tx.UserGet(ctx, u.ID) })
		wantRead(t, s, "UserGetBySetupToken", u, func(tx payd.Tx) (*payd.User, error) { return tx.UserGetBySetupToken(ctx, hash) })
		err := s.View(ctx, func(tx payd.Tx) error { _, err := tx.UserGetBySetupToken(ctx, []byte("other")); return err })
		wantErr(t, "UserGetBySetupToken of an unknown hash", err, payd.ErrNoRows)
		wantRead(t, s, "bystander's credentials", &payd.UserCredentials{UserID: bystander.ID},
			func(tx payd.Tx) (*payd.UserCredentials, error) { return tx.UserCredentialsGet(ctx, bystander.ID) })

		// Tokens expire at their time, not before; other users' stay.
		other := &payd.UserCredentials{UserID: bystander.ID, SetupHash: []byte("b"), SetupExpiresAt: ptr(now.Add(2 * time.Hour))}
		mustTx(t, s, func(tx payd.Tx) error { return tx.UserCredentialsUpdate(ctx, other) })
		var n int64
		mustTx(t, s, func(tx payd.Tx) (err error) {
			n, err = tx.UserSetupTokensExpire(ctx, now.Add(time.Hour-time.Microsecond))
			return err
		})
		if n != 0 {
			t.Errorf("UserSetupTokensExpire before the expiry removed %d, want 0", n)
		}
		mustTx(t, s, func(tx payd.Tx) (err error) { n, err = tx.UserSetupTokensExpire(ctx, now.Add(time.Hour)); return err })
		if n != 1 {
			t.Errorf("UserSetupTokensExpire at the expiry removed %d, want 1", n)
		}
		c.SetupHash, c.SetupExpiresAt = nil, nil
		wantRead(t, s, "credentials after their token expired", c, func(tx payd.Tx) (*payd.UserCredentials, error) { return tx.UserCredentialsGet(ctx, u.ID) })
		wantRead(t, s, "bystander's credentials after the expiry", other,
			func(tx payd.Tx) (*payd.UserCredentials, error) { return tx.UserCredentialsGet(ctx, bystander.ID) })

		err = s.Tx(ctx, func(tx payd.Tx) error {
			return tx.UserCredentialsUpdate(ctx, &payd.UserCredentials{UserID: newID(payd.PrefixUser, now)})
		})
		wantErr(t, "UserCredentialsUpdate of a missing user", err, payd.ErrNoRows)
		err = s.View(ctx, func(tx payd.Tx) error { _, err := tx.UserCredentialsGet(ctx, newID(payd.PrefixUser, now)); return err })
		wantErr(t, "UserCredentialsGet of a missing user", err, payd.ErrNoRows)
	})
}

func testSession(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("Lifecycle", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m := addMerchant(t, s, now)
		u := addUser(t, s, m.ID, "u@example.test", payd.RoleAdmin, now)
		v := addUser(t, s, m.ID, "v@example.test", payd.RoleViewer, now)
		newSession := func(u *payd.User, created, seen time.Time) *payd.Session {
			return &payd.Session{ID: newID(payd.PrefixSession, created), Kind: payd.AccountUser, UserID: u.ID, MerchantID: u.MerchantID,
				State: payd.SessionSecondFactor, CreatedAt: created, LastSeenAt: seen, Addr: "192.0.2.1", UserAgent: "Browser/1.0"}
		}
		s1 := newSession(u, now, now)
		s2 := newSession(u, now, now)
		s3 := newSession(v, now, now)
		insertSessions(t, s, s1, s2, s3)
		wantRead(t, s, "SessionGetByToken", s2, func(tx payd.Tx) (*payd.Session, error) {
			return tx.SessionGetByToken(ctx, payd.AccountUser, []byte(s2.ID))
		})
		err := s.View(ctx, func(tx payd.Tx) error {
			_, err := tx.SessionGetByToken(ctx, payd.AccountUser, []byte("unknown"))
			return err
		})
		wantErr(t, "SessionGetByToken of an unknown hash", err, payd.ErrNoRows)
		err = s.Tx(ctx, func(tx payd.Tx) error {
			return tx.SessionInsert(ctx, newSession(u, now, now), []byte(s1.ID))
		})
		wantErr(t, "SessionInsert of a taken token hash", err, payd.ErrConflict)

		later := now.Add(time.Minute)
		mustTx(t, s, func(tx payd.Tx) error { return tx.SessionTouch(ctx, payd.AccountUser, s1.ID, later) })
		s1.LastSeenAt = later
		wantRead(t, s, "session after SessionTouch", s1, func(tx payd.Tx) (*payd.Session, error) {
			return tx.SessionGetByToken(ctx, payd.AccountUser, []byte(s1.ID))
		})

		mustTx(t, s, func(tx payd.Tx) error { return tx.SessionDelete(ctx, payd.AccountUser, s2.ID) })
		mustTx(t, s, func(tx payd.Tx) error { return tx.SessionDelete(ctx, payd.AccountUser, s2.ID) }) // again: no error
		err = s.View(ctx, func(tx payd.Tx) error {
			_, err := tx.SessionGetByToken(ctx, payd.AccountUser, []byte(s2.ID))
			return err
		})
		wantErr(t, "SessionGetByToken after SessionDelete", err, payd.ErrNoRows)
		err = s.Tx(ctx, func(tx payd.Tx) error { return tx.SessionTouch(ctx, payd.AccountUser, s2.ID, later) })
		wantErr(t, "SessionTouch of an ended session", err, payd.ErrNoRows)

		var n int64
		mustTx(t, s, func(tx payd.Tx) (err error) { n, err = tx.SessionDeleteByUser(ctx, payd.AccountUser, u.ID); return err })
		if n != 1 {
			t.Errorf("SessionDeleteByUser removed %d, want 1", n)
		}
		wantRead(t, s, "another user's session after SessionDeleteByUser", s3,
			func(tx payd.Tx) (*payd.Session, error) {
				return tx.SessionGetByToken(ctx, payd.AccountUser, []byte(s3.ID))
			})
	})

	t.Run("Counts", func(t *testing.T) {
		t.Parallel()
		testSessionCounts(t, open(t))
	})

	t.Run("DeleteExpired", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m := addMerchant(t, s, now)
		u := addUser(t, s, m.ID, "u@example.test", payd.RoleAdmin, now)
		idleBefore, createdBefore := now.Add(-30*time.Minute), now.Add(-12*time.Hour)
		mk := func(created, seen time.Time) *payd.Session {
			return &payd.Session{ID: newID(payd.PrefixSession, created), Kind: payd.AccountUser, UserID: u.ID, MerchantID: m.ID, State: payd.SessionActive,
				CreatedAt: created, LastSeenAt: seen}
		}
		fresh := mk(now.Add(-time.Hour), now)
		edge := mk(createdBefore.Add(time.Microsecond), idleBefore.Add(time.Microsecond)) // just after both bounds: kept
		idle := mk(now.Add(-time.Hour), idleBefore)
		old := mk(createdBefore, now)
		all := []*payd.Session{fresh, edge, idle, old}
		insertSessions(t, s, all...)
		var n int64
		mustTx(t, s, func(tx payd.Tx) (err error) {
			n, err = tx.SessionDeleteExpired(ctx, idleBefore, createdBefore)
			return err
		})
		if n != 2 {
			t.Errorf("SessionDeleteExpired removed %d, want 2", n)
		}
		for _, ses := range all {
			err := s.View(ctx, func(tx payd.Tx) error {
				_, err := tx.SessionGetByToken(ctx, payd.AccountUser, []byte(ses.ID))
				return err
			})
			if gone := err != nil; gone != (ses == idle || ses == old) {
				t.Errorf("session created %v, seen %v: gone %v (%v)", ses.CreatedAt, ses.LastSeenAt, gone, err)
			}
		}
	})

	// SessionDeleteOldest keeps the named session, however long unseen,
	// and the others most recently seen (a tie: the later sign-in, then
	// the greater id); another user's sessions stay.
	t.Run("DeleteOldest", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m := addMerchant(t, s, now)
		u := addUser(t, s, m.ID, "u@example.test", payd.RoleAdmin, now)
		v := addUser(t, s, m.ID, "v@example.test", payd.RoleViewer, now)
		mk := func(u *payd.User, created, seen time.Time) *payd.Session {
			return &payd.Session{ID: newID(payd.PrefixSession, created), Kind: payd.AccountUser, UserID: u.ID, MerchantID: m.ID, State: payd.SessionActive,
				CreatedAt: created, LastSeenAt: seen}
		}
		named := mk(u, now.Add(-3*time.Hour), now.Add(-3*time.Hour)) // the least recently seen, kept by name
		recent := mk(u, now.Add(-2*time.Hour), now)                  // the most recently seen
		tiedLater := mk(u, now.Add(-time.Hour), now.Add(-time.Minute))
		tiedEarlier := mk(u, now.Add(-2*time.Hour), now.Add(-time.Minute)) // same last seen, earlier sign-in: ends
		stale := mk(u, now.Add(-time.Hour), now.Add(-20*time.Minute))
		others := mk(v, now.Add(-4*time.Hour), now.Add(-4*time.Hour))
		// A session awaiting its code is of the other kind: the bound of
		// the active ones leaves it alone, however old.
		waiting := mk(u, now.Add(-5*time.Hour), now.Add(-5*time.Hour))
		waiting.State = payd.SessionSecondFactor
		all := []*payd.Session{named, recent, tiedLater, tiedEarlier, stale, others, waiting}
		insertSessions(t, s, all...)
		var n int64
		mustTx(t, s, func(tx payd.Tx) (err error) {
			n, err = tx.SessionDeleteOldest(ctx, &payd.SessionDeleteOldestParams{Kind: payd.AccountUser, UserID: u.ID, KeepID: named.ID, Keep: 3, Active: true})
			return err
		})
		if n != 2 {
			t.Errorf("SessionDeleteOldest removed %d, want 2", n)
		}
		for _, ses := range all {
			err := s.View(ctx, func(tx payd.Tx) error {
				_, err := tx.SessionGetByToken(ctx, payd.AccountUser, []byte(ses.ID))
				return err
			})
			if gone := err != nil; gone != (ses == tiedEarlier || ses == stale) {
				t.Errorf("session created %v, seen %v: gone %v (%v)", ses.CreatedAt, ses.LastSeenAt, gone, err)
			}
		}
		// Keep 1: the named session alone stays.
		mustTx(t, s, func(tx payd.Tx) (err error) {
			n, err = tx.SessionDeleteOldest(ctx, &payd.SessionDeleteOldestParams{Kind: payd.AccountUser, UserID: u.ID, KeepID: named.ID, Keep: 1, Active: true})
			return err
		})
		if n != 2 {
			t.Errorf("SessionDeleteOldest keeping 1 removed %d, want 2", n)
		}
		wantRead(t, s, "the named session", named, func(tx payd.Tx) (*payd.Session, error) {
			return tx.SessionGetByToken(ctx, payd.AccountUser, []byte(named.ID))
		})
		wantRead(t, s, "another user's session", others, func(tx payd.Tx) (*payd.Session, error) {
			return tx.SessionGetByToken(ctx, payd.AccountUser, []byte(others.ID))
		})
		wantRead(t, s, "the waiting session", waiting, func(tx payd.Tx) (*payd.Session, error) {
			return tx.SessionGetByToken(ctx, payd.AccountUser, []byte(waiting.ID))
		})
		// Bounding the waiting ones to 1 ends none of the active.
		mustTx(t, s, func(tx payd.Tx) (err error) {
			n, err = tx.SessionDeleteOldest(ctx, &payd.SessionDeleteOldestParams{Kind: payd.AccountUser, UserID: u.ID, KeepID: waiting.ID, Keep: 1})
			return err
		})
		if n != 0 {
			t.Errorf("SessionDeleteOldest of the waiting ones removed %d, want 0", n)
		}
		wantRead(t, s, "the named session after bounding the waiting ones", named,
			func(tx payd.Tx) (*payd.Session, error) {
				return tx.SessionGetByToken(ctx, payd.AccountUser, []byte(named.ID))
			})
	})
}

// insertSessions stores sessions, each under its id as the token's hash.
func insertSessions(t *testing.T, s payd.Store, sessions ...*payd.Session) {
	t.Helper()
	mustTx(t, s, func(tx payd.Tx) error {
		for _, ses := range sessions {
			if err := tx.SessionInsert(t.Context(), ses, []byte(ses.ID)); err != nil {
				return err
			}
		}
		return nil
	})
}

func testAudit(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("InsertList", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m, other := addMerchant(t, s, now), addMerchant(t, s, now)
		var entries []*payd.AuditEntry
		for i, at := range tiedTimes(now, 7) {
			e := &payd.AuditEntry{ID: newID(payd.PrefixAudit, at), MerchantID: m.ID, Action: "create refund", At: at,
				UserID: newID(payd.PrefixUser, at), UserEmail: "u@example.test", ObjectID: "rf_1", Addr: "192.0.2.1"}
			if i%2 == 0 {
				e.ShopID, e.Mode = newID(payd.PrefixShop, at), payd.ModeTest
			}
			entries = append(entries, e)
		}
		foreign := &payd.AuditEntry{ID: newID(payd.PrefixAudit, now), MerchantID: other.ID, Action: "sign in", At: now}
		mustTx(t, s, func(tx payd.Tx) error {
			for _, e := range append(entries, foreign) {
				if err := tx.AuditInsert(ctx, e); err != nil {
					return err
				}
			}
			return nil
		})
		key := func(e *payd.AuditEntry) payd.Cursor { return payd.Cursor{CreatedAt: e.At, ID: e.ID} }
		want := newestFirst(entries, key)
		for _, limit := range []int{0, 1, 3, 7} {
			checkPaging(t, limit, want, key, func(p payd.ListParams) (page payd.Page[*payd.AuditEntry], err error) {
				mustView(t, s, func(tx payd.Tx) error {
					page, err = tx.AuditList(ctx, &payd.AuditListParams{ListParams: p, MerchantID: m.ID})
					return err
				})
				return page, err
			})
		}
		err := s.Tx(ctx, func(tx payd.Tx) error { return tx.AuditInsert(ctx, foreign) })
		wantErr(t, "AuditInsert of a taken id", err, payd.ErrConflict)
	})
	// An entry's detail reads back as written, and an entry without one
	// reads back without one.
	t.Run("Detail", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m := addMerchant(t, s, now)
		moved := &payd.AuditEntry{ID: newID(payd.PrefixAudit, now), MerchantID: m.ID, ShopID: newID(payd.PrefixShop, now),
			Mode: payd.ModeTest, UserID: newID(payd.PrefixUser, now), UserEmail: "dev@example.test",
			Action: payd.AuditAdvanceTestClock, ObjectID: payd.AuditObjectTestClock,
			Detail: "+2h0m0s, to 2026-03-01T12:00:00Z «сдвиг»", Addr: "192.0.2.7", At: now}
		plain := &payd.AuditEntry{ID: newID(payd.PrefixAudit, now.Add(time.Second)), MerchantID: m.ID, Action: "sign in",
			At: now.Add(time.Second)}
		mustTx(t, s, func(tx payd.Tx) error {
			if err := tx.AuditInsert(ctx, moved); err != nil {
				return err
			}
			return tx.AuditInsert(ctx, plain)
		})
		var page payd.Page[*payd.AuditEntry]
		mustView(t, s, func(tx payd.Tx) (err error) {
			page, err = tx.AuditList(ctx, &payd.AuditListParams{MerchantID: m.ID})
			return err
		})
		if d := cmp.Diff([]*payd.AuditEntry{plain, moved}, page.Items); d != "" {
			t.Errorf("entries mismatch (-want +got):\n%s", d)
		}
	})
}
