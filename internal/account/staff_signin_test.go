package account_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/paydtest"
)

// staffMember creates a staff member through the break-glass token and
// sets its password with the setup link, as `payd admin staff create` and
// the back office's setup page do.
func (b *userBundle) staffMember(t *testing.T, email string, role payd.StaffRole) *payd.Staff {
	t.Helper()
	st, tok, err := b.acc.CreateStaff(b.ctx, payd.BreakGlass("127.0.0.1"), email, role)
	if err != nil {
		t.Fatal(err)
	}
	if st, err = b.acc.StaffSetPassword(b.ctx, tok, goodPassword, "192.0.2.1"); err != nil || !st.HasPassword {
		t.Fatalf("StaffSetPassword: %+v, %v", st, err)
	}
	return st
}

// operatorActions lists the operator audit log's actions of a staff
// member, oldest first.
func (b *userBundle) operatorActions(t *testing.T, staffID string) []string {
	t.Helper()
	var page payd.Page[*payd.OperatorAuditEntry]
	err := b.store.View(b.ctx, func(tx payd.Tx) (err error) {
		page, err = tx.OperatorAuditList(b.ctx, &payd.OperatorAuditListParams{ListParams: payd.ListParams{Limit: 100}, StaffID: staffID})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range page.Items {
		out = append([]string{e.Action}, out...)
	}
	return out
}

// TestStaffSecondFactorIsMandatory walks a staff member's first sign-in:
// the right password opens a session that may only enrol the second
// factor; once enrolled, every sign-in waits for a code, used once.
func TestStaffSecondFactorIsMandatory(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupUsers(t, be)
		st := b.staffMember(t, "finance@operator.test", payd.StaffFinance)

		tok, ses, err := b.acc.StaffSignIn(b.ctx, "Finance@Operator.test ", goodPassword, "192.0.2.1", "Phone/1.0")
		if err != nil || ses.State != payd.SessionEnroll || ses.Kind != payd.AccountStaff || ses.UserID != st.ID {
			t.Fatalf("first StaffSignIn: %+v, %v; want an enroll session of %s", ses, err, st.ID)
		}
		if _, _, err := b.acc.StaffSecondFactor(b.ctx, tok, "123456", "192.0.2.1"); err == nil {
			t.Error("an enroll session took a second-factor code")
		}
		secret, _, err := b.acc.StaffBeginTOTP(b.ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = b.acc.StaffConfirmTOTP(b.ctx, tok, "000000", "192.0.2.1")
		wantCode(t, "StaffConfirmTOTP with a wrong code", err, payd.CodeInvalidRequest, "code")
		active, ses, err := b.acc.StaffConfirmTOTP(b.ctx, tok, totpCode(t, secret, b.clock.Now()), "192.0.2.1")
		if err != nil || ses.State != payd.SessionActive || active == tok {
			t.Fatalf("StaffConfirmTOTP: %+v, %v", ses, err)
		}
		if _, _, err := b.acc.StaffSession(b.ctx, tok); !errors.Is(err, account.ErrNoSession) {
			t.Errorf("the enroll session's token after enrolment: %v, want ErrNoSession", err)
		}
		if _, got, err := b.acc.StaffSession(b.ctx, active); err != nil || got.ID != st.ID || !got.TOTPEnabled || got.Role != payd.StaffFinance {
			t.Fatalf("StaffSession: %+v, %v", got, err)
		}
		if err := b.acc.StaffSignOut(b.ctx, active, "192.0.2.1"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.acc.StaffSession(b.ctx, active); !errors.Is(err, account.ErrNoSession) {
			t.Errorf("a session after StaffSignOut: %v", err)
		}

		// The next sign-in waits for a code; the enrolment's code is
		// used and a wrong one is counted.
		b.clock.Advance(30 * time.Second)
		pending, ses, err := b.acc.StaffSignIn(b.ctx, st.Email, goodPassword, "192.0.2.1", "Phone/1.0")
		if err != nil || ses.State != payd.SessionSecondFactor {
			t.Fatalf("second StaffSignIn: %+v, %v", ses, err)
		}
		_, _, err = b.acc.StaffSecondFactor(b.ctx, pending, "000000", "192.0.2.1")
		wantCode(t, "StaffSecondFactor with a wrong code", err, payd.CodeInvalidRequest, "code")
		if _, ses, err = b.acc.StaffSecondFactor(b.ctx, pending, totpCode(t, secret, b.clock.Now()), "192.0.2.1"); err != nil || ses.State != payd.SessionActive {
			t.Fatalf("StaffSecondFactor: %+v, %v", ses, err)
		}

		want := []string{"staff.set_password", "staff.sign_in", "staff.second_factor_on", "staff.sign_out",
			"staff.sign_in", "staff.second_factor_failed"}
		if got := b.operatorActions(t, st.ID); !slices.Equal(got, want) {
			t.Errorf("operator audit of the member: %v, want %v", got, want)
		}
	})
}

// TestStaffAndUsersApart proves the kinds share nothing but the code: a
// token of one kind is no session of the other, and a staff member and a
// dashboard user of one email are guarded apart.
func TestStaffAndUsersApart(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupUsersWith(t, be, func(c *account.Config) { c.SignIn.Failures = 3 })
		b.user(t, "both@example.test", payd.RoleAdmin)
		b.staffMember(t, "both@example.test", payd.StaffSupport)

		userTok, _ := b.signIn(t, "both@example.test")
		staffTok, _, err := b.acc.StaffSignIn(b.ctx, "both@example.test", goodPassword, "192.0.2.1", "")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.acc.StaffSession(b.ctx, userTok); !errors.Is(err, account.ErrNoSession) {
			t.Errorf("a dashboard token in the back office: %v, want ErrNoSession", err)
		}
		if _, _, err := b.acc.Session(b.ctx, staffTok); !errors.Is(err, account.ErrNoSession) {
			t.Errorf("a back-office token in the dashboard: %v, want ErrNoSession", err)
		}

		for range 3 {
			_, _, err := b.acc.StaffSignIn(b.ctx, "both@example.test", "wrong password", "198.51.100.1", "")
			if err == nil {
				t.Fatal("a wrong staff password signed in")
			}
		}
		_, _, err = b.acc.StaffSignIn(b.ctx, "both@example.test", goodPassword, "192.0.2.1", "")
		wantCode(t, "the staff account after its failures", err, payd.CodeTooManyRequests, "")
		b.signIn(t, "both@example.test") // the dashboard user's account is not locked
	})
}

// TestStaffDisabledOrReset: disabling a member ends its sessions, and a
// new setup link (a lost phone) resets the second factor, so the next
// sign-in enrols a new one.
func TestStaffDisabledOrReset(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupUsers(t, be)
		admin := payd.BreakGlass("127.0.0.1")
		st := b.staffMember(t, "risk@operator.test", payd.StaffRisk)
		tok, _, err := b.acc.StaffSignIn(b.ctx, st.Email, goodPassword, "192.0.2.1", "")
		if err != nil {
			t.Fatal(err)
		}
		secret, _, err := b.acc.StaffBeginTOTP(b.ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		if tok, _, err = b.acc.StaffConfirmTOTP(b.ctx, tok, totpCode(t, secret, b.clock.Now()), ""); err != nil {
			t.Fatal(err)
		}

		_, link, err := b.acc.NewStaffSetupToken(b.ctx, admin, st.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.acc.StaffSession(b.ctx, tok); !errors.Is(err, account.ErrNoSession) {
			t.Errorf("a session after a new setup link: %v, want ErrNoSession", err)
		}
		if _, err := b.acc.StaffSetPassword(b.ctx, link, "another good passphrase", ""); err != nil {
			t.Fatal(err)
		}
		tok, ses, err := b.acc.StaffSignIn(b.ctx, st.Email, "another good passphrase", "192.0.2.1", "")
		if err != nil || ses.State != payd.SessionEnroll {
			t.Fatalf("sign-in after the reset: %+v, %v; want enroll", ses, err)
		}

		if _, err := b.acc.ChangeStaff(b.ctx, admin, st.ID, "", true); err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.acc.StaffSession(b.ctx, tok); !errors.Is(err, account.ErrNoSession) {
			t.Errorf("a disabled member's session: %v, want ErrNoSession", err)
		}
		_, _, err = b.acc.StaffSignIn(b.ctx, st.Email, "another good passphrase", "192.0.2.1", "")
		if !errors.Is(err, account.ErrSignInFailed) {
			t.Errorf("a disabled member's sign-in: %v, want ErrSignInFailed", err)
		}
	})
}
