package account

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/paydhq/payd"
)

// SignInPolicy bounds the guessing of one account's password and codes.
type SignInPolicy struct {
	// Every Failures failures lock the account for Lock, doubling with
	// each lock up to MaxLock, until a sign-in. However slowly they come:
	// only Window without any attempt forgets them.
	Failures int
	Window   time.Duration
	Lock     time.Duration
	MaxLock  time.Duration
	// CodeFailures wrong codes end a session awaiting the second factor:
	// its visitor must give the password again.
	CodeFailures int
}

// DefaultSignInPolicy returns the policy of a service that sets none: ten
// failures lock an account for fifteen minutes, the next ten for thirty,
// then an hour... up to a day, until a sign-in, so a weak password faces
// about seventy guesses in a first day and ten a day after, whatever their
// pace or the number of addresses guessing (docs/security.md). A day
// without any attempt forgets the failures. It is a function, not a
// variable, so that no package can change the default of every service.
func DefaultSignInPolicy() SignInPolicy {
	return SignInPolicy{Failures: 10, Window: 24 * time.Hour, Lock: 15 * time.Minute, MaxLock: 24 * time.Hour, CodeFailures: 5}
}

func (p SignInPolicy) withDefaults() SignInPolicy {
	d := DefaultSignInPolicy()
	return SignInPolicy{Failures: cmp.Or(p.Failures, d.Failures), Window: cmp.Or(p.Window, d.Window),
		Lock: cmp.Or(p.Lock, d.Lock), MaxLock: cmp.Or(p.MaxLock, d.MaxLock), CodeFailures: cmp.Or(p.CodeFailures, d.CodeFailures)}
}

// signInGuardPurgeAfter is how long a guard untouched is kept: longer than
// a lock and the policy's window, so a purge changes no answer, but short
// enough that every guessed email (most belong to no one) is gone in two
// days. The notice of failures at the next sign-in reaches back this far;
// the audit log keeps the failures of an account for good.
const signInGuardPurgeAfter = 48 * time.Hour

// guardKey is the stored name of an account name of a kind: a staff
// member and a dashboard user of one email are two accounts, guarded
// apart.
func guardKey(k payd.AccountKind, email string) string {
	name := "signin:" + NormalizeEmail(email)
	if k != payd.AccountUser {
		name = "signin:" + string(k) + ":" + NormalizeEmail(email)
	}
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])
}

// guard is a stored payd.SignInGuard with its rules.
type guard payd.SignInGuard

// take counts one attempt at now. While the account is locked, or when the
// window's failures are spent (which locks it), it refuses, saying how
// long until the lock ends; locked reports that this call began a lock.
func (g *guard) take(now time.Time, p SignInPolicy) (ok, locked bool, retryAfter time.Duration) {
	g.UpdatedAt = now
	if !g.LockedUntil.IsZero() {
		if now.Before(g.LockedUntil) {
			return false, false, g.LockedUntil.Sub(now)
		}
		// The lock is over: ten more tries. Lockouts stays, so the
		// next lock is longer.
		g.Failures, g.LockedUntil = 0, time.Time{}
	}
	if !g.WindowStart.IsZero() && now.Sub(g.WindowStart) >= p.Window {
		// A quiet day: the account is not being guessed at.
		g.Failures, g.Lockouts = 0, 0
	}
	g.WindowStart = now
	if g.Failures >= p.Failures {
		lock := min(p.Lock<<min(g.Lockouts, 20), p.MaxLock)
		g.LockedUntil = now.Add(lock)
		g.Lockouts++
		return false, true, lock
	}
	g.Failures++
	g.SinceSignIn++
	return true, false, 0
}

// giveBack undoes take's count: the attempt was right.
func (g *guard) giveBack() {
	g.Failures = max(0, g.Failures-1)
	g.SinceSignIn = max(0, g.SinceSignIn-1)
}

// failed records where a failure came from.
func (g *guard) failed(now time.Time, addr string) {
	g.LastFailureAt, g.LastFailureAddr, g.UpdatedAt = now, addr, now
}

// signedIn clears the guard once the account is fully signed in; it
// returns the failures since the previous sign-in, for the notice.
func (g *guard) signedIn(now time.Time) int {
	n := max(0, g.SinceSignIn-1) // this sign-in's own attempt is no failure
	g.Failures, g.Lockouts, g.LockedUntil, g.SinceSignIn, g.UpdatedAt = 0, 0, time.Time{}, 0, now
	return n
}

// errAccountLocked answers an attempt on an account locked by its failures.
// It says nothing of whether the account exists: unknown emails lock too.
func errAccountLocked(retryAfter time.Duration) error {
	return &payd.Error{Code: payd.CodeTooManyRequests, RetryAfter: retryAfter,
		Message: "too many failed sign-ins to this account; retry after the Retry-After seconds"}
}

// takeGuard counts one attempt on the account name email in its own
// transaction, before the attempt is checked. A lock it begins is
// recorded in the kind's audit log when the account exists (h is nil
// otherwise).
func (s *Service) takeGuard(ctx context.Context, k kind, email string, h *holder, addr string) error {
	var refused error
	err := s.store.Tx(ctx, func(tx payd.Tx) (err error) {
		refused, err = s.takeGuardTx(ctx, tx, k, email, h, addr)
		return err
	})
	if err != nil {
		return withOp("sign in", err)
	}
	return refused
}

// takeGuardTx is takeGuard within tx; refused is the answer when the
// account is locked (the guard's change is still to be committed).
func (s *Service) takeGuardTx(ctx context.Context, tx payd.Tx, k kind, email string, h *holder, addr string) (refused error, err error) {
	g, err := tx.SignInGuardLock(ctx, guardKey(k.name(), email))
	if err != nil {
		return nil, err
	}
	ok, locked, wait := (*guard)(g).take(s.sessionNow(), s.signIn)
	if !ok {
		refused = errAccountLocked(wait)
	}
	if locked && h != nil {
		if err := k.record(ctx, tx, h, addr, evAccountLocked, h.id); err != nil {
			return nil, err
		}
	}
	return refused, tx.SignInGuardPut(ctx, g)
}

// updateGuard changes the guard of the account name email of kind k under
// its lock and stores it, in tx.
func updateGuard(ctx context.Context, tx payd.Tx, k kind, email string, change func(g *guard)) error {
	g, err := tx.SignInGuardLock(ctx, guardKey(k.name(), email))
	if err != nil {
		return err
	}
	change((*guard)(g))
	return tx.SignInGuardPut(ctx, g)
}

// PurgeSignInGuards deletes the guards untouched for signInGuardPurgeAfter, in batches;
// a periodic job runs it.
func (s *Service) PurgeSignInGuards(ctx context.Context) (n int64, err error) {
	before := s.sessionNow().Add(-signInGuardPurgeAfter)
	return payd.PurgeInBatches(ctx, s.store, func(tx payd.Tx, limit int) (int64, error) {
		return tx.SignInGuardDeleteBefore(ctx, before, limit)
	})
}
