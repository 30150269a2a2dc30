// Package serve assembles a running payd from its parts — store, job queue,
// service, merchant and operator APIs — in order, by hand. cmd/payd and the
// end-to-end tests both build the service through New, so the tests run
// exactly what ships.
package serve

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"time"

	"github.com/paydhq/payd/internal/checkout"
	"github.com/paydhq/payd/internal/dashboard"
	"github.com/paydhq/payd/internal/embed"
	"github.com/paydhq/payd/internal/linkpage"
	"github.com/paydhq/payd/internal/sandbank"
	"github.com/paydhq/payd/internal/sandpayout"
	"github.com/paydhq/payd/internal/seal"
	"github.com/paydhq/payd/internal/sender"
	"github.com/paydhq/payd/money"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel/trace"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/api"
	"github.com/paydhq/payd/internal/dispatch"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/internal/jobs"
	"github.com/paydhq/payd/internal/office"
	"github.com/paydhq/payd/internal/operator"
	"github.com/paydhq/payd/internal/ratelimit"
	"github.com/paydhq/payd/internal/sqlstore"
	"github.com/paydhq/payd/internal/tracing"
)

// Config is what `payd serve` is told.
type Config struct {
	DatabaseURL string
	DataDir     string
	// PublicURL is the base of links the service hands out.
	PublicURL  string
	AdminToken string
	// TestClock makes the clock advanceable through the operator API.
	TestClock bool
	// TrustProxy believes X-Forwarded-For (`--behind-tls-proxy`);
	// TrustedProxies limits that to connections from those addresses
	// (`--trusted-proxy`). Both listeners use the result for the IP
	// allowlist and the authentication throttle (httpapi.Source).
	TrustProxy     bool
	TrustedProxies []netip.Prefix
	// AuthFailuresPerMinute is the failed authentications a source
	// address may make per minute, per listener, before it is answered
	// 429 (zero: httpapi.DefaultAuthFailuresPerMinute).
	AuthFailuresPerMinute int
	// AuthClock is the clock of the failed-authentication throttles;
	// nil is the wall clock. It is never the test clock: moving a
	// sandbox's time must not refill anyone's budget of guesses. Tests
	// give a clock of their own to see a budget refill without waiting.
	AuthClock payd.Clock
	// PasswordChecks bounds the argon2id runs at once (zero:
	// account.DefaultPasswordChecks); past it a sign-in is refused at once.
	PasswordChecks int
	Logger         *slog.Logger
	// WebhookAllowHosts loosens the public-address rule for exact hosts.
	WebhookAllowHosts []string
	// WebhookRootCAs are the roots deliveries trust (nil: the system's).
	WebhookRootCAs *x509.CertPool
	// JobPollInterval overrides the job queue's polling (tests use less).
	JobPollInterval time.Duration
	// JobRescueAfter is how long a job may stay running before another
	// instance takes it up as the job of a dead one (`--job-rescue-after`;
	// zero: jobs.DefaultRescueAfter).
	JobRescueAfter time.Duration
	// Delivery sizes the webhook sender: deliveries in flight in all and
	// per endpoint (zero: the defaults of dispatch.Options).
	Delivery dispatch.Options
	// IDs is passed to the service (tests only; nil: payd.NewIDGen()).
	IDs *payd.IDGen
	// HoldIdempotentFunc is passed to the service (tests only).
	HoldIdempotentFunc func(key string)
	// WaitIdempotentFunc is passed to the service (tests only).
	WaitIdempotentFunc func(key string)
	// SandboxResetStepFunc is passed to the service (tests only).
	SandboxResetStepFunc func(kind payd.SandboxKind)
	// SandboxWait is passed to the service (tests only; zero: a minute).
	SandboxWait time.Duration
	// Stage is the delivery stage served (`payd serve --stage`); zero is
	// v1. The operations of later stages answer 501 and are left out of
	// the served OpenAPI document.
	Stage payd.Stage
	// LiveProviders are the live provider adapters an embedder compiles in:
	// a live adapter plugs in here, and operators route live payments to it
	// by name (`PUT /admin/v1/provider-routes`). `payd serve` passes none, so
	// live payments answer provider_unavailable. The names "sandbox" and
	// "sandbox_backup" belong to the sandbox banks.
	LiveProviders []payd.Provider
	// LivePayoutProviders are the live payout adapters an embedder
	// compiles in, routed by the operator's payout routes (methods
	// payout_card, payout_sbp, payout_bank_account). `payd serve` passes
	// none, so live payouts answer provider_unavailable. The name
	// "sandbox_payouts" belongs to the sandbox payout provider.
	LivePayoutProviders []payd.PayoutProvider
	// RedisURL, when set, moves the rate limits and the failed
	// authentication counters to that Redis, shared by every instance
	// that uses it (`--redis-url`); empty keeps them in the process.
	RedisURL string
	// DashboardOwnListener serves the merchant dashboard from
	// Instance.Dashboard, for a listener of its own (`--dashboard-addr`),
	// instead of under /dashboard/ on the merchant API's listener.
	DashboardOwnListener bool
	// RedisPrefix is put before every Redis key (empty: "payd:"), so
	// deployments or tests can share one Redis.
	RedisPrefix string
	// TracerProvider, when set, traces the service with OpenTelemetry
	// (docs/operations.md, Traces): both listeners, the database
	// statements, the jobs, the webhook deliveries and pre-checks. Nil
	// (`payd serve` without OTEL_* variables) adds no instrumentation.
	TracerProvider trace.TracerProvider
	// Sessions bounds dashboard sessions (zero fields: the defaults of
	// account.SessionPolicy, 30 minutes idle and 12 hours in all).
	Sessions account.SessionPolicy
	// SecretsKeys seal the secrets the database keeps: webhook signing
	// secrets, TOTP secrets, idempotent answers, the service's own keys
	// (`--secrets-key-file`, PAYD_SECRETS_KEY). Nil takes the key file
	// of DataDir, made when missing (DevSecretsKeys): what --dev does;
	// `payd serve` refuses to start without a key otherwise.
	SecretsKeys *seal.Keyring
}

// Instance is an assembled service.
type Instance struct {
	Store   *sqlstore.Store
	Queue   *jobs.Queue
	Service *payd.Service
	// Accounts signs people in and keeps their accounts (the
	// merchants' dashboard users).
	Accounts  *account.Service
	TestClock *payd.TestClock
	// API is the merchant listener's handler; Admin the operator's (nil
	// when no token is configured).
	API   http.Handler
	Admin http.Handler
	// Dashboard is the dashboard's handler when it has a listener of its
	// own (Config.DashboardOwnListener), else nil.
	Dashboard http.Handler
	Registry  *prometheus.Registry
	// Limiter holds the rate limits: a *ratelimit.Redis with RedisURL.
	Limiter ratelimit.Limiter
	log     *slog.Logger
	// dispatch sends webhook deliveries from Start on; stopDeliveries ends
	// it, and deliveriesDone closes when it has recorded its last
	// attempts.
	dispatch       *dispatch.Dispatcher
	stopDeliveries context.CancelFunc
	deliveriesDone chan struct{}
	// dirLock is held while serving SQLite (nil on PostgreSQL).
	dirLock *dataDirLock
	// banks are the two sandbox banks.
	banks []*sandbank.Bank
	// draining is set by Drain.
	draining atomic.Bool
}

// Deliveries is the webhook sender. Tests read its Activity to wait until
// no delivery is due.
func (in *Instance) Deliveries() *dispatch.Dispatcher { return in.dispatch }

// Drain makes /readyz answer 503 from now on while every request is still
// served, so that a load balancer stops sending new ones before the
// instance stops.
func (in *Instance) Drain() { in.draining.Store(true) }

// New opens storage, applies migrations, and wires the service. Jobs start
// with Start.
func New(ctx context.Context, cfg Config) (*Instance, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := checkConfig(cfg); err != nil {
		return nil, err
	}
	in := &Instance{log: log, Registry: prometheus.NewRegistry()}
	built := false
	defer func() {
		if !built {
			in.closeStorage()
		}
	}()
	if err := in.openStorage(ctx, cfg); err != nil {
		return nil, err
	}
	clock := in.clock(cfg)
	if err := Migrate(ctx, in.Store, clock); err != nil {
		return nil, err
	}
	keys, err := loadKeys(ctx, in.Store)
	if err != nil {
		return nil, err
	}
	if err := in.wireService(cfg, clock, keys); err != nil {
		return nil, err
	}
	if err := in.wireHandlers(cfg, keys); err != nil {
		return nil, err
	}
	built = true
	return in, nil
}

// checkConfig refuses what no instance could serve: live providers this
// build does not have, a stage not built yet.
func checkConfig(cfg Config) error {
	if err := checkLivePayoutProviders(cfg.LivePayoutProviders); err != nil {
		return err
	}
	if err := checkLiveProviders(cfg.LiveProviders); err != nil {
		return err
	}
	if cfg.Stage > payd.BuiltStage {
		return fmt.Errorf("stage %s is not built yet: this build goes up to %s", cfg.Stage, payd.BuiltStage)
	}
	return nil
}

// openStorage opens the store. One SQLite database, one process (see
// lockDataDir); PostgreSQL is built for several instances and needs no
// such lock.
func (in *Instance) openStorage(ctx context.Context, cfg Config) error {
	if cfg.DatabaseURL == "" {
		l, err := lockDataDir(cfg.DataDir)
		if err != nil {
			return err
		}
		in.dirLock = l
	}
	keys := cfg.SecretsKeys
	if keys == nil {
		var err error
		if keys, err = DevSecretsKeys(cfg.DataDir); err != nil {
			return fmt.Errorf("secrets key: %w", err)
		}
	}
	// Which keys an instance holds is what a rotation's steps check
	// (docs/security.md, "Rotating the key").
	in.log.Info("secrets key", "seals_with", keys.Primary(), "also_opens", strings.Join(keys.IDs()[1:], ","))
	readOnly := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "payd_db_read_only_errors_total",
		Help: "Database connections dropped because their server refused a write as read-only: a standby, or a primary demoted by a failover.",
	})
	servers := newServerWatch()
	// On a Citus cluster, the sweeps that read around an unreachable
	// worker (docs/operations.md, "A worker lost").
	skipped := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "payd_sweep_workers_skipped_total",
		Help: "Reads of a periodic sweep that left out an unreachable Citus worker's shard groups, by table, one per worker left out.",
	}, []string{"table"})
	in.Registry.MustRegister(readOnly, servers.changes, skipped)
	store, err := sqlstore.OpenWith(ctx, cfg.DatabaseURL, cfg.DataDir, sqlstore.Options{TracerProvider: cfg.TracerProvider, Keyring: keys,
		OnReadOnly: readOnly.Inc, OnServer: servers.reached,
		OnGroupsSkipped: func(table string, workers int) { skipped.WithLabelValues(table).Add(float64(workers)) }})
	if err != nil {
		return err
	}
	in.Store = store
	return nil
}

// closeStorage undoes openStorage after a failed New.
func (in *Instance) closeStorage() {
	if in.Store != nil {
		in.Store.Close()
	}
	in.dirLock.release()
}

// clock is the service clock: the system's, or with cfg.TestClock one that
// moves when told to. After a jump of the test clock, due jobs run at once
// and the periodic work (the expiry sweep, retention, registers) catches
// up.
func (in *Instance) clock(cfg Config) payd.Clock {
	if !cfg.TestClock {
		return payd.SystemClock{}
	}
	in.TestClock = &payd.TestClock{}
	lead, err := readClockLead(cfg.DataDir)
	if err != nil {
		in.log.Warn("the test clock starts at the wall clock's time", "err", err.Error())
	}
	in.TestClock.Resume(lead)
	in.TestClock.OnAdvance = func() {
		if err := writeClockLead(cfg.DataDir, in.TestClock.Lead()); err != nil {
			in.log.Warn("the test clock's lead is not kept for the next start", "err", err.Error())
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		in.Service.KickDeliveries()
		if err := in.Queue.PromoteDue(ctx); err != nil {
			in.log.Warn("promote due jobs after clock advance", "err", err.Error())
		}
		if err := in.Queue.RunPeriodicNow(ctx); err != nil {
			in.log.Warn("periodic jobs after clock advance", "err", err.Error())
		}
	}
	return in.TestClock
}

// keys are the instance's secrets, kept in the database so that every
// instance signs alike.
type keys struct{ notify, forms, reports []byte }

func loadKeys(ctx context.Context, store *sqlstore.Store) (k keys, err error) {
	for _, f := range []struct {
		name string
		dst  *[]byte
	}{{"sandbox_notify", &k.notify}, {"forms", &k.forms}, {"reports", &k.reports}} {
		if *f.dst, err = secret(ctx, store, f.name); err != nil {
			return k, err
		}
	}
	return k, nil
}

// wireService builds the job queue, the webhook dispatcher, the sandbox
// banks and the service, with their metrics.
func (in *Instance) wireService(cfg Config, clock payd.Clock, k keys) error {
	failures := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "payd_job_failures_total", Help: "Failed job attempts by kind.",
	}, []string{"kind"})
	attempts := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "payd_webhook_attempts_total", Help: "Recorded webhook delivery outcomes: succeeded, failed (no 2xx), skipped (endpoint no longer active).",
	}, []string{"outcome"})
	runs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "payd_periodic_runs_total", Help: "Periodic job runs by kind and outcome: done, continued (stopped at its budget, runs again at once), again (the test clock jumped), skipped (another run of the kind was working), failed.",
	}, []string{"kind", "outcome"})
	// The outcomes are exported at zero from the start, so that a
	// failure ratio has both its terms before the first delivery.
	for _, o := range []string{"succeeded", "failed", "skipped"} {
		attempts.WithLabelValues(o)
	}
	// The same for each periodic kind's outcomes: an increase of failed
	// runs counts the first failure too.
	for kind := range jobs.PeriodicKinds() {
		for _, o := range []jobs.RunOutcome{jobs.RunDone, jobs.RunContinued, jobs.RunAgain, jobs.RunFailed, jobs.RunSkipped} {
			runs.WithLabelValues(kind, string(o))
		}
	}
	discrepancies := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "payd_ledger_check_discrepancies_total",
		Help: "Discrepancies found by the periodic ledger check (each run adds what it found; `payd admin ledger check` lists them).",
	})
	in.Registry.MustRegister(failures, attempts, runs, discrepancies, in.readyGauge())
	delivery := cfg.Delivery
	delivery.OnOutcome = func(outcome string) { attempts.WithLabelValues(outcome).Inc() }
	lag := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "payd_webhook_delivery_lag_seconds",
		Help:    "How long after it was due each webhook delivery was claimed for sending (since it was queued, or since its retry fell due), on the service clock.",
		Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600},
	})
	in.Registry.MustRegister(lag)
	delivery.OnClaimed = func(w *payd.DeliveryWork) { lag.Observe(w.Delivery.Lateness(clock.Now()).Seconds()) }
	delivery.TracerProvider = cfg.TracerProvider
	in.dispatch = dispatch.New(delivery, in.log)
	var err error
	in.Queue, err = jobs.New(in.Store.DB(), in.Store.Dialect(), clock, in.log, jobs.Options{
		PollInterval: cfg.JobPollInterval, RescueAfter: cfg.JobRescueAfter,
		OnFailure:      func(kind string) { failures.WithLabelValues(kind).Inc() },
		OnPeriodicRun:  func(kind string, o jobs.RunOutcome) { runs.WithLabelValues(kind, string(o)).Inc() },
		OnLedgerCheck:  func(n int) { discrepancies.Add(float64(n)) },
		TracerProvider: cfg.TracerProvider,
	})
	if err != nil {
		return err
	}
	// Two sandbox banks: the cascade's primary and its backup, so that a
	// timeout of the first (amount digits 04) has somewhere to go.
	in.banks = []*sandbank.Bank{
		sandbank.New(sandboxBanks[0], k.notify, in.Queue, clock, cfg.PublicURL),
		sandbank.New(sandboxBanks[1], k.notify, in.Queue, clock, cfg.PublicURL),
	}
	var traceCarrier func(context.Context) map[string]string
	if cfg.TracerProvider != nil {
		traceCarrier = tracing.Carrier
	}
	// One maker of identifiers for both services: the audit entries both
	// write, made in one millisecond, still sort as they were made.
	ids := cfg.IDs
	if ids == nil {
		ids = payd.NewIDGen()
	}
	in.Service = payd.NewService(payd.Config{
		Store: in.Store, Clock: clock, Jobs: in.Queue, Logger: in.log, Stage: cfg.Stage, WebhookAllowHosts: cfg.WebhookAllowHosts,
		IDs: ids, HoldIdempotentFunc: cfg.HoldIdempotentFunc, WaitIdempotentFunc: cfg.WaitIdempotentFunc, SandboxResetStepFunc: cfg.SandboxResetStepFunc, SandboxWait: cfg.SandboxWait, PublicURL: cfg.PublicURL,
		SandboxBatching: in.Store.SandboxBatching(),
		Paths: payd.Paths{Checkout: checkout.Path, EvidenceUpload: api.EvidenceUploadPath,
			SettlementReport: api.SettlementReportPath, Link: linkpage.Path},
		Providers: []payd.Provider{in.banks[0], in.banks[1]}, TestRoute: testRoute, LiveProviders: cfg.LiveProviders,
		TestPayoutProvider: sandpayout.New(clock), LivePayoutProviders: cfg.LivePayoutProviders,
		ReportKey: k.reports, DeliveriesQueued: in.dispatch.Kick, TraceCarrierFunc: traceCarrier,
		ProviderCallFunc: tracing.ProviderCall(cfg.TracerProvider),
		Sender: sender.New(sender.Options{AllowHosts: cfg.WebhookAllowHosts, RootCAs: cfg.WebhookRootCAs,
			TracerProvider: cfg.TracerProvider}),
	})
	in.Accounts = account.New(account.Config{Store: in.Store, Clock: clock, IDs: ids,
		PublicURL: cfg.PublicURL, SetupPath: dashboard.SetupPath, Sessions: cfg.Sessions, PasswordChecks: cfg.PasswordChecks})
	in.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	in.Registry.MustRegister(newQueueCollector(in.Queue))
	return nil
}

// wireHandlers builds the rate limits and the two listeners' handlers: the
// merchant API with the payer's pages, and the operator API when a token
// is configured.
func (in *Instance) wireHandlers(cfg Config, k keys) error {
	// One Limiter holds the request rates and both listeners'
	// failed-authentication counters, so Redis, when configured, covers
	// all of them.
	limiter, err := newLimiter(cfg, in.log, in.Registry)
	if err != nil {
		return err
	}
	in.Limiter = limiter
	source := httpapi.Source{TrustProxy: cfg.TrustProxy, TrustedProxies: cfg.TrustedProxies}
	// The pages log with the request's context: their lines carry its
	// request_id and trace ids like the APIs' own.
	pageLog := httpapi.ContextLogger(in.log)
	bankPages := sandbank.NewPages(in.Store, k.forms, pageLog, in.banks...)
	checkoutPages := checkout.New(in.Service, k.forms, pageLog)
	linkPages := linkpage.New(in.Service, k.forms, pageLog, limiter, source.Addr)
	embedPages := embed.New(in.Service, k.forms, cfg.PublicURL, pageLog)
	dash := in.dashboard(cfg, k, limiter, source)
	in.API = api.New(api.Config{
		Service: in.Service, Limiter: limiter, Logger: in.log,
		Metrics: httpapi.NewMetrics(in.Registry, "merchant"), TrustProxy: cfg.TrustProxy,
		TrustedProxies: cfg.TrustedProxies, AuthFailuresPerMinute: cfg.AuthFailuresPerMinute, AuthNow: authNow(cfg),
		Draining: in.draining.Load,
		Extra: func(mux *http.ServeMux) {
			checkoutPages.Register(mux)
			bankPages.Register(mux)
			// Links exist from stage M5 on; below it the address is
			// unknown, like any other.
			if cfg.Stage >= payd.StageM5 {
				linkPages.Register(mux)
				// The embedded confirmation's widget and form.
				embedPages.Register(mux)
			}
			if !cfg.DashboardOwnListener {
				dash.Register(mux)
			}
		},
	})
	if cfg.AdminToken != "" {
		admin := operator.New(operator.Config{
			Service: in.Service, Accounts: in.Accounts, Token: cfg.AdminToken, TestClock: in.TestClock, Logger: in.log,
			Metrics: httpapi.NewMetrics(in.Registry, "operator"), Gatherer: in.Registry,
			Limiter: limiter, Source: source, AuthFailuresPerMinute: cfg.AuthFailuresPerMinute, AuthNow: authNow(cfg),
			JobStats: func(ctx context.Context) (any, error) { return in.Queue.Stats(ctx) },
		})
		in.Admin = tracing.Handler(in.backOffice(cfg, k, limiter, source, admin), cfg.TracerProvider, "operator")
	}
	in.API = tracing.Handler(in.API, cfg.TracerProvider, "merchant")
	return nil
}

// backOffice serves the operator's back office under office.Prefix of
// the operator listener, beside the operator API it works through. Its
// sign-in throttle is the dashboard's kind, on the same Limiter.
func (in *Instance) backOffice(cfg Config, k keys, limiter ratelimit.Limiter, source httpapi.Source, admin http.Handler) http.Handler {
	metrics := httpapi.NewMetrics(in.Registry, "office")
	throttle := httpapi.NewAuthThrottle(httpapi.ThrottleConfig{Scope: "office", Limiter: limiter, Source: source,
		FailuresPerMinute: cfg.AuthFailuresPerMinute, Now: authNow(cfg), Metrics: metrics})
	pages := http.NewServeMux()
	office.New(office.Config{Accounts: in.Accounts, API: admin, Key: k.forms, Log: httpapi.ContextLogger(in.log), Source: source,
		Throttle: throttle, Secure: strings.HasPrefix(cfg.PublicURL, "https://")}).Register(pages)
	mux := http.NewServeMux()
	mux.Handle(office.Prefix, httpapi.Frame(httpapi.FrameConfig{Logger: in.log, Metrics: metrics}, pages))
	mux.Handle("/", admin)
	return mux
}

// dashboard builds the merchant dashboard. Its sign-in throttle shares the
// Limiter of the APIs' (Redis when configured) and counts failures per
// address; the service counts them per account.
func (in *Instance) dashboard(cfg Config, k keys, limiter ratelimit.Limiter, source httpapi.Source) *dashboard.Handler {
	metrics := httpapi.NewMetrics(in.Registry, "dashboard")
	throttle := httpapi.NewAuthThrottle(httpapi.ThrottleConfig{Scope: "dashboard", Limiter: limiter, Source: source,
		FailuresPerMinute: cfg.AuthFailuresPerMinute, Now: authNow(cfg), Metrics: metrics})
	d := dashboard.New(dashboard.Config{Service: in.Service, Accounts: in.Accounts, Key: k.forms, Log: in.log, Source: source,
		Throttle: throttle,
		Secure:   strings.HasPrefix(cfg.PublicURL, "https://"), TestClock: in.TestClock})
	if cfg.DashboardOwnListener {
		mux := http.NewServeMux()
		d.Register(mux)
		// On a listener of its own the dashboard is traced as the APIs
		// are; under /dashboard/ of the API listener the API's handler
		// traces it already.
		in.Dashboard = tracing.Handler(httpapi.Frame(httpapi.FrameConfig{Logger: in.log, Metrics: metrics}, mux),
			cfg.TracerProvider, "dashboard")
	}
	return d
}

// sandboxBanks are the names of the sandbox banks: the cascade's primary and
// its backup.
var sandboxBanks = [2]string{"sandbox", "sandbox_backup"}

// testRoute orders the providers of a test payment: always the sandbox
// banks, without reading storage. Live payments follow the operator's
// routing table instead.
func testRoute(payd.Region, string, money.Currency) []string {
	return []string{sandboxBanks[0], sandboxBanks[1]}
}

// checkLivePayoutProviders refuses live payout adapters without a name
// of their own, as checkLiveProviders does for payments.
func checkLivePayoutProviders(list []payd.PayoutProvider) error {
	seen := map[string]bool{sandpayout.Name: true}
	for _, pr := range list {
		name := pr.Name()
		if name == "" || seen[name] {
			return fmt.Errorf("live payout provider name %q is empty or taken", name)
		}
		seen[name] = true
	}
	return nil
}

// checkLiveProviders refuses live adapters without a name of their own: a
// name taken twice, or by a sandbox bank, would make a route ambiguous.
func checkLiveProviders(list []payd.Provider) error {
	seen := map[string]bool{sandboxBanks[0]: true, sandboxBanks[1]: true}
	for _, pr := range list {
		if pr == nil {
			return errors.New("live providers: a nil provider")
		}
		name := pr.Name()
		if name == "" || seen[name] {
			return fmt.Errorf("live providers: the name %q is empty or already taken", name)
		}
		seen[name] = true
	}
	return nil
}

// secret returns a service-wide secret, creating it on first use.
func secret(ctx context.Context, store *sqlstore.Store, name string) ([]byte, error) {
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	var v []byte
	err := store.Tx(ctx, func(tx payd.Tx) (err error) {
		v, err = tx.SecretGetOrCreate(ctx, name, fresh)
		return err
	})
	return v, err
}

// Migrate applies the service's and the job queue's schema migrations. It
// fails when the database then still is not this build's schema: one a
// newer payd migrated is never served by an older one.
func Migrate(ctx context.Context, store *sqlstore.Store, clock payd.Clock) error {
	if _, err := store.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if err := store.Ready(ctx); err != nil {
		return err
	}
	q, err := jobs.New(store.DB(), store.Dialect(), clock, nil, jobs.Options{})
	if err != nil {
		return err
	}
	if err := q.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate job queue: %w", err)
	}
	return nil
}

// Start starts background jobs and the webhook sender.
func (in *Instance) Start(ctx context.Context) error {
	if err := in.Queue.Start(ctx, in.Service, in.Accounts); err != nil {
		return err
	}
	dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	in.stopDeliveries, in.deliveriesDone = cancel, make(chan struct{})
	go func() {
		defer close(in.deliveriesDone)
		in.dispatch.Run(dctx, in.Service)
	}()
	return nil
}

// Close stops jobs (waiting for running ones until ctx ends) and closes
// storage.
func (in *Instance) Close(ctx context.Context) error {
	var errs []error
	if in.stopDeliveries != nil {
		in.stopDeliveries()
		select {
		case <-in.deliveriesDone:
		case <-ctx.Done():
			errs = append(errs, fmt.Errorf("webhook sender: %w", ctx.Err()))
		}
	}
	if err := in.Queue.Stop(ctx); err != nil && !errors.Is(err, context.Canceled) {
		errs = append(errs, err)
	}
	errs = append(errs, in.Store.Close())
	if r, ok := in.Limiter.(*ratelimit.Redis); ok {
		errs = append(errs, r.Close())
	}
	// Last: the directory is free only once the database is closed.
	errs = append(errs, in.dirLock.release())
	return errors.Join(errs...)
}

// authNow is the clock of the failed-authentication throttles (Config.AuthClock).
func authNow(cfg Config) func() time.Time {
	if cfg.AuthClock != nil {
		return cfg.AuthClock.Now
	}
	return time.Now
}
