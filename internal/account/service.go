package account

import (
	"cmp"
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/paydhq/payd"
)

// Config assembles a Service.
type Config struct {
	Store payd.Store
	// Clock is the service clock (nil: the wall clock): users' and audit
	// entries' times. What a person at a browser lives by reads the wall
	// clock when it is a test clock (Service.sessionNow).
	Clock payd.Clock
	// IDs makes the identifiers (nil: payd.NewIDGen()); the wiring passes
	// the domain service's.
	IDs *payd.IDGen
	// PublicURL and SetupPath make a setup link: PublicURL + SetupPath +
	// token, SetupPath being the dashboard's page that takes it.
	PublicURL string
	SetupPath string
	// Argon2 are the parameters of new password hashes; nil means
	// DefaultArgon2.
	Argon2 *Argon2Params
	// PasswordChecks bounds how many argon2id runs (sign-ins, passwords
	// set) run at once; past it a sign-in is refused at once with
	// ErrPasswordChecksBusy. Zero means DefaultPasswordChecks.
	PasswordChecks int
	// Sessions bounds sessions; zero fields take the defaults.
	Sessions SessionPolicy
	// SignIn bounds the guessing of one account; zero fields take
	// DefaultSignInPolicy's.
	SignIn SignInPolicy
}

// Service signs people in and keeps their accounts. Adapters call its
// methods; it talks to storage only through payd.Store, in transactions
// of its own.
type Service struct {
	store     payd.Store
	clock     payd.Clock
	ids       *payd.IDGen
	setupBase string

	// sessions bounds sessions; signIn is the per-account policy.
	sessions SessionPolicy
	signIn   SignInPolicy
	// argon2 hashes new passwords; dummy is what sign-in verifies when
	// there is no hash, and kdfRuns counts argon2id runs (tests see the
	// dummy verification with it).
	argon2  Argon2Params
	dummy   dummyHash
	kdfRuns atomic.Int64
	// kdfSlots holds a token per argon2id run in progress.
	kdfSlots chan struct{}
	// users and staff are the kinds of account (kind.go).
	users users
	staff staffKind
}

// New returns a Service over cfg.
func New(cfg Config) *Service {
	s := &Service{store: cfg.Store, clock: cfg.Clock, ids: cfg.IDs, setupBase: cfg.PublicURL + cfg.SetupPath,
		sessions: cfg.Sessions.withDefaults(), signIn: cfg.SignIn.withDefaults(), argon2: DefaultArgon2()}
	if s.clock == nil {
		s.clock = payd.SystemClock{}
	}
	s.users, s.staff = users{s}, staffKind{s}
	if s.ids == nil {
		s.ids = payd.NewIDGen()
	}
	// An operator's change of a merchant's users commits with its entry
	// in the operator audit log, as the domain's changes do.
	s.store = payd.OperatorAudited(s.store, s.ids, s.clock)
	if cfg.Argon2 != nil {
		s.argon2 = *cfg.Argon2
	}
	s.kdfSlots = make(chan struct{}, cmp.Or(cfg.PasswordChecks, DefaultPasswordChecks(s.argon2)))
	return s
}

// sessionNow is the time of what a person at a browser lives by: sessions'
// stamps and timeouts, setup links' expiry, the sign-in guard's windows
// and locks, authenticator codes. It is the service clock, except the
// wall clock when that is a test clock (`serve --test-clock`). A test clock is the sandboxes' time, every
// merchant's on the instance, moved by hours or days; a session is a
// person at a browser, whose idle and absolute timeouts are real time. On
// the test clock a move would end every session of every merchant (or,
// for one opened after a move, let it outlive its timeouts).
func (s *Service) sessionNow() time.Time {
	if _, ok := s.clock.(*payd.TestClock); ok {
		return payd.SystemClock{}.Now()
	}
	return s.clock.Now()
}

// audit appends to tx the audit entry of a change of a merchant's
// accounts, at the service clock's time.
func (s *Service) audit(ctx context.Context, tx payd.Tx, actor *payd.Actor, merchantID string, action payd.AuditAction, objectID string) error {
	return tx.AuditInsert(ctx, payd.NewAuditEntry(s.ids, s.clock.Now(), actor, merchantID, action, objectID))
}

// view runs fn in a read-only view of the store and returns what it read;
// an internal error leaves named by op, as the domain's reads do.
func view[T any](ctx context.Context, s *Service, op string, fn func(tx payd.Tx) (T, error)) (out T, err error) {
	err = s.store.View(ctx, func(tx payd.Tx) (err error) {
		out, err = fn(tx)
		return err
	})
	return out, withOp(op, err)
}

// withOp names the operation an internal error came from as it leaves the
// service, as the domain's errors are named (payd.OpError); a contract
// error (*payd.Error) is the answer itself and goes out as it is.
func withOp(op string, err error) error {
	var e *payd.Error
	if err == nil || errors.As(err, &e) {
		return err
	}
	return &payd.OpError{Op: op, Err: err}
}

// notFoundAs is err, except that no rows is the contract's not_found of
// kind.
func notFoundAs(err error, kind string) error {
	if errors.Is(err, payd.ErrNoRows) {
		return payd.NotFound(kind)
	}
	return err
}

// noRowsAsNil is err, except that no rows is no error.
func noRowsAsNil(err error) error {
	if errors.Is(err, payd.ErrNoRows) {
		return nil
	}
	return err
}
