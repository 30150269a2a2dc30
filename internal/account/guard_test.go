package account_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/paydtest"
)

// cheapArgon2 keeps the many password checks of these tests fast; the
// rules do not depend on the parameters.
var cheapArgon2 = account.Argon2Params{MemoryKiB: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

func setupGuarded(t *testing.T, be paydtest.Backend) *userBundle {
	return setupUsersWith(t, be, func(c *account.Config) {
		c.Argon2 = &cheapArgon2
		c.PasswordChecks = 64
	})
}

// auditCount counts the merchant's audit entries of action.
func (b *userBundle) auditCount(t *testing.T, action payd.AuditAction) int {
	t.Helper()
	page, err := b.svc.ListAudit(b.ctx, b.m.ID, payd.AuditListParams{ListParams: payd.ListParams{Limit: 100}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range page.Items {
		if e.Action == action {
			n++
		}
	}
	return n
}

// wantLocked checks that err is the refusal of a locked account, to come
// back after wait.
func wantLocked(t *testing.T, what string, err error, wait time.Duration) {
	t.Helper()
	var e *payd.Error
	if !errors.As(err, &e) || e.Code != payd.CodeTooManyRequests || e.RetryAfter != wait {
		t.Fatalf("%s: %v, want too_many_requests for %v", what, err, wait)
	}
}

// TestAccountLocksAfterFailures: ten failed passwords lock an account name
// for fifteen minutes, the next ten, however slow, for thirty, before its
// password is checked; an unknown email is locked exactly as a known one;
// the owner finds the locks in the audit log and the count of failures
// at the next sign-in, and a sign-in starts the count afresh.
func TestAccountLocksAfterFailures(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupGuarded(t, be)
		b.user(t, "owner@example.test", payd.RoleAdmin)
		for _, email := range []string{"owner@example.test", "nobody@example.test"} {
			fail := func(n int) {
				t.Helper()
				for i := range n {
					_, _, err := b.acc.SignIn(b.ctx, email, "not the password", "198.51.100.1", "")
					if !errors.Is(err, account.ErrSignInFailed) {
						t.Fatalf("%s: failure %d: %v, want ErrSignInFailed", email, i+1, err)
					}
				}
			}
			fail(10)
			runs := b.acc.KDFRuns()
			_, _, err := b.acc.SignIn(b.ctx, email, goodPassword, "198.51.100.1", "")
			wantLocked(t, email+": the 11th attempt", err, 15*time.Minute)
			if b.acc.KDFRuns() != runs {
				t.Fatalf("%s: a locked account's password was checked", email)
			}
			b.clock.Advance(10 * time.Minute)
			_, _, err = b.acc.SignIn(b.ctx, email, goodPassword, "198.51.100.1", "")
			wantLocked(t, email+": 10 minutes into the lock", err, 5*time.Minute)
			b.clock.Advance(5 * time.Minute)
			// Guessing slowly does not escape the next lock: ten more
			// failures, two hours apart, lock for twice as long.
			for range 10 {
				fail(1)
				b.clock.Advance(2 * time.Hour)
			}
			_, _, err = b.acc.SignIn(b.ctx, email, goodPassword, "198.51.100.1", "")
			wantLocked(t, email+": the second lock", err, 30*time.Minute)
			b.clock.Advance(30 * time.Minute)
		}
		if n := b.auditCount(t, payd.AuditAccountLocked); n != 2 {
			t.Errorf("%d locks in the audit log, want the known account's 2", n)
		}
		_, ses := b.signIn(t, "owner@example.test")
		if ses.FailedSignIns != 20 {
			t.Errorf("the sign-in after the locks tells of %d failures, want 20", ses.FailedSignIns)
		}
		tok, _ := b.signIn(t, "owner@example.test")
		if got, _, err := b.acc.Session(b.ctx, tok); err != nil || got.FailedSignIns != 0 {
			t.Errorf("the next sign-in: %+v, %v; want no failures told again", got, err)
		}
		// The count starts afresh: ten more failures are allowed, and
		// the lock after them is the first's again.
		for range 10 {
			if _, _, err := b.acc.SignIn(b.ctx, "owner@example.test", "wrong again", "198.51.100.1", ""); !errors.Is(err, account.ErrSignInFailed) {
				t.Fatalf("after a sign-in: %v", err)
			}
		}
		_, _, err := b.acc.SignIn(b.ctx, "owner@example.test", goodPassword, "198.51.100.1", "")
		wantLocked(t, "ten failures after a sign-in", err, 15*time.Minute)
		// A quiet day forgets the failures and the locks.
		b.clock.Advance(25 * time.Hour)
		b.signIn(t, "owner@example.test")
	})
}

// TestAccountBudgetUnderConcurrency: of 60 wrong passwords for one account
// sent at once (from anywhere), the account's budget of 10 is checked and
// the rest are refused before argon2id.
func TestAccountBudgetUnderConcurrency(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupGuarded(t, be)
		b.user(t, "target@example.test", payd.RoleAdmin)
		runs := b.acc.KDFRuns()
		var failed, locked atomic.Int32
		var wg sync.WaitGroup
		for range 60 {
			wg.Go(func() {
				_, _, err := b.acc.SignIn(b.ctx, "target@example.test", "guess", "198.51.100.2", "")
				switch {
				case errors.Is(err, account.ErrSignInFailed):
					failed.Add(1)
				case payd.ErrorCodeOf(err) == payd.CodeTooManyRequests:
					locked.Add(1)
				default:
					t.Errorf("sign-in: %v", err)
				}
			})
		}
		wg.Wait()
		if failed.Load() != 10 || locked.Load() != 50 {
			t.Fatalf("60 at once: %d checked, %d refused; want 10 and 50", failed.Load(), locked.Load())
		}
		if n := b.acc.KDFRuns() - runs; n != 10 {
			t.Fatalf("%d argon2id runs for 60 attempts, want 10", n)
		}
	})
}

// TestPasswordChecksBound: with every password check taken, a sign-in is
// refused at once, before its password or the account is looked at.
func TestPasswordChecksBound(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupUsersWith(t, be, func(c *account.Config) { c.Argon2 = &cheapArgon2; c.PasswordChecks = 3 })
		b.user(t, "busy@example.test", payd.RoleAdmin)
		release := b.acc.HoldPasswordChecks(3)
		runs := b.acc.KDFRuns()
		for range 30 {
			_, _, err := b.acc.SignIn(b.ctx, "busy@example.test", "wrong", "198.51.100.3", "")
			if !errors.Is(err, account.ErrPasswordChecksBusy) {
				t.Fatalf("sign-in with every check taken: %v", err)
			}
		}
		if b.acc.KDFRuns() != runs {
			t.Fatal("a refused sign-in ran argon2id")
		}
		release()
		// None of the refusals counted against the account.
		b.signIn(t, "busy@example.test")
	})
}

// TestWrongCodesEndTheSession: the fifth wrong code ends the session
// awaiting it, every wrong code is in the audit log, and codes count
// against the account with passwords: ten lock it.
func TestWrongCodesEndTheSession(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupGuarded(t, be)
		u := b.user(t, "coded@example.test", payd.RoleAdmin)
		b.enableTOTP(t, u)
		for round := range 2 {
			pending, _ := b.signIn(t, "coded@example.test")
			for i := range 4 {
				if _, _, err := b.acc.SecondFactor(b.ctx, pending, "000000", "198.51.100.4"); !errors.Is(err, account.ErrSecondFactorFailed) {
					t.Fatalf("round %d, wrong code %d: %v", round, i+1, err)
				}
			}
			if _, _, err := b.acc.SecondFactor(b.ctx, pending, "000000", "198.51.100.4"); !errors.Is(err, account.ErrSecondFactorSessionEnded) {
				t.Fatalf("round %d, the fifth wrong code: %v, want the session ended", round, err)
			}
			if _, _, err := b.acc.Session(b.ctx, pending); !errors.Is(err, account.ErrNoSession) {
				t.Fatalf("round %d: the session lives on after five wrong codes: %v", round, err)
			}
		}
		if n := b.auditCount(t, payd.AuditSecondFactorFailed); n != 10 {
			t.Errorf("%d failed codes in the audit log, want 10", n)
		}
		if n := b.auditCount(t, payd.AuditSecondFactorEnded); n != 2 {
			t.Errorf("%d ended sign-ins in the audit log, want 2", n)
		}
		_, _, err := b.acc.SignIn(b.ctx, "coded@example.test", goodPassword, "198.51.100.4", "")
		wantLocked(t, "the password after ten wrong codes", err, 15*time.Minute)
	})
}

// TestCodesAtOnce: wrong codes sent at once to one waiting session are
// checked one by one: five, and the session is gone.
func TestCodesAtOnce(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupGuarded(t, be)
		u := b.user(t, "rush@example.test", payd.RoleAdmin)
		b.enableTOTP(t, u)
		pending, _ := b.signIn(t, "rush@example.test")
		var checked atomic.Int32
		var wg sync.WaitGroup
		for range 100 {
			wg.Go(func() {
				_, _, err := b.acc.SecondFactor(b.ctx, pending, "000000", "198.51.100.5")
				if errors.Is(err, account.ErrSecondFactorFailed) || errors.Is(err, account.ErrSecondFactorSessionEnded) {
					checked.Add(1)
				} else if !errors.Is(err, account.ErrNoSession) {
					t.Errorf("code: %v", err)
				}
			})
		}
		wg.Wait()
		if checked.Load() != 5 {
			t.Fatalf("100 codes at once: %d checked, want 5", checked.Load())
		}
	})
}

// enableTOTP turns u's second factor on, as u would from a session, and
// returns its secret.
func (b *userBundle) enableTOTP(t *testing.T, u *payd.User) string {
	t.Helper()
	tok, _ := b.signIn(t, u.Email)
	secret, _, err := b.acc.BeginTOTP(b.ctx, actorOf(u), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.acc.ConfirmTOTP(b.ctx, actorOf(u), tok, totpCode(t, secret, b.clock.Now())); err != nil {
		t.Fatal(err)
	}
	return secret
}

// BenchmarkSignInFailure times failed sign-ins of a known account and of
// unknown emails, taken in turn, on each database, with the production
// argon2id parameters: their medians must not tell an account exists
// (docs/benchmarks-history.md). Each email is tried once, as a guesser going
// down a list would: the guard of each is new, known or not.
//
//	go test -run '^$' -bench SignInFailure -benchtime 400x ./internal/account/
func BenchmarkSignInFailure(b *testing.B) {
	for _, be := range paydtest.Backends(b) {
		b.Run(be.Name, func(b *testing.B) {
			u := setupUsersWith(b, be, nil)
			for i := 0; i < b.N; i += 2 {
				u.user(b, fmt.Sprintf("known%d@example.test", i), payd.RoleViewer)
			}
			var times [2][]time.Duration
			b.ResetTimer()
			for i := range b.N {
				email := fmt.Sprintf("known%d@example.test", i)
				if i%2 == 1 {
					email = fmt.Sprintf("unknown%d@example.test", i)
				}
				began := time.Now()
				_, _, err := u.acc.SignIn(u.ctx, email, "not the password", "198.51.100.9", "")
				times[i%2] = append(times[i%2], time.Since(began))
				if !errors.Is(err, account.ErrSignInFailed) {
					b.Fatal(err)
				}
			}
			for i, name := range []string{"known", "unknown"} {
				if len(times[i]) > 0 {
					slices.Sort(times[i])
					b.ReportMetric(float64(times[i][len(times[i])/2].Microseconds())/1000, name+"-median-ms")
				}
			}
		})
	}
}

// TestSetupLinkLiftsTheLock: an administrator's setup link, used, lifts the
// lock failed guesses put on the account: its owner signs in at once.
func TestSetupLinkLiftsTheLock(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		b := setupGuarded(t, be)
		u := b.user(t, "locked@example.test", payd.RoleViewer)
		for range 11 {
			b.acc.SignIn(b.ctx, u.Email, "guess", "198.51.100.6", "")
		}
		_, _, err := b.acc.SignIn(b.ctx, u.Email, goodPassword, "198.51.100.6", "")
		wantLocked(t, "the owner while locked", err, 15*time.Minute)
		tok, err := b.acc.NewSetupToken(b.ctx, nil, b.m.ID, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.acc.SetPassword(b.ctx, tok, "a brand new passphrase", "192.0.2.7"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.acc.SignIn(b.ctx, u.Email, "a brand new passphrase", "192.0.2.7", ""); err != nil {
			t.Fatalf("sign-in after the setup link: %v", err)
		}
	})
}
