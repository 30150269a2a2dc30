// Package paydtest starts a real payd for tests: the same assembly as
// `payd serve` (package serve) on a fresh database per test — a SQLite file
// in a temporary directory, and a PostgreSQL schema of its own when
// PAYD_TEST_DATABASE_URL is set — behind httptest servers, with the test
// clock on.
package paydtest

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"go.opentelemetry.io/otel/trace"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/dispatch"
	"github.com/paydhq/payd/internal/serve"
)

// Backend is a database to run a test against.
type Backend struct {
	Name string
	// URL is empty for SQLite.
	URL string
}

// Backends returns SQLite, and PostgreSQL when PAYD_TEST_DATABASE_URL is
// set. When it is set the server must answer: a CI run that silently
// skipped PostgreSQL would prove nothing about it. PAYD_TEST_BACKENDS, a
// comma-separated list of names, keeps only those: a run on a cluster
// (make test-citus) does not repeat what make test did.
func Backends(t testing.TB) []Backend {
	all := backends()
	only := os.Getenv("PAYD_TEST_BACKENDS")
	if only == "" {
		return all
	}
	var out []Backend
	for _, b := range all {
		if slices.Contains(strings.Split(only, ","), b.Name) {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		t.Fatalf("PAYD_TEST_BACKENDS=%s names no configured backend", only)
	}
	return out
}

func backends() []Backend {
	out := []Backend{{Name: "sqlite"}}
	if base := os.Getenv("PAYD_TEST_DATABASE_URL"); base != "" {
		out = append(out, Backend{Name: "postgres", URL: base})
	}
	// A Citus coordinator (cmd/paydcitus starts a cluster of the run's
	// own): the same store, its merchants' tables distributed.
	if base := os.Getenv("PAYD_TEST_CITUS_URL"); base != "" {
		out = append(out, Backend{Name: "citus", URL: base})
	}
	return out
}

// ForEachBackend runs fn as a parallel subtest per backend.
func ForEachBackend(t *testing.T, fn func(t *testing.T, b Backend)) {
	for _, b := range Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			fn(t, b)
		})
	}
}

// DatabaseURL returns a database of the backend's own for t: for PostgreSQL
// a fresh schema, dropped at the end of the test.
func (b Backend) DatabaseURL(t testing.TB) string {
	if b.URL == "" {
		return ""
	}
	schema := b.createSchema(t)
	t.Cleanup(func() { dropSchema(b.URL, schema) })
	return b.schemaURL(t, schema)
}

// Env is a running service.
type Env struct {
	T        testing.TB
	Backend  Backend
	Instance *serve.Instance
	API      *httptest.Server
	Admin    *httptest.Server
	Token    string
	Clock    *payd.TestClock
	// AuthClock is the failed-authentication throttles' clock, apart
	// from Clock as in production: moving Clock refills no budget.
	AuthClock *payd.TestClock
	Service   *payd.Service
	// Accounts is the service's account service (dashboard users).
	Accounts *account.Service
	// DatabaseURL is the PostgreSQL database of the service (its own
	// schema), empty on SQLite; DataDir holds the SQLite file. Tests that
	// load rows beside the service, as the benchmark's seeder does, use
	// them.
	DatabaseURL, DataDir string
	validator            ResponseValidator
	closeOnce            sync.Once
}

// ResponseValidator checks a response against the OpenAPI document.
type ResponseValidator interface {
	Validate(t testing.TB, resp *Response)
}

// Options tune Start.
type Options struct {
	WebhookAllowHosts []string
	// HoldIdempotentFunc runs while a request holds its idempotency key.
	HoldIdempotentFunc func(key string)
	// WaitIdempotentFunc runs each time a request finds its idempotency
	// key held by another in flight, or its shop's sandbox being reset.
	WaitIdempotentFunc func(key string)
	// SandboxResetStepFunc runs before a sandbox reset deletes each kind.
	SandboxResetStepFunc func(kind payd.SandboxKind)
	// SandboxWait bounds a change's wait for a sandbox reset (zero: a
	// minute).
	SandboxWait time.Duration
	// WebhookRootCAs are the roots webhook deliveries trust.
	WebhookRootCAs *x509.CertPool
	// LiveProviders are live provider adapters (NewLiveProvider).
	LiveProviders []payd.Provider
	// Delivery sizes the webhook sender; tests of its limits make them
	// small.
	Delivery dispatch.Options
	// TrustProxy believes X-Forwarded-For from the test client, as
	// `--behind-tls-proxy` does, so a test can speak from many source
	// addresses.
	TrustProxy bool
	// AuthFailuresPerMinute is the authentication throttle's allowance
	// per source address (zero: the default of 60).
	AuthFailuresPerMinute int
	// Stage is the delivery stage served (zero: v1).
	Stage payd.Stage
	// LivePayoutProviders are live payout adapters (NewLivePayoutProvider).
	LivePayoutProviders []payd.PayoutProvider
	// RedisURL puts the rate limits in that Redis under RedisPrefix
	// (see RedisURL and NewRedisPrefix); empty keeps them in the process.
	RedisURL    string
	RedisPrefix string
	// Logger receives the service's log (nil: its warnings and errors
	// are printed if the test fails).
	Logger *slog.Logger
	// TracerProvider traces the service (nil: no tracing); tests give one
	// that records into tracetest's in-memory exporter.
	TracerProvider trace.TracerProvider
	// DatabaseURL is a PostgreSQL database to serve as it is, instead of
	// a fresh schema of the backend's: a test that moves a database
	// starts the service again on what another one left.
	DatabaseURL string
	// DataDir is the service's data directory (empty: a fresh one); a
	// service started again on its database takes its predecessor's, whose
	// secrets key opens what the database keeps sealed.
	DataDir string
	// IDs makes the service's identifiers (nil: payd.NewIDGen()).
	IDs *payd.IDGen
}

// Start runs a service on backend b for the test's lifetime.
func Start(t testing.TB, b Backend, opts *Options) *Env {
	if opts == nil {
		opts = &Options{}
	}
	ctx := context.Background()
	dir := opts.DataDir
	if dir == "" {
		dir = t.TempDir()
	}
	token := "adm_test_" + strings.Repeat("x", 16)
	// The listener comes first so that the service knows its public
	// address (checkout and bank page links).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dbURL, migrated := opts.DatabaseURL, func() {}
	if dbURL == "" {
		dbURL, migrated = b.MigratedDatabaseURL(t, "service")
	}
	authClock := &payd.TestClock{}
	logger, printLog := opts.Logger, func() {}
	if logger == nil {
		logger, printLog = logOnFailure(t)
	}
	in, err := serve.New(ctx, serve.Config{
		DatabaseURL: dbURL, DataDir: dir, AdminToken: token, TestClock: true,
		PublicURL:         "http://" + ln.Addr().String(),
		WebhookAllowHosts: opts.WebhookAllowHosts, JobPollInterval: 50 * time.Millisecond,
		HoldIdempotentFunc: opts.HoldIdempotentFunc, WaitIdempotentFunc: opts.WaitIdempotentFunc, SandboxResetStepFunc: opts.SandboxResetStepFunc, SandboxWait: opts.SandboxWait, WebhookRootCAs: opts.WebhookRootCAs,
		LiveProviders: opts.LiveProviders, Delivery: opts.Delivery, TrustProxy: opts.TrustProxy,
		AuthFailuresPerMinute: opts.AuthFailuresPerMinute, Stage: opts.Stage, LivePayoutProviders: opts.LivePayoutProviders,
		RedisURL: opts.RedisURL, RedisPrefix: opts.RedisPrefix, Logger: logger, TracerProvider: opts.TracerProvider,
		AuthClock: authClock, IDs: opts.IDs,
	})
	if err != nil {
		t.Fatalf("start payd on %s: %v", b.Name, err)
	}
	migrated()
	if err := in.Start(ctx); err != nil {
		t.Fatalf("start jobs: %v", err)
	}
	env := &Env{T: t, Backend: b, Instance: in, Token: token, Clock: in.TestClock, AuthClock: authClock, Service: in.Service, Accounts: in.Accounts,
		API: &httptest.Server{Listener: ln, Config: &http.Server{Handler: in.API}}, Admin: httptest.NewServer(in.Admin),
		DatabaseURL: dbURL, DataDir: dir, validator: defaultValidator}
	env.API.Start()
	t.Cleanup(env.Close)
	t.Cleanup(printLog)
	return env
}

// Close stops the service: its servers, jobs and database pool. It is
// called at the end of the test; a test that starts the service again on
// the same database calls it first.
func (e *Env) Close() {
	e.closeOnce.Do(func() {
		e.API.Close()
		e.Admin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		e.Instance.Close(ctx)
	})
}

// defaultValidator is set by the OpenAPI validation hook (validate.go).
var defaultValidator ResponseValidator

// RedisURL returns the Redis of the rate limit tests, PAYD_TEST_REDIS_URL.
// Without it the test is skipped, saying so; CI sets it, which makes the
// tests mandatory there: a Redis that does not answer fails them.
func RedisURL(t testing.TB) string {
	u := os.Getenv("PAYD_TEST_REDIS_URL")
	if u == "" {
		t.Skip("PAYD_TEST_REDIS_URL is not set: skipping the Redis rate limit test (e.g. PAYD_TEST_REDIS_URL=redis://127.0.0.1:6379/0)")
	}
	return u
}

// NewRedisPrefix returns a Redis key prefix no other test uses, so tests
// share one Redis without counting each other's requests and without
// flushing it.
func NewRedisPrefix() string {
	raw := make([]byte, 6)
	rand.Read(raw)
	return "paydtest:" + hex.EncodeToString(raw) + ":"
}
