package account_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/sqlstore"
)

// handClock is a clock moved by hand.
type handClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *handClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *handClock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// userBundle is a merchant on a fresh store, with the domain's service
// (svc: merchants, shops, the audit log) and the account service (acc)
// built as serve builds them.
type userBundle struct {
	ctx   context.Context
	svc   *payd.Service
	acc   *account.Service
	store *sqlstore.Store
	clock *handClock
	m     *payd.Merchant
}

func setupUsers(t *testing.T, be paydtest.Backend) *userBundle {
	t.Helper()
	return setupUsersWith(t, be, nil)
}

// setupUsersWith is setupUsers with the account service's Config changed
// by edit; the domain's service runs on the same clock.
func setupUsersWith(t testing.TB, be paydtest.Backend, edit func(*account.Config)) *userBundle {
	t.Helper()
	ctx := t.Context()
	store, err := sqlstore.Open(ctx, be.DatabaseURL(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if _, err := store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// A time in the middle of a TOTP step, so a step's codes are stable
	// while the test runs.
	clock := &handClock{now: time.Date(2026, 3, 1, 10, 0, 15, 0, time.UTC)}
	ids := payd.NewIDGen()
	cfg := account.Config{Store: store, Clock: clock, IDs: ids, PublicURL: "https://payd.test", SetupPath: "/dashboard/setup/"}
	if edit != nil {
		edit(&cfg)
	}
	svc := payd.NewService(payd.Config{Store: store, Clock: cfg.Clock, IDs: ids, PublicURL: "https://payd.test",
		WebhookAllowHosts: []string{"hooks.example.test"}})
	m, err := svc.CreateMerchant(ctx, payd.MerchantCreate{Name: "M"})
	if err != nil {
		t.Fatal(err)
	}
	return &userBundle{ctx: ctx, svc: svc, acc: account.New(cfg), store: store, clock: clock, m: m}
}

const goodPassword = "correct horse battery"

// user creates a user of the bundle's merchant with a password.
func (b *userBundle) user(t testing.TB, email string, role payd.Role) *payd.User {
	t.Helper()
	u, tok, err := b.acc.CreateUser(b.ctx, nil, b.m.ID, email, role)
	if err != nil {
		t.Fatal(err)
	}
	if u, err = b.acc.SetPassword(b.ctx, tok, goodPassword, "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	return u
}

func (b *userBundle) signIn(t *testing.T, email string) (string, *payd.Session) {
	t.Helper()
	tok, ses, err := b.acc.SignIn(b.ctx, email, goodPassword, "192.0.2.1", "Browser/1.0")
	if err != nil {
		t.Fatalf("SignIn %s: %v", email, err)
	}
	return tok, ses
}

func wantCode(t *testing.T, what string, err error, code payd.ErrorCode, param string) {
	t.Helper()
	var e *payd.Error
	if !errors.As(err, &e) || e.Code != code || e.Param != param {
		t.Errorf("%s: error %v, want %s (%q)", what, err, code, param)
	}
}

func actorOf(u *payd.User) *payd.Actor {
	return &payd.Actor{UserID: u.ID, Email: u.Email, Addr: "192.0.2.9"}
}

func TestCreateUserEmail(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupUsers(t, be)
		u, tok, err := b.acc.CreateUser(b.ctx, nil, b.m.ID, "  Alice@Example.TEST ", payd.RoleAdmin)
		if err != nil {
			t.Fatal(err)
		}
		if u.Email != "alice@example.test" || !payd.ValidID(payd.PrefixUser, u.ID) || u.HasPassword || len(tok) != 43 {
			t.Errorf("user %+v, token %q: want the email lower-cased and trimmed, a usr_ id, no password, a 43-character token", u, tok)
		}
		if got := b.acc.SetupURL(tok); got != "https://payd.test/dashboard/setup/"+tok {
			t.Errorf("SetupURL = %q", got)
		}
		_, _, err = b.acc.CreateUser(b.ctx, nil, b.m.ID, "ALICE@example.test", payd.RoleViewer)
		wantCode(t, "a taken email in other case", err, payd.CodeEmailTaken, "email")
		other, _ := b.svc.CreateMerchant(b.ctx, payd.MerchantCreate{Name: "Other"})
		_, _, err = b.acc.CreateUser(b.ctx, nil, other.ID, "alice@example.test", payd.RoleViewer)
		wantCode(t, "a taken email at another merchant", err, payd.CodeEmailTaken, "email")
		_, _, err = b.acc.CreateUser(b.ctx, nil, "mer_01ARZ3NDEKTSV4RRFFQ69G5FAV", "x@example.test", payd.RoleViewer)
		wantCode(t, "unknown merchant", err, payd.CodeNotFound, "")
		for _, bad := range []string{"", "no-at", "@example.test", "a@", "a b@example.test", "moc.elpmaxe@\u202eadmin"} {
			_, _, err = b.acc.CreateUser(b.ctx, nil, b.m.ID, bad, payd.RoleViewer)
			wantCode(t, "email "+bad, err, payd.CodeInvalidRequest, "email")
		}
		_, _, err = b.acc.CreateUser(b.ctx, nil, b.m.ID, "r@example.test", "owner")
		wantCode(t, "unknown role", err, payd.CodeInvalidRequest, "role")
	})
}

func TestSetupToken(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupUsers(t, be)
		u, tok, err := b.acc.CreateUser(b.ctx, nil, b.m.ID, "a@example.test", payd.RoleAdmin)
		if err != nil {
			t.Fatal(err)
		}
		t.Run("PasswordRules", func(t *testing.T) {
			for _, pw := range []string{"elevenchars", strings.Repeat("x", 257), "A@Example.test", "  a@example.test  "} {
				_, err := b.acc.SetPassword(b.ctx, tok, pw, "192.0.2.1")
				wantCode(t, "password "+pw[:min(len(pw), 20)], err, payd.CodeInvalidRequest, "password")
			}
		})
		// Twelve characters of two bytes each: length counts characters.
		got, err := b.acc.SetPassword(b.ctx, tok, "пароль-пароль", "192.0.2.1")
		if err != nil || !got.HasPassword || got.ID != u.ID {
			t.Fatalf("SetPassword: %+v, %v", got, err)
		}
		_, err = b.acc.SetPassword(b.ctx, tok, goodPassword, "192.0.2.1")
		wantCode(t, "second use of a setup token", err, payd.CodeNotFound, "")

		// A fresh token replaces the old; it expires after 72 hours.
		old, err := b.acc.NewSetupToken(b.ctx, nil, b.m.ID, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := b.acc.NewSetupToken(b.ctx, nil, b.m.ID, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.acc.SetPassword(b.ctx, old, goodPassword, "192.0.2.1")
		wantCode(t, "a replaced setup token", err, payd.CodeNotFound, "")
		b.clock.Advance(account.SetupTokenTTL)
		_, err = b.acc.SetPassword(b.ctx, fresh, goodPassword, "192.0.2.1")
		wantCode(t, "an expired setup token", err, payd.CodeNotFound, "")
		if n, err := b.acc.PurgeSessions(b.ctx); err != nil || n != 1 {
			t.Errorf("PurgeSessions after the expiry: %d, %v; want the token forgotten", n, err)
		}
		other, _ := b.svc.CreateMerchant(b.ctx, payd.MerchantCreate{Name: "Other"})
		_, err = b.acc.NewSetupToken(b.ctx, nil, other.ID, u.ID)
		wantCode(t, "NewSetupToken for another merchant's user", err, payd.CodeNotFound, "")
	})
}

func TestSignInFailures(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupUsers(t, be)
		b.user(t, "admin@example.test", payd.RoleAdmin)
		wrong := b.user(t, "wrong@example.test", payd.RoleViewer)
		disabled := b.user(t, "disabled@example.test", payd.RoleViewer)
		if _, err := b.acc.DisableUser(b.ctx, nil, b.m.ID, disabled.ID); err != nil {
			t.Fatal(err)
		}
		nopw, _, err := b.acc.CreateUser(b.ctx, nil, b.m.ID, "nopw@example.test", payd.RoleViewer)
		if err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name, email, password, account string
		}{
			{"UnknownEmail", "nobody@example.test", goodPassword, ""},
			{"WrongPassword", "wrong@example.test", "not the password", wrong.ID},
			{"Disabled", "disabled@example.test", goodPassword, disabled.ID},
			{"NoPasswordYet", "nopw@example.test", goodPassword, nopw.ID},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				before := b.acc.KDFRuns()
				_, _, err := b.acc.SignIn(b.ctx, c.email, c.password, "192.0.2.1", "")
				if !errors.Is(err, account.ErrSignInFailed) || err.Error() != account.ErrSignInFailed.Error() {
					t.Fatalf("error %v, want ErrSignInFailed", err)
				}
				wantCode(t, "sign-in failure", err, payd.CodeInvalidCredentials, "")
				// The timing parity is structural: every path runs the KDF
				// once, whether or not there was a hash to verify.
				if runs := b.acc.KDFRuns() - before; runs != 1 {
					t.Errorf("%d argon2id runs, want 1", runs)
				}
			})
		}
		page, err := b.svc.ListAudit(b.ctx, b.m.ID, payd.AuditListParams{})
		if err != nil {
			t.Fatal(err)
		}
		failed := map[string]int{}
		for _, e := range page.Items {
			if e.Action == payd.AuditSignInFailed {
				failed[e.ObjectID]++
			}
		}
		// Existing accounts only, each named by its entry.
		for _, c := range cases {
			if want := min(len(c.account), 1); failed[c.account] != want {
				t.Errorf("%s: %d failed sign-ins in the audit log naming %q, want %d", c.name, failed[c.account], c.account, want)
			}
		}
	})
}

func TestPasswordHashParameters(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupUsers(t, be)
		u := b.user(t, "a@example.test", payd.RoleAdmin)
		var c *payd.UserCredentials
		read := func() {
			t.Helper()
			err := b.store.View(b.ctx, func(tx payd.Tx) (err error) { c, err = tx.UserCredentialsGet(b.ctx, u.ID); return err })
			if err != nil {
				t.Fatal(err)
			}
		}
		read()
		if !strings.HasPrefix(c.PasswordHash, "$argon2id$v=19$m=19456,t=2,p=1$") {
			t.Errorf("hash %q: want the PHC form with OWASP's parameters", c.PasswordHash)
		}
		// A hash made under other parameters still verifies, and is replaced
		// by one of the current parameters at that sign-in.
		c.PasswordHash = b.acc.HashPasswordWith(goodPassword, account.Argon2Params{MemoryKiB: 8 * 1024, Time: 3, Threads: 2, SaltLen: 8, KeyLen: 16})
		if err := b.store.Tx(b.ctx, func(tx payd.Tx) error { return tx.UserCredentialsUpdate(b.ctx, c) }); err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.acc.SignIn(b.ctx, "a@example.test", goodPassword, "", ""); err != nil {
			t.Fatalf("sign-in with a hash of other parameters: %v", err)
		}
		read()
		if !strings.HasPrefix(c.PasswordHash, "$argon2id$v=19$m=19456,t=2,p=1$") {
			t.Errorf("hash after sign-in %q: want it rehashed with the current parameters", c.PasswordHash)
		}
		if _, _, err := b.acc.SignIn(b.ctx, "A@example.test ", "correct horse batterY", "", ""); !errors.Is(err, account.ErrSignInFailed) {
			t.Errorf("a password differing in one letter: %v", err)
		}
	})
}

func TestSessionLifetime(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupUsers(t, be)
		u := b.user(t, "a@example.test", payd.RoleAdmin)
		tok, ses := b.signIn(t, " A@Example.test")
		if ses.State != payd.SessionActive || ses.UserID != u.ID || !payd.ValidID(payd.PrefixSession, ses.ID) || tok == ses.ID {
			t.Fatalf("session %+v", ses)
		}
		tok2, _ := b.signIn(t, "a@example.test")
		if tok2 == tok {
			t.Error("two sign-ins gave the same token")
		}
		signedIn := b.clock.Now()

		// LastSeenAt is written at most once a minute.
		b.clock.Advance(59 * time.Second)
		got, _, err := b.acc.Session(b.ctx, tok)
		if err != nil || !got.LastSeenAt.Equal(signedIn) {
			t.Errorf("after 59s: %v, last seen %v; want no write", err, got.LastSeenAt)
		}
		b.clock.Advance(time.Second)
		if got, _, err = b.acc.Session(b.ctx, tok); err != nil || !got.LastSeenAt.Equal(b.clock.Now()) {
			t.Errorf("after a minute: %v, last seen %v; want it written", err, got.LastSeenAt)
		}

		// Idle: 30 minutes without a request end the session.
		b.clock.Advance(30*time.Minute - time.Second)
		if _, _, err := b.acc.Session(b.ctx, tok); err != nil {
			t.Errorf("a second before the idle timeout: %v", err)
		}
		b.clock.Advance(30 * time.Minute)
		if _, _, err := b.acc.Session(b.ctx, tok); !errors.Is(err, account.ErrNoSession) {
			t.Errorf("after the idle timeout: %v, want ErrNoSession", err)
		}

		// Absolute: 12 hours after sign-in, however busy.
		tok3, _ := b.signIn(t, "a@example.test")
		start := b.clock.Now()
		for b.clock.Now().Before(start.Add(account.DefaultSessionAbsolute - 20*time.Minute)) {
			b.clock.Advance(20 * time.Minute)
			if _, _, err := b.acc.Session(b.ctx, tok3); err != nil {
				t.Fatalf("%v after sign-in: %v", b.clock.Now().Sub(start), err)
			}
		}
		b.clock.Advance(20 * time.Minute)
		if _, _, err := b.acc.Session(b.ctx, tok3); !errors.Is(err, account.ErrNoSession) {
			t.Errorf("12 hours after sign-in: %v, want ErrNoSession", err)
		}
		if n, err := b.acc.PurgeSessions(b.ctx); err != nil || n != 3 {
			t.Errorf("PurgeSessions: %d, %v; want the three ended sessions", n, err)
		}
	})
}

func TestSignOut(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupUsers(t, be)
		a := b.user(t, "a@example.test", payd.RoleAdmin)
		v := b.user(t, "v@example.test", payd.RoleViewer)
		t1, _ := b.signIn(t, "a@example.test")
		t2, _ := b.signIn(t, "a@example.test")
		t3, _ := b.signIn(t, "a@example.test")
		tv, _ := b.signIn(t, "v@example.test")
		if err := b.acc.SignOut(b.ctx, t1, "192.0.2.1"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.acc.Session(b.ctx, t1); !errors.Is(err, account.ErrNoSession) {
			t.Errorf("after SignOut: %v", err)
		}
		if _, _, err := b.acc.Session(b.ctx, t2); err != nil {
			t.Errorf("another session after SignOut: %v", err)
		}
		if n := b.auditCount(t, payd.AuditSignOut); n != 1 {
			t.Errorf("%d sign-outs in the audit log, want 1", n)
		}
		if err := b.acc.SignOut(b.ctx, t1, "192.0.2.1"); err != nil || b.auditCount(t, payd.AuditSignOut) != 1 {
			t.Errorf("signing out an ended session again: %v, or it was logged twice", err)
		}
		wantCode(t, "a viewer signs an admin out everywhere", b.acc.SignOutEverywhere(b.ctx, actorOf(v), a.ID), payd.CodeForbidden, "")
		if err := b.acc.SignOutEverywhere(b.ctx, actorOf(a), a.ID); err != nil {
			t.Fatal(err)
		}
		for _, tok := range []string{t2, t3} {
			if _, _, err := b.acc.Session(b.ctx, tok); !errors.Is(err, account.ErrNoSession) {
				t.Errorf("after SignOutEverywhere: %v", err)
			}
		}
		if _, _, err := b.acc.Session(b.ctx, tv); err != nil {
			t.Errorf("another user's session after SignOutEverywhere: %v", err)
		}
		// Setting a password ends every session too.
		tok, err := b.acc.NewSetupToken(b.ctx, nil, b.m.ID, v.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.acc.SetPassword(b.ctx, tok, "another long password", "192.0.2.1"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.acc.Session(b.ctx, tv); !errors.Is(err, account.ErrNoSession) {
			t.Errorf("after a new password: %v", err)
		}
		// Disabling ends them and refuses sign-in.
		tv, _, err = b.acc.SignIn(b.ctx, "v@example.test", "another long password", "", "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.acc.DisableUser(b.ctx, actorOf(a), b.m.ID, v.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.acc.Session(b.ctx, tv); !errors.Is(err, account.ErrNoSession) {
			t.Errorf("after DisableUser: %v", err)
		}
	})
}

func totpCode(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	code, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return code
}

func TestTOTP(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupUsers(t, be)
		u := b.user(t, "a@example.test", payd.RoleAdmin)
		other := b.user(t, "o@example.test", payd.RoleAdmin)
		tok, _ := b.signIn(t, "a@example.test")

		_, _, err := b.acc.BeginTOTP(b.ctx, actorOf(other), u.ID)
		wantCode(t, "BeginTOTP for someone else", err, payd.CodeForbidden, "")
		secret, url, err := b.acc.BeginTOTP(b.ctx, actorOf(u), u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(url, "otpauth://totp/payd:a@example.test?") || !strings.Contains(url, "secret="+secret) {
			t.Errorf("otpauth URL %q", url)
		}
		now := b.clock.Now()
		_, _, err = b.acc.ConfirmTOTP(b.ctx, actorOf(u), tok, "000000")
		wantCode(t, "ConfirmTOTP with a wrong code", err, payd.CodeInvalidRequest, "code")
		tok, ses, err := b.acc.ConfirmTOTP(b.ctx, actorOf(u), tok, totpCode(t, secret, now))
		if err != nil || ses.State != payd.SessionActive {
			t.Fatalf("ConfirmTOTP: %+v, %v", ses, err)
		}
		if _, got, _ := b.acc.Session(b.ctx, tok); got == nil || !got.TOTPEnabled {
			t.Errorf("user after ConfirmTOTP: %+v", got)
		}
		_, _, err = b.acc.BeginTOTP(b.ctx, actorOf(u), u.ID)
		wantCode(t, "BeginTOTP when it is on", err, payd.CodeInvalidState, "")

		// Sign-in now waits for a code; the session does nothing else.
		pending, ses := b.signIn(t, "a@example.test")
		if ses.State != payd.SessionSecondFactor {
			t.Fatalf("state %q, want second_factor", ses.State)
		}
		_, _, err = b.acc.SecondFactor(b.ctx, pending, totpCode(t, secret, now), "192.0.2.1")
		wantCode(t, "the code of a step already used", err, payd.CodeInvalidRequest, "code")
		_, _, err = b.acc.SecondFactor(b.ctx, pending, "12345", "192.0.2.1")
		wantCode(t, "a malformed code", err, payd.CodeInvalidRequest, "code")

		// ±2 steps are refused, ±1 accepted, each step once.
		b.clock.Advance(5 * time.Minute)
		now = b.clock.Now()
		for _, d := range []time.Duration{-60 * time.Second, 60 * time.Second} {
			_, _, err = b.acc.SecondFactor(b.ctx, pending, totpCode(t, secret, now.Add(d)), "192.0.2.1")
			wantCode(t, "a code "+d.String()+" away", err, payd.CodeInvalidRequest, "code")
		}
		active, ses, err := b.acc.SecondFactor(b.ctx, pending, totpCode(t, secret, now.Add(-30*time.Second)), "192.0.2.1")
		if err != nil || ses.State != payd.SessionActive || active == pending {
			t.Fatalf("a code 30s behind: %+v, %v", ses, err)
		}
		if _, _, err := b.acc.Session(b.ctx, pending); !errors.Is(err, account.ErrNoSession) {
			t.Errorf("the token before the second factor still works: %v", err)
		}
		pending2, _ := b.signIn(t, "a@example.test")
		if _, _, err := b.acc.SecondFactor(b.ctx, pending2, totpCode(t, secret, now.Add(30*time.Second)), "192.0.2.1"); err != nil {
			t.Errorf("a code 30s ahead: %v", err)
		}
		pending3, _ := b.signIn(t, "a@example.test")
		_, _, err = b.acc.SecondFactor(b.ctx, pending3, totpCode(t, secret, now), "192.0.2.1")
		wantCode(t, "a code of a step before the last used", err, payd.CodeInvalidRequest, "code")
		_, _, err = b.acc.SecondFactor(b.ctx, active, totpCode(t, secret, now), "192.0.2.1")
		wantCode(t, "SecondFactor on an active session", err, payd.CodeInvalidState, "")

		// Turning it off: sign-in is active at once again.
		_, err = b.acc.DisableTOTP(b.ctx, actorOf(other), u.ID) // an admin resets a lost phone
		if err != nil {
			t.Fatal(err)
		}
		if _, ses := b.signIn(t, "a@example.test"); ses.State != payd.SessionActive {
			t.Errorf("state after DisableTOTP %q", ses.State)
		}
	})
}

func TestRequiredSecondFactor(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupUsers(t, be)
		a := b.user(t, "a@example.test", payd.RoleAdmin)
		v := b.user(t, "v@example.test", payd.RoleViewer)
		_, err := b.acc.SetSecondFactorPolicy(b.ctx, actorOf(v), b.m.ID, true)
		wantCode(t, "a viewer sets the policy", err, payd.CodeForbidden, "")
		if m, err := b.acc.SetSecondFactorPolicy(b.ctx, actorOf(a), b.m.ID, true); err != nil || !m.RequireSecondFactor {
			t.Fatalf("SetSecondFactorPolicy: %+v, %v", m, err)
		}
		tok, ses := b.signIn(t, "v@example.test")
		if ses.State != payd.SessionEnroll {
			t.Fatalf("state %q, want enroll", ses.State)
		}
		secret, _, err := b.acc.BeginTOTP(b.ctx, actorOf(v), v.ID)
		if err != nil {
			t.Fatal(err)
		}
		tok2, ses, err := b.acc.ConfirmTOTP(b.ctx, actorOf(v), tok, totpCode(t, secret, b.clock.Now()))
		if err != nil || ses.State != payd.SessionActive || tok2 == tok {
			t.Fatalf("ConfirmTOTP from enroll: %+v, %v", ses, err)
		}
		if _, _, err := b.acc.Session(b.ctx, tok); !errors.Is(err, account.ErrNoSession) {
			t.Errorf("the enroll token after enrolment: %v", err)
		}
	})
}

func TestUserRolesAndLastAdmin(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupUsers(t, be)
		a := b.user(t, "a@example.test", payd.RoleAdmin)
		v := b.user(t, "v@example.test", payd.RoleViewer)
		other, _ := b.svc.CreateMerchant(b.ctx, payd.MerchantCreate{Name: "Other"})
		_, _, err := b.acc.CreateUser(b.ctx, nil, other.ID, "o@example.test", payd.RoleAdmin)
		if err != nil {
			t.Fatal(err)
		}

		_, err = b.acc.ChangeUserRole(b.ctx, actorOf(a), b.m.ID, a.ID, payd.RoleViewer)
		wantCode(t, "demoting the last admin", err, payd.CodeInvalidState, "")
		_, err = b.acc.DisableUser(b.ctx, actorOf(a), b.m.ID, a.ID)
		wantCode(t, "disabling the last admin", err, payd.CodeInvalidState, "")
		_, err = b.acc.ChangeUserRole(b.ctx, actorOf(v), b.m.ID, v.ID, payd.RoleAdmin)
		wantCode(t, "a viewer makes itself admin", err, payd.CodeForbidden, "")
		_, _, err = b.acc.CreateUser(b.ctx, actorOf(v), b.m.ID, "x@example.test", payd.RoleAdmin)
		wantCode(t, "a viewer invites", err, payd.CodeForbidden, "")
		_, err = b.acc.ChangeUserRole(b.ctx, nil, other.ID, v.ID, payd.RoleAdmin)
		wantCode(t, "a user named under another merchant", err, payd.CodeNotFound, "")
		_, err = b.acc.GetUser(b.ctx, other.ID, v.ID)
		wantCode(t, "GetUser under another merchant", err, payd.CodeNotFound, "")

		if u, err := b.acc.ChangeUserRole(b.ctx, actorOf(a), b.m.ID, v.ID, payd.RoleAdmin); err != nil || u.Role != payd.RoleAdmin {
			t.Fatalf("promote: %+v, %v", u, err)
		}
		if u, err := b.acc.ChangeUserRole(b.ctx, actorOf(a), b.m.ID, a.ID, payd.RoleSupport); err != nil || u.Role != payd.RoleSupport {
			t.Fatalf("demote with another admin: %+v, %v", u, err)
		}
		// a is support now: its actor may no longer manage users.
		_, err = b.acc.DisableUser(b.ctx, actorOf(a), b.m.ID, v.ID)
		wantCode(t, "a demoted admin disables", err, payd.CodeForbidden, "")
		_, err = b.acc.DisableUser(b.ctx, actorOf(v), b.m.ID, v.ID)
		wantCode(t, "disabling the new last admin", err, payd.CodeInvalidState, "")

		users, err := b.acc.ListUsers(b.ctx, b.m.ID)
		if err != nil || len(users) != 2 || users[0].ID != a.ID || users[1].ID != v.ID {
			t.Errorf("ListUsers: %v, %v", users, err)
		}
	})
}

// TestUsedOnceUnderRaces: what must happen once happens once when two
// requests race, on both databases: two admins demoting each other leave
// one admin; a setup token sets one password; a session awaiting a code
// becomes one active session.
func TestUsedOnceUnderRaces(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupUsers(t, be)
		a1 := b.user(t, "a1@example.test", payd.RoleAdmin)
		a2 := b.user(t, "a2@example.test", payd.RoleAdmin)
		race := func(fns ...func() error) (ok int) {
			var wg sync.WaitGroup
			errs := make([]error, len(fns))
			for i, fn := range fns {
				wg.Go(func() { errs[i] = fn() })
			}
			wg.Wait()
			for _, err := range errs {
				if err == nil {
					ok++
				}
			}
			return ok
		}
		demote := func(actor, u *payd.User) func() error {
			return func() error {
				_, err := b.acc.ChangeUserRole(b.ctx, actorOf(actor), b.m.ID, u.ID, payd.RoleViewer)
				return err
			}
		}
		if ok := race(demote(a1, a2), demote(a2, a1)); ok != 1 {
			t.Errorf("%d of two crossed demotions succeeded, want 1", ok)
		}
		users, _ := b.acc.ListUsers(b.ctx, b.m.ID)
		admins := 0
		for _, u := range users {
			if u.Role == payd.RoleAdmin {
				admins++
			}
		}
		if admins != 1 {
			t.Errorf("%d admins after the race, want 1", admins)
		}

		_, tok, err := b.acc.CreateUser(b.ctx, nil, b.m.ID, "n@example.test", payd.RoleViewer)
		if err != nil {
			t.Fatal(err)
		}
		set := func(pw string) func() error {
			return func() error { _, err := b.acc.SetPassword(b.ctx, tok, pw, "192.0.2.1"); return err }
		}
		if ok := race(set("first long password"), set("second long password")); ok != 1 {
			t.Errorf("%d of two uses of one setup token succeeded, want 1", ok)
		}

		secret, _, err := b.acc.BeginTOTP(b.ctx, nil, a1.ID)
		if err != nil {
			t.Fatal(err)
		}
		tok1, _ := b.signIn(t, "a1@example.test")
		if _, _, err := b.acc.ConfirmTOTP(b.ctx, nil, tok1, totpCode(t, secret, b.clock.Now())); err != nil {
			t.Fatal(err)
		}
		b.clock.Advance(2 * time.Minute)
		pending, _ := b.signIn(t, "a1@example.test")
		now := b.clock.Now()
		code := func(d time.Duration) func() error {
			return func() error {
				_, _, err := b.acc.SecondFactor(b.ctx, pending, totpCode(t, secret, now.Add(d)), "192.0.2.1")
				return err
			}
		}
		if ok := race(code(-30*time.Second), code(0)); ok != 1 {
			t.Errorf("%d of two codes for one pending session succeeded, want 1", ok)
		}
	})
}
