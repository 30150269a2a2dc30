package payd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/paydhq/payd/internal/mac"
	"github.com/paydhq/payd/money"
)

// Stage is a delivery stage of the contract, as a service serves it.
// Operations of a later stage than the service's are declared and answer
// `501 not_implemented` naming their stage (Stage availability).
type Stage int

// Stages of the roadmap: M1 is the core contract; disputes arrive in M2,
// payment links and payouts in M5. A build implements up to BuiltStage and
// serves the stage `payd serve --stage` names.
const (
	StageM1 Stage = 1
	StageM2 Stage = 2
	StageM5 Stage = 5
)

// Config assembles a Service.
type Config struct {
	Store  Store
	Clock  Clock
	Jobs   Jobs
	Logger *slog.Logger
	// Stage is the stage the service serves (`payd serve --stage`), at
	// most BuiltStage; zero means StageM1.
	Stage Stage
	// WebhookAllowHosts are exact hosts an operator allows for webhook
	// endpoints despite the public-address rule (local development).
	WebhookAllowHosts []string
	// PublicURL is the base of links handed out (checkout pages), and
	// Paths say where under it the adapters serve them.
	PublicURL string
	Paths     Paths
	// Providers are the providers of test payments (the sandbox banks), and
	// TestRoute orders them per payment without reading storage.
	Providers []Provider
	TestRoute Route
	// LiveProviders are the adapters live payments may be routed to; the
	// operator's routing table orders them per payment. Names are unique
	// across Providers and LiveProviders.
	LiveProviders []Provider
	// TestPayoutProvider sends test payouts (the sandbox);
	// LivePayoutProviders are the adapters live payouts may be routed to
	// by the operator's routing table (methods payout_card, payout_sbp,
	// payout_bank_account). Names are unique among payout providers.
	TestPayoutProvider  PayoutProvider
	LivePayoutProviders []PayoutProvider
	// Sender posts webhook deliveries.
	Sender Sender
	// ReportKey signs settlement report links and evidence upload links.
	ReportKey []byte
	// DeliveriesQueued is called after a commit that queued webhook
	// deliveries, and by KickDeliveries: the dispatcher's Kick, so that it
	// sends them at once rather than at its next poll. Nil: nothing is
	// woken (a service without a dispatcher, such as a migration).
	DeliveriesQueued func()
	// TraceCarrierFunc, when set, returns the trace context of ctx in the
	// W3C form ("traceparent", "tracestate"), or nil when ctx has none.
	// A delivery keeps it from the change that queued it, so that its
	// first attempt continues that change's trace after the asynchronous
	// gap. Nil (tracing off): deliveries keep nothing.
	TraceCarrierFunc func(ctx context.Context) map[string]string
	// ProviderCallFunc, when set, is called before each call to a payment
	// or payout provider (op: create_attempt, capture, void, status,
	// refund, accept_payout, payout_status) and returns the context to
	// make the call with and what to call with its error once it returned.
	// Tracing gives each call a client span this way, whatever the
	// provider. Nil: calls are made with the caller's context.
	ProviderCallFunc func(ctx context.Context, provider, op string) (context.Context, func(error))
	// IDs makes the service's identifiers (nil: NewIDGen()).
	IDs *IDGen
	// HoldIdempotentFunc, when set, is called while a request holds its
	// idempotency key, before the effect. Tests use it to keep a request in
	// flight; production leaves it nil.
	HoldIdempotentFunc func(key string)
	// WaitIdempotentFunc, when set, is called each time a request finds
	// its idempotency key held by another in flight (it answers, or its
	// adapter waits, idempotency_in_progress) or its shop's sandbox being
	// reset (it waits): tests wait for a request to have come to that
	// rather than sleep. Production leaves it nil.
	WaitIdempotentFunc func(key string)
	// SandboxResetStepFunc, when set, is called by a sandbox reset before
	// it deletes each kind (tests only: a request can be sent into the
	// middle of a reset).
	SandboxResetStepFunc func(kind SandboxKind)
	// SandboxWait bounds how long a change of test data waits for a
	// reset of its shop's sandbox before it answers 503; zero is
	// DefaultSandboxWait. Tests shorten it.
	SandboxWait time.Duration
	// SandboxBatching sizes a sandbox reset's batches as the store says
	// suits it (sqlstore's Store.SandboxBatching); the zero value keeps
	// them at SandboxResetBatch.
	SandboxBatching SandboxBatching
}

// Service holds the business rules. Adapters call its methods; it talks to
// storage only through Store.
type Service struct {
	store             Store
	clock             Clock
	jobs              Jobs
	log               *slog.Logger
	ids               *IDGen
	deliveriesQueued  func()
	traceCarrier      func(ctx context.Context) map[string]string
	providerCallFunc  func(ctx context.Context, provider, op string) (context.Context, func(error))
	stage             Stage
	webhookAllowHosts []string
	holdIdempotent    func(key string)
	waitIdempotent    func(key string)
	sandboxResetStep  func(kind SandboxKind)
	sandboxWait       time.Duration
	sandboxBatching   SandboxBatching
	publicURL         string
	paths             Paths
	providers         map[string]Provider
	providerNames     []string
	live              map[string]bool
	testRoute         Route
	// payoutProviders are the payout providers by name; livePayout marks
	// the live ones, testPayoutProvider names the sandbox.
	payoutProviders    map[string]PayoutProvider
	livePayout         map[string]bool
	testPayoutProvider string
	payoutNames        []string
	sender             Sender
	// reportLinks and uploadLinks sign the settlement report links and
	// the evidence upload links, both under the report key. Report links
	// sign without a label, as they did before labels: their messages
	// have two fields (id, expiry) and upload links' three (label, id,
	// expiry), so neither passes for the other.
	reportLinks, uploadLinks mac.Signer

	// auth caches shops and keys for Authenticate.
	auth *authCache
	// keyUses throttles the recording of keys' last use.
	keyUses keyUses
	// settleMarks are the settlement days found stored (settlement_day.go).
	settleMarks dayMarks
	// reseal is where resealing stands (reseal.go).
	reseal resealState

	// inflight holds the idempotency keys being executed by this process,
	// so a parallel replay answers idempotency_in_progress at once instead
	// of waiting for the first request's transaction.
	inflight sync.Map

	// clockMu makes a sandbox's move of the test clock one step: the
	// check of the lead it saw, the audit entry and the move
	// (AdvanceTestClock).
	clockMu sync.Mutex
}

// Paths are where, under Config.PublicURL, the adapters serve the pages
// and files the service hands out links to: each is the prefix the
// object's token or id follows. The wiring (package serve) takes them from
// the packages that register those routes, so that an address is written
// in one place.
type Paths struct {
	// Checkout is a payment's hosted page: Checkout + token.
	Checkout string
	// EvidenceUpload takes an evidence file's bytes: EvidenceUpload +
	// file id, with the link's expiry and signature.
	EvidenceUpload string
	// SettlementReport is a settlement's CSV register: SettlementReport +
	// settlement id + ".csv", with the link's expiry and signature.
	SettlementReport string
	// Link is a payment link's page: Link + link id.
	Link string
}

// NewService returns a Service over cfg.
func NewService(cfg Config) *Service {
	s := &Service{
		store: cfg.Store, clock: cfg.Clock, jobs: cfg.Jobs, log: cfg.Logger,
		ids: cfg.IDs, stage: cfg.Stage, webhookAllowHosts: cfg.WebhookAllowHosts,
		holdIdempotent: cfg.HoldIdempotentFunc, waitIdempotent: cfg.WaitIdempotentFunc, sandboxResetStep: cfg.SandboxResetStepFunc, sandboxWait: cfg.SandboxWait, sandboxBatching: cfg.SandboxBatching, publicURL: cfg.PublicURL, paths: cfg.Paths,
		providers: map[string]Provider{}, live: map[string]bool{}, testRoute: cfg.TestRoute,
		sender: cfg.Sender, auth: newAuthCache(AuthCacheTTL),
	}
	if s.ids == nil {
		s.ids = NewIDGen()
	}
	s.reportLinks = mac.New(cfg.ReportKey, "")
	s.uploadLinks = mac.New(cfg.ReportKey, "evidence-upload")
	for i, list := range [][]Provider{cfg.Providers, cfg.LiveProviders} {
		for _, pr := range list {
			name := pr.Name()
			if _, dup := s.providers[name]; dup || name == "" {
				// A wiring mistake of the build, not a runtime condition:
				// serve refuses such a configuration before it gets here.
				panic("payd: provider name " + strconv.Quote(name) + " is empty or registered twice")
			}
			s.providers[name] = pr
			s.providerNames = append(s.providerNames, name)
			s.live[name] = i == 1
		}
	}
	s.payoutProviders, s.livePayout = map[string]PayoutProvider{}, map[string]bool{}
	addPayout := func(pr PayoutProvider, live bool) {
		name := pr.Name()
		if _, dup := s.payoutProviders[name]; dup || name == "" {
			panic("payd: payout provider name " + strconv.Quote(name) + " is empty or registered twice")
		}
		s.payoutProviders[name], s.livePayout[name] = pr, live
		s.payoutNames = append(s.payoutNames, name)
	}
	if cfg.TestPayoutProvider != nil {
		s.testPayoutProvider = cfg.TestPayoutProvider.Name()
		addPayout(cfg.TestPayoutProvider, false)
	}
	for _, pr := range cfg.LivePayoutProviders {
		addPayout(pr, true)
	}
	if s.testRoute == nil {
		s.testRoute = func(Region, string, money.Currency) []string { return nil }
	}
	if s.clock == nil {
		s.clock = SystemClock{}
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	// An operator's change commits with its audit entry (operator_audit.go).
	s.store = OperatorAudited(s.store, s.ids, s.clock)
	s.deliveriesQueued = cfg.DeliveriesQueued
	s.traceCarrier = cfg.TraceCarrierFunc
	s.providerCallFunc = cfg.ProviderCallFunc
	if s.deliveriesQueued == nil {
		s.deliveriesQueued = func() {}
	}
	if s.stage == 0 {
		s.stage = StageM1
	}
	return s
}

// Clock returns the service clock.
func (s *Service) Clock() Clock { return s.clock }

// Stage returns the build's stage.
func (s *Service) Stage() Stage { return s.stage }

// Store returns the service's store, for read paths of adapters (health).
func (s *Service) Store() Store { return s.store }

var (
	errInProgress = &Error{Code: CodeIdempotencyInProgress, Message: "a request with this Idempotency-Key is still being processed; retry in a second or two"}
	errIdemConfl  = &Error{Code: CodeIdempotencyConflict, Message: "this Idempotency-Key was used with a different request"}
)

// idempotent runs fn once per idempotency key of the principal: the effect
// of fn, the record of its answer and everything fn writes commit in one
// transaction. A replay with the same request gets the first answer's
// body with OutcomeOK; a different request under the key gets idempotency_conflict;
// a replay while the first runs gets idempotency_in_progress.
//
// A change of a shop's test data waits while the shop's sandbox is being
// reset (ResetSandbox), and then runs on what the reset left: it lands
// wholly after the reset. After Config.SandboxWait it answers 503 to be retried.
func (s *Service) idempotent(ctx context.Context, op AuditAction, p *Principal, idem Idempotency, fn func(tx Tx) (Outcome, any, error)) (*Response, error) {
	return s.idempotentRun(ctx, op, p, idem, false, fn)
}

// claimed is idempotent for an effect that does nothing outside the store
// before its first statement has answered: its key is claimed with that
// statement, or with the commit (Tx.IdempotencyClaim), which on PostgreSQL
// saves the round trip of the key's lock. A key that is not free — a
// replay, a request in flight, a sandbox reset — costs the claimed
// transaction, rolled back, before the usual one.
func (s *Service) claimed(ctx context.Context, op AuditAction, p *Principal, idem Idempotency, fn func(tx Tx) (Outcome, any, error)) (*Response, error) {
	return s.idempotentRun(ctx, op, p, idem, true, fn)
}

func (s *Service) idempotentRun(ctx context.Context, op AuditAction, p *Principal, idem Idempotency, claim bool, fn func(tx Tx) (Outcome, any, error)) (*Response, error) {
	// Wall time, not the service clock: the wait is for another request
	// of this process or another, which a test clock does not move.
	wait := s.sandboxWait
	if wait <= 0 {
		wait = DefaultSandboxWait
	}
	deadline := time.Now().Add(wait)
	for {
		resp, err := s.idempotentOnce(ctx, op, p, idem, claim, fn)
		if s.waitIdempotent != nil && (errors.Is(err, ErrSandboxResetting) || errors.Is(err, errInProgress)) {
			s.waitIdempotent(idem.Key)
		}
		if !errors.Is(err, ErrSandboxResetting) {
			return resp, err
		}
		if time.Now().After(deadline) {
			return nil, withOp(string(op), &Error{Code: CodeProviderUnavailable, Cause: CauseSandboxReset, Message: "the shop's sandbox is being reset; retry in a moment", RetryAfter: time.Second})
		}
		select {
		case <-ctx.Done():
			return nil, withOp(string(op), ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (s *Service) idempotentOnce(ctx context.Context, op AuditAction, p *Principal, idem Idempotency, claim bool, fn func(tx Tx) (Outcome, any, error)) (resp *Response, err error) {
	defer func() { err = withOp(string(op), err) }()
	flight := p.Shop.ID + "\x00" + string(p.Mode) + "\x00" + idem.Key
	if _, busy := s.inflight.LoadOrStore(flight, struct{}{}); busy {
		return nil, errInProgress
	}
	defer s.inflight.Delete(flight)

	resp, recorded, err := s.idempotentTx(ctx, op, p, idem, claim, fn)
	if claim && errors.Is(err, ErrClaimRefused) {
		// The key was not free: recorded, taken by a request in flight,
		// or its shop's sandbox being reset. The lock's way tells which.
		resp, recorded, err = s.idempotentTx(ctx, op, p, idem, false, fn)
	}
	if err == nil {
		return resp, nil
	}
	if recorded && errors.Is(err, ErrConflict) {
		// The store may send the record with the COMMIT, which then
		// reports the conflict (Tx.IdempotencyPut).
		err = errKeyTaken
	}
	// On PostgreSQL the record is read in the snapshot of the statement
	// that takes the lock, so another instance may have committed the key
	// between that snapshot and the lock. Its effect then shows here as a
	// refused record (errKeyTaken) or as a rule the first request's effect
	// now breaks (duplicate_order_id or ErrOrderIDTaken, invalid_state).
	// Both roll back; the key's committed record, read afresh, is the true
	// answer. Requests that fail on their own find no record and keep
	// their error.
	var pe *Error
	if errors.Is(err, errKeyTaken) || errors.Is(err, ErrOrderIDTaken) || (errors.As(err, &pe) && pe != errInProgress && pe != errIdemConfl && pe != ErrForbidden) {
		if r, rerr := s.committedAnswer(ctx, p, idem); rerr != nil || r != nil {
			return r, rerr
		}
		if errors.Is(err, errKeyTaken) {
			return nil, errInProgress
		}
	}
	return nil, err
}

// idempotentTx is one transaction of idempotent: the key's claim or its
// lock and record, then the replay of a live record, or the effect with
// its record.
func (s *Service) idempotentTx(ctx context.Context, op AuditAction, p *Principal, idem Idempotency, claim bool, fn func(tx Tx) (Outcome, any, error)) (resp *Response, recorded bool, err error) {
	err = s.store.Tx(ctx, func(tx Tx) error {
		claimed := false
		if claim {
			// The claim goes first: on PostgreSQL it rides with the
			// transaction's first statement (Tx.IdempotencyClaim).
			var err error
			if claimed, err = tx.IdempotencyClaim(ctx, p.Shop.ID, p.Mode, idem.Key); err != nil {
				return err
			}
		}
		// A user whose role does not allow the operation gets no replay
		// either: the answer may hold what the role does not show.
		if err := s.permit(ctx, tx, p, op); err != nil {
			return err
		}
		now := s.clock.Now()
		if !claimed {
			// The lock keeps another instance from running the same
			// key (PostgreSQL); the record is read in the same
			// statement. With a test key it also holds the shop's
			// sandbox fence, and reports a reset under way
			// (ErrSandboxResetting).
			rec, locked, err := tx.IdempotencyLockGet(ctx, p.Shop.ID, p.Mode, idem.Key)
			if err != nil {
				return err
			}
			if !locked {
				return errInProgress
			}
			if rec != nil && now.Before(rec.ExpiresAt) {
				resp, err = replay(rec, idem)
				return err
			}
		}
		if s.holdIdempotent != nil {
			s.holdIdempotent(idem.Key)
		}
		outcome, obj, err := fn(tx)
		if err != nil {
			return err
		}
		obj, objectID, detail := auditedAnswer(obj)
		var body []byte
		if obj != nil {
			if body, err = json.Marshal(obj); err != nil {
				return err
			}
		}
		resp = &Response{Outcome: outcome, Body: body, answer: obj}
		if p.Actor != nil {
			// A change made through the dashboard: its audit entry
			// commits with it, and a replay (answered above) writes none.
			if err := s.auditIdempotent(ctx, tx, p, op, body, objectID, detail); err != nil {
				return err
			}
		}
		recorded = true
		err = tx.IdempotencyPut(ctx, &IdempotencyRecord{
			ShopID: p.Shop.ID, Mode: p.Mode, Key: idem.Key, RequestHash: idem.Hash,
			Outcome: outcome, Body: body, CreatedAt: now, ExpiresAt: now.Add(IdempotencyTTL),
		})
		if errors.Is(err, ErrConflict) {
			return errKeyTaken
		}
		return err
	})
	return resp, recorded, err
}

// errKeyTaken is idempotent's own signal that the key's record appeared
// after it looked; it never leaves idempotent.
var errKeyTaken = errors.New("idempotency key recorded by another transaction")

// replay answers a request whose key has a live record.
func replay(rec *IdempotencyRecord, idem Idempotency) (*Response, error) {
	if !bytes.Equal(rec.RequestHash, idem.Hash) {
		return nil, errIdemConfl
	}
	return &Response{Outcome: OutcomeOK, Body: rec.Body, Replayed: true}, nil
}

// committedAnswer is the replay of the key's live committed record, or nil
// when there is none.
func (s *Service) committedAnswer(ctx context.Context, p *Principal, idem Idempotency) (*Response, error) {
	var rec *IdempotencyRecord
	err := s.store.View(ctx, func(tx Tx) (err error) {
		rec, err = tx.IdempotencyGet(ctx, p.Shop.ID, p.Mode, idem.Key)
		return err
	})
	if errors.Is(err, ErrNoRows) || (err == nil && !s.clock.Now().Before(rec.ExpiresAt)) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return replay(rec, idem)
}

// PurgeIdempotency deletes expired idempotency records; a periodic job
// runs it. It deletes in batches, each its own transaction.
func (s *Service) PurgeIdempotency(ctx context.Context) (int64, error) {
	now := s.clock.Now()
	return s.purge(ctx, func(tx Tx) (int64, error) { return tx.IdempotencyDeleteExpired(ctx, now, purgeBatch) })
}

// PurgeEvents deletes events past the retention of one year; a periodic job
// runs it. It deletes in batches, each its own transaction.
func (s *Service) PurgeEvents(ctx context.Context) (int64, error) {
	before := s.clock.Now().Add(-EventRetention)
	return s.purge(ctx, func(tx Tx) (int64, error) { return tx.EventDeleteBefore(ctx, before, purgeBatch) })
}

// purge runs batch in batches of purgeBatch rows (PurgeInBatches).
func (s *Service) purge(ctx context.Context, batch func(tx Tx) (int64, error)) (int64, error) {
	return PurgeInBatches(ctx, s.store, func(tx Tx, _ int) (int64, error) { return batch(tx) })
}

func notFoundAs(err error, kind string) error {
	if errors.Is(err, ErrNoRows) {
		return NotFound(kind)
	}
	return err
}

// read runs fn in a read-only view of the store and returns what it read:
// the one shape of every Get and List of the service. An internal error
// leaves named by op ("get payment: ..."), as an idempotent operation's
// does, so that the log and the trace say which read failed; a contract
// error (not_found, provider_unavailable...) is the answer and goes out
// as it is.
func read[T any](ctx context.Context, s *Service, op string, fn func(tx Tx) (T, error)) (out T, err error) {
	err = s.store.View(ctx, func(tx Tx) (err error) {
		out, err = fn(tx)
		return err
	})
	return out, withOp(op, err)
}
