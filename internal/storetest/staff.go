package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

// addStaff inserts a staff member with role, created at created.
func addStaff(t *testing.T, s payd.Store, email string, role payd.StaffRole, created time.Time) *payd.Staff {
	t.Helper()
	st := &payd.Staff{ID: ids.New(payd.PrefixStaff, created), Email: email, Role: role, CreatedAt: created}
	mustTx(t, s, func(tx payd.Tx) error { return tx.StaffInsert(t.Context(), st) })
	return st
}

func testStaff(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("InsertGetList", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		b := addStaff(t, s, "b@operator.test", payd.StaffFinance, now)
		a := addStaff(t, s, "a@operator.test", payd.StaffAdmin, now.Add(-time.Hour))
		wantRead(t, s, "StaffGet", b, func(tx payd.Tx) (*payd.Staff, error) { return tx.StaffGet(ctx, b.ID) })
		wantRead(t, s, "StaffGetForUpdate", a, func(tx payd.Tx) (*payd.Staff, error) { return tx.StaffGetForUpdate(ctx, a.ID) })
		wantRead(t, s, "StaffGetByEmail", b, func(tx payd.Tx) (*payd.Staff, error) { return tx.StaffGetByEmail(ctx, b.Email) })
		wantRead(t, s, "StaffList", []*payd.Staff{a, b}, func(tx payd.Tx) ([]*payd.Staff, error) { return tx.StaffList(ctx) })
		err := s.View(ctx, func(tx payd.Tx) error { _, err := tx.StaffGet(ctx, ids.New(payd.PrefixStaff, now)); return err })
		wantErr(t, "StaffGet of a missing id", err, payd.ErrNoRows)
		err = s.View(ctx, func(tx payd.Tx) error { _, err := tx.StaffGetByEmail(ctx, "nobody@operator.test"); return err })
		wantErr(t, "StaffGetByEmail of an unknown email", err, payd.ErrNoRows)
		// A dashboard user's email is no staff member's.
		m := addMerchant(t, s, now)
		addUser(t, s, m.ID, "u@operator.test", payd.RoleAdmin, now)
		err = s.View(ctx, func(tx payd.Tx) error { _, err := tx.StaffGetByEmail(ctx, "u@operator.test"); return err })
		wantErr(t, "StaffGetByEmail of a dashboard user's email", err, payd.ErrNoRows)

		dup := &payd.Staff{ID: ids.New(payd.PrefixStaff, now), Email: b.Email, Role: payd.StaffRisk, CreatedAt: now}
		err = s.Tx(ctx, func(tx payd.Tx) error {
			wantErr(t, "StaffInsert of a taken email", tx.StaffInsert(ctx, dup), payd.ErrConflict)
			_, err := tx.StaffGet(ctx, b.ID)
			return err
		})
		if err != nil {
			t.Errorf("transaction after a refused StaffInsert: %v", err)
		}
	})

	t.Run("UpdateLockAdmins", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		a1 := addStaff(t, s, "a1@operator.test", payd.StaffAdmin, now)
		a2 := addStaff(t, s, "a2@operator.test", payd.StaffAdmin, now)
		addStaff(t, s, "f@operator.test", payd.StaffFinance, now)
		count := func() (n int) {
			mustTx(t, s, func(tx payd.Tx) (err error) { n, err = tx.StaffLockAdmins(ctx); return err })
			return n
		}
		if n := count(); n != 2 {
			t.Errorf("StaffLockAdmins = %d, want 2", n)
		}
		a1.Role = payd.StaffSupport
		a2.DisabledAt = ptr(now.Add(time.Minute))
		mustTx(t, s, func(tx payd.Tx) error {
			if err := tx.StaffUpdate(ctx, a1); err != nil {
				return err
			}
			return tx.StaffUpdate(ctx, a2)
		})
		if n := count(); n != 0 {
			t.Errorf("StaffLockAdmins after a role change and a disabling = %d, want 0", n)
		}
		wantRead(t, s, "StaffGet after StaffUpdate", a2, func(tx payd.Tx) (*payd.Staff, error) { return tx.StaffGet(ctx, a2.ID) })
		missing := &payd.Staff{ID: ids.New(payd.PrefixStaff, now), Role: payd.StaffAdmin}
		err := s.Tx(ctx, func(tx payd.Tx) error { return tx.StaffUpdate(ctx, missing) })
		wantErr(t, "StaffUpdate of a missing id", err, payd.ErrNoRows)
	})

	t.Run("LockAdminsLocks", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		addStaff(t, s, "a@operator.test", payd.StaffAdmin, ts(time.Now()))
		wantLocks(t, s, func(ctx context.Context, tx payd.Tx) error { _, err := tx.StaffLockAdmins(ctx); return err })
	})

	t.Run("Credentials", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		st := addStaff(t, s, "c@operator.test", payd.StaffRisk, now)
		setup := []byte("0123456789abcdef0123456789abcdef")
		c := &payd.UserCredentials{UserID: st.ID, PasswordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$a2V5",
			TOTPSecret: "JBSWY3DPEHPK3PXP", TOTPPending: "KRSXG5A", TOTPLastStep: 42, SetupHash: setup, SetupExpiresAt: ptr(now.Add(time.Hour))}
		mustTx(t, s, func(tx payd.Tx) error { return tx.StaffCredentialsUpdate(ctx, c) })
		wantRead(t, s, "StaffCredentialsGet", c, func(tx payd.Tx) (*payd.UserCredentials, error) { return tx.StaffCredentialsGet(ctx, st.ID) })
		st.HasPassword, st.TOTPEnabled = true, true
		wantRead(t, s, "StaffGetBySetupToken", st, func(tx payd.Tx) (*payd.Staff, error) { return tx.StaffGetBySetupToken(ctx, setup) })
		cleared := &payd.UserCredentials{UserID: st.ID}
		mustTx(t, s, func(tx payd.Tx) error { return tx.StaffCredentialsUpdate(ctx, cleared) })
		wantRead(t, s, "StaffCredentialsGet after clearing", cleared, func(tx payd.Tx) (*payd.UserCredentials, error) { return tx.StaffCredentialsGet(ctx, st.ID) })
		err := s.View(ctx, func(tx payd.Tx) error { _, err := tx.StaffGetBySetupToken(ctx, setup); return err })
		wantErr(t, "StaffGetBySetupToken of a used token", err, payd.ErrNoRows)
		err = s.Tx(ctx, func(tx payd.Tx) error {
			return tx.StaffCredentialsUpdate(ctx, &payd.UserCredentials{UserID: ids.New(payd.PrefixStaff, now)})
		})
		wantErr(t, "StaffCredentialsUpdate of a missing id", err, payd.ErrNoRows)
		err = s.View(ctx, func(tx payd.Tx) error {
			_, err := tx.StaffCredentialsGet(ctx, ids.New(payd.PrefixStaff, now))
			return err
		})
		wantErr(t, "StaffCredentialsGet of a missing id", err, payd.ErrNoRows)
	})

	t.Run("Tokens", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		st, other := addStaff(t, s, "t@operator.test", payd.StaffFinance, now), addStaff(t, s, "o@operator.test", payd.StaffRisk, now)
		k2 := &payd.StaffToken{ID: ids.New(payd.PrefixStaffToken, now), StaffID: st.ID, Name: "script «два»", CreatedAt: now}
		k1 := &payd.StaffToken{ID: ids.New(payd.PrefixStaffToken, now.Add(-time.Hour)), StaffID: st.ID, Name: "laptop", CreatedAt: now.Add(-time.Hour)}
		ko := &payd.StaffToken{ID: ids.New(payd.PrefixStaffToken, now), StaffID: other.ID, Name: "other", CreatedAt: now}
		mustTx(t, s, func(tx payd.Tx) error {
			for _, k := range []*payd.StaffToken{k2, k1, ko} {
				if err := tx.StaffTokenInsert(ctx, k, []byte("hash of "+k.ID)); err != nil {
					return err
				}
			}
			return nil
		})
		wantRead(t, s, "StaffTokenGetByHash", k2, func(tx payd.Tx) (*payd.StaffToken, error) {
			return tx.StaffTokenGetByHash(ctx, []byte("hash of "+k2.ID))
		})
		wantRead(t, s, "StaffTokenGet", ko, func(tx payd.Tx) (*payd.StaffToken, error) { return tx.StaffTokenGet(ctx, ko.ID) })
		wantRead(t, s, "StaffTokenListByStaff", []*payd.StaffToken{k1, k2}, func(tx payd.Tx) ([]*payd.StaffToken, error) {
			return tx.StaffTokenListByStaff(ctx, st.ID)
		})
		err := s.View(ctx, func(tx payd.Tx) error { _, err := tx.StaffTokenGetByHash(ctx, []byte("unknown")); return err })
		wantErr(t, "StaffTokenGetByHash of an unknown hash", err, payd.ErrNoRows)
		err = s.Tx(ctx, func(tx payd.Tx) error {
			return tx.StaffTokenInsert(ctx, &payd.StaffToken{ID: ids.New(payd.PrefixStaffToken, now), StaffID: st.ID, Name: "dup", CreatedAt: now},
				[]byte("hash of "+k2.ID))
		})
		wantErr(t, "StaffTokenInsert of a taken hash", err, payd.ErrConflict)

		used, revoked := now.Add(time.Minute), now.Add(2*time.Minute)
		mustTx(t, s, func(tx payd.Tx) error {
			if err := tx.StaffTokenTouch(ctx, k2.ID, used); err != nil {
				return err
			}
			if err := tx.StaffTokenRevoke(ctx, k2.ID, revoked); err != nil {
				return err
			}
			// A second revocation keeps the first one's time.
			return tx.StaffTokenRevoke(ctx, k2.ID, revoked.Add(time.Hour))
		})
		k2.LastUsedAt, k2.RevokedAt = &used, &revoked
		wantRead(t, s, "StaffTokenGet after use and revocation", k2, func(tx payd.Tx) (*payd.StaffToken, error) { return tx.StaffTokenGet(ctx, k2.ID) })
		missing := ids.New(payd.PrefixStaffToken, now)
		err = s.Tx(ctx, func(tx payd.Tx) error { return tx.StaffTokenRevoke(ctx, missing, now) })
		wantErr(t, "StaffTokenRevoke of a missing id", err, payd.ErrNoRows)
		err = s.Tx(ctx, func(tx payd.Tx) error { return tx.StaffTokenTouch(ctx, missing, now) })
		wantErr(t, "StaffTokenTouch of a missing id", err, payd.ErrNoRows)
	})
}

func testOperatorAudit(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("InsertListFilters", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		staffA, staffB := ids.New(payd.PrefixStaff, now), ids.New(payd.PrefixStaff, now)
		merchant := ids.New(payd.PrefixMerchant, now)
		var entries []*payd.OperatorAuditEntry
		for i, at := range tiedTimes(now, 9) {
			e := &payd.OperatorAuditEntry{ID: ids.New(payd.PrefixOperatorAudit, at), At: at, Via: payd.StaffViaToken,
				StaffID: staffA, StaffEmail: "a@operator.test", TokenID: "stt_1", Addr: "192.0.2.1",
				Action: "shops.block", ObjectID: "sh_1", MerchantID: merchant}
			switch i % 3 {
			case 1:
				e.StaffID, e.StaffEmail, e.Action, e.ObjectID = staffB, "b@operator.test", "shops.update", "sh_2"
				e.Before, e.After = `{"display_name":"A"}`, `{"display_name":"«Б»"}`
			case 2:
				e.StaffID, e.StaffEmail, e.TokenID, e.Via, e.MerchantID = "", "", "", payd.StaffViaBreakGlass, ""
				e.Action, e.ObjectID, e.Detail = "settlements.approve", "set_1", `{"note":1}`
				e.ConfirmedByID, e.ConfirmedByEmail = staffB, "b@operator.test"
			}
			entries = append(entries, e)
		}
		mustTx(t, s, func(tx payd.Tx) error {
			for _, e := range entries {
				if err := tx.OperatorAuditInsert(ctx, e); err != nil {
					return err
				}
			}
			return nil
		})
		key := func(e *payd.OperatorAuditEntry) payd.Cursor { return payd.Cursor{CreatedAt: e.At, ID: e.ID} }
		mid := entries[4].At
		for _, f := range []struct {
			name string
			p    payd.OperatorAuditListParams
			keep func(e *payd.OperatorAuditEntry) bool
		}{
			{"all", payd.OperatorAuditListParams{}, func(*payd.OperatorAuditEntry) bool { return true }},
			{"staff", payd.OperatorAuditListParams{StaffID: staffB}, func(e *payd.OperatorAuditEntry) bool { return e.StaffID == staffB }},
			{"action", payd.OperatorAuditListParams{Action: "settlements.approve"}, func(e *payd.OperatorAuditEntry) bool { return e.Action == "settlements.approve" }},
			{"object", payd.OperatorAuditListParams{ObjectID: "sh_1"}, func(e *payd.OperatorAuditEntry) bool { return e.ObjectID == "sh_1" }},
			{"merchant and staff", payd.OperatorAuditListParams{MerchantID: merchant, StaffID: staffA},
				func(e *payd.OperatorAuditEntry) bool { return e.MerchantID == merchant && e.StaffID == staffA }},
			{"created", payd.OperatorAuditListParams{Created: payd.TimeRange{GTE: &mid}},
				func(e *payd.OperatorAuditEntry) bool { return !e.At.Before(mid) }},
		} {
			want := newestWhere(entries, key, f.keep)
			for _, limit := range []int{0, 1, 4} {
				checkPaging(t, limit, want, key, func(lp payd.ListParams) (page payd.Page[*payd.OperatorAuditEntry], err error) {
					p := f.p
					p.ListParams = lp
					mustView(t, s, func(tx payd.Tx) error { page, err = tx.OperatorAuditList(ctx, &p); return err })
					return page, err
				})
			}
		}
		err := s.Tx(ctx, func(tx payd.Tx) error { return tx.OperatorAuditInsert(ctx, entries[0]) })
		wantErr(t, "OperatorAuditInsert of a taken id", err, payd.ErrConflict)
	})
}

func testProposal(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("InsertDecideList", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		mk := func(at time.Time, action string) *payd.Proposal {
			return &payd.Proposal{ID: ids.New(payd.PrefixProposal, at), Action: action, ObjectID: "set_1", Method: "POST",
				Path: "/admin/v1/settlements/set_1/approve", Body: `{"note":"«да»"}`, State: payd.ProposalPending,
				ProposedBy: "stf_a", ProposedByEmail: "a@operator.test", CreatedAt: at, ExpiresAt: at.Add(payd.ProposalTTL)}
		}
		older, newer := mk(now.Add(-time.Minute), "settlements.approve"), mk(now, "routes.put")
		mustTx(t, s, func(tx payd.Tx) error {
			if err := tx.ProposalInsert(ctx, older); err != nil {
				return err
			}
			return tx.ProposalInsert(ctx, newer)
		})
		wantRead(t, s, "ProposalGetForUpdate", older, func(tx payd.Tx) (*payd.Proposal, error) { return tx.ProposalGetForUpdate(ctx, older.ID) })
		wantRead(t, s, "ProposalList of pending ones", []*payd.Proposal{newer, older}, func(tx payd.Tx) ([]*payd.Proposal, error) {
			return tx.ProposalList(ctx, payd.ProposalPending, 10)
		})
		decided := now.Add(time.Minute)
		older.State, older.DecidedBy, older.DecidedByEmail, older.DecidedAt = payd.ProposalConfirmed, "stf_b", "b@operator.test", &decided
		mustTx(t, s, func(tx payd.Tx) error { return tx.ProposalDecide(ctx, older) })
		wantRead(t, s, "ProposalList of pending ones after a decision", []*payd.Proposal{newer}, func(tx payd.Tx) ([]*payd.Proposal, error) {
			return tx.ProposalList(ctx, payd.ProposalPending, 10)
		})
		wantRead(t, s, "ProposalList of every state, limited", []*payd.Proposal{newer}, func(tx payd.Tx) ([]*payd.Proposal, error) {
			return tx.ProposalList(ctx, "", 1)
		})
		wantRead(t, s, "a decided proposal", older, func(tx payd.Tx) (*payd.Proposal, error) { return tx.ProposalGetForUpdate(ctx, older.ID) })
		missing := mk(now, "x")
		err := s.Tx(ctx, func(tx payd.Tx) error { return tx.ProposalDecide(ctx, missing) })
		wantErr(t, "ProposalDecide of a missing id", err, payd.ErrNoRows)
		err = s.Tx(ctx, func(tx payd.Tx) error { _, err := tx.ProposalGetForUpdate(ctx, missing.ID); return err })
		wantErr(t, "ProposalGetForUpdate of a missing id", err, payd.ErrNoRows)
	})
}

// testStaffSessions checks that the back office's sessions are kept apart
// from the dashboard's: a token of one kind is no session of the other,
// and the purges reach both kinds.
func testStaffSessions(t *testing.T, open func(t *testing.T) payd.Store) {
	s := open(t)
	ctx := t.Context()
	now := ts(time.Now())
	st := addStaff(t, s, "s@operator.test", payd.StaffSupport, now)
	m := addMerchant(t, s, now)
	u := addUser(t, s, m.ID, "s@operator.test", payd.RoleAdmin, now)
	staffSes := &payd.Session{ID: newID(payd.PrefixSession, now), Kind: payd.AccountStaff, UserID: st.ID, State: payd.SessionEnroll,
		CreatedAt: now, LastSeenAt: now, Addr: "192.0.2.7", UserAgent: "phone"}
	userSes := &payd.Session{ID: newID(payd.PrefixSession, now), Kind: payd.AccountUser, UserID: u.ID, MerchantID: m.ID,
		State: payd.SessionActive, CreatedAt: now, LastSeenAt: now}
	mustTx(t, s, func(tx payd.Tx) error {
		if err := tx.SessionInsert(ctx, staffSes, []byte("staff token")); err != nil {
			return err
		}
		return tx.SessionInsert(ctx, userSes, []byte("user token"))
	})
	wantRead(t, s, "a staff session by its token", staffSes, func(tx payd.Tx) (*payd.Session, error) {
		return tx.SessionGetByToken(ctx, payd.AccountStaff, []byte("staff token"))
	})
	for _, c := range []struct {
		kind  payd.AccountKind
		token string
	}{{payd.AccountUser, "staff token"}, {payd.AccountStaff, "user token"}} {
		err := s.View(ctx, func(tx payd.Tx) error { _, err := tx.SessionGetByToken(ctx, c.kind, []byte(c.token)); return err })
		wantErr(t, "a "+string(c.kind)+" session by the other kind's token", err, payd.ErrNoRows)
	}
	var n int
	mustTx(t, s, func(tx payd.Tx) (err error) {
		n, err = tx.SessionCodeFailed(ctx, payd.AccountStaff, staffSes.ID)
		return err
	})
	if n != 1 {
		t.Errorf("SessionCodeFailed of a staff session = %d, want 1", n)
	}
	err := s.Tx(ctx, func(tx payd.Tx) error { return tx.SessionTouch(ctx, payd.AccountUser, staffSes.ID, now) })
	wantErr(t, "SessionTouch of a staff session as a user's", err, payd.ErrNoRows)

	// A setup token of a staff member expires with the users'.
	mustTx(t, s, func(tx payd.Tx) error {
		return tx.StaffCredentialsUpdate(ctx, &payd.UserCredentials{UserID: st.ID, SetupHash: []byte("staff setup"), SetupExpiresAt: ptr(now)})
	})
	var expired int64
	mustTx(t, s, func(tx payd.Tx) (err error) {
		expired, err = tx.UserSetupTokensExpire(ctx, now.Add(time.Second))
		return err
	})
	if expired != 1 {
		t.Errorf("UserSetupTokensExpire = %d, want the staff member's 1", expired)
	}
	var deleted int64
	mustTx(t, s, func(tx payd.Tx) (err error) {
		deleted, err = tx.SessionDeleteExpired(ctx, now.Add(time.Second), now.Add(-time.Hour))
		return err
	})
	if deleted != 2 {
		t.Errorf("SessionDeleteExpired = %d, want both kinds' 2", deleted)
	}
	err = s.View(ctx, func(tx payd.Tx) error {
		_, err := tx.SessionGetByToken(ctx, payd.AccountStaff, []byte("staff token"))
		return err
	})
	wantErr(t, "a staff session after SessionDeleteExpired", err, payd.ErrNoRows)
}
