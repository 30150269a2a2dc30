package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/dashboard"
	"github.com/paydhq/payd/internal/dispatch"
	"github.com/paydhq/payd/internal/framing"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/internal/jobs"
	"github.com/paydhq/payd/internal/serve"
	"github.com/paydhq/payd/internal/tracing"
)

type serveOptions struct {
	addr, adminAddr, adminToken, databaseURL, dataDir, publicURL string
	dashboardAddr                                                string
	tlsCert, tlsKey, logFormat                                   string
	dev, testClock, behindProxy                                  bool
	webhookAllowHosts                                            []string
	webhookCAFile                                                string
	webhookInFlight, webhookPerEndpoint                          int
	trustedProxies                                               []netip.Prefix
	authFailures, passwordChecks                                 int
	stage                                                        payd.Stage
	redisURL                                                     string
	jobRescueAfter                                               time.Duration
	drainDelay                                                   time.Duration
	trace                                                        bool
	sessions                                                     account.SessionPolicy
	secretsKeyFile, secretsKey                                   string
	// timeouts are the listeners' (httpTimeouts); no flag sets them, and
	// tests shorten them.
	timeouts httpTimeouts
	// printConfig: show the settings and where each came from, then stop.
	printConfig bool
	settings    []*setting
	// setting names a setting as it was given, for errors found after
	// parsing.
	setting func(name string) string
}

// parseServe reads serve's flags; the help asked for goes to stdout.
func parseServe(args []string, getenv func(string) string, stdout io.Writer) (*serveOptions, error) {
	f := newFlags("serve", getenv, stdout)
	o := &serveOptions{timeouts: defaultHTTPTimeouts()}
	addr := f.String("addr", "127.0.0.1:8080", "merchant API and hosted pages listen address")
	adminAddr := f.String("admin-addr", "127.0.0.1:8081", "operator API listen address")
	dashboardAddr := f.String("dashboard-addr", "", "merchant dashboard listen address (empty: under /dashboard/ on --addr)")
	adminToken := f.Secret("admin-token", "operator API bearer token; empty turns the operator API off (except with --dev)", secretAll)
	databaseURL := f.Secret("database-url", "postgres:// URL; empty uses SQLite in --data-dir", secretURLs)
	dataDir := f.String("data-dir", "./payd-data", "directory of the SQLite database and dev.json")
	publicURL := f.String("public-url", "", "base URL for links the service hands out (default derived from --addr)")
	tlsCert := f.String("tls-cert", "", "TLS certificate file (serve HTTPS)")
	tlsKey := f.String("tls-key", "", "TLS key file")
	behind := f.Bool("behind-tls-proxy", false, "serve plain HTTP on any address because a proxy in front terminates TLS")
	dev := f.Bool("dev", false, "create and print a demo merchant with test keys on an empty database")
	testClock := f.Bool("test-clock", false, "let the operator API advance the service clock")
	logFormat := f.String("log-format", "text", "log format: text or json")
	allow := f.List("webhook-allow-host", "exact host allowed for webhook endpoints despite the public-address rule")
	caFile := f.String("webhook-ca-file", "", "PEM file of an extra CA that webhook deliveries trust (local development)")
	inFlight := f.Int("webhook-max-in-flight", 0, "webhook deliveries sent at once in all (0: 256)")
	perEndpoint := f.Int("webhook-per-endpoint", 0, "webhook deliveries one quick endpoint receives at once (0: 32; slow ones get 4)")
	trusted := f.List("trusted-proxy", "address or CIDR prefix of a proxy whose X-Forwarded-For is believed (default with --behind-tls-proxy: any peer)")
	authFailures := f.Int("auth-failures-per-minute", 0, "failed authentications one source address may make per minute before it gets 429 (0: 60)")
	passwordChecks := f.Int("password-checks", 0, "password checks (argon2id, 19 MiB each) run at once; past it a sign-in gets 503 at once (0: one per CPU, at most 13)")
	redisURL := f.Secret("redis-url", "redis:// URL of the Redis holding rate limits shared by several instances; empty counts in the process", secretURLs)
	rescue := f.Duration("job-rescue-after", jobs.DefaultRescueAfter, "how long a job may stay running before another instance runs it again as the job of a dead one (more than 1m)")
	drain := f.Duration("drain-delay", 0, "on SIGTERM, how long /readyz answers 503 while requests are still served, before the listeners close (behind a load balancer: longer than its health check interval)")
	sessionIdle := f.Duration("session-idle", account.DefaultSessionIdle, "a dashboard session ends after this long without a request")
	sessionAbsolute := f.Duration("session-absolute", account.DefaultSessionAbsolute, "a dashboard session ends this long after sign-in, however busy")
	stage := f.String("stage", "v1", "delivery stage served: v1, M2 (disputes and chargebacks) or M5 (M2 with payment links and payouts); later stages' operations answer 501")
	secretsKeyFile := f.String("secrets-key-file", "", secretsKeyFileUsage)
	secretsKey := f.EnvSecret("secrets-key", secretsKeyUsage)
	traceOn := f.Bool("trace", false, "send OpenTelemetry traces; the standard OTEL_* variables choose the exporter, its endpoint and the sampler, and also turn traces on when set (docs/operations.md, Traces)")
	// An action, not a setting: it has no environment twin, so that a
	// variable left in a unit's environment cannot stop every start.
	printConfig := f.FlagSet.Bool("print-config", false, "print the effective configuration (each setting, its value with secrets masked, and where it came from) and exit")
	if err := f.Parse(args); err != nil {
		return nil, err
	}
	o.printConfig, o.settings, o.setting = *printConfig, f.settings, f.Setting
	o.trace = *traceOn || tracing.Enabled(getenv)
	o.secretsKeyFile, o.secretsKey = *secretsKeyFile, *secretsKey
	st, err := payd.ParseStage(*stage)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Setting("stage"), err)
	}
	if *logFormat != "text" && *logFormat != "json" {
		return nil, fmt.Errorf("%s: %q is not a log format: want text or json", f.Setting("log-format"), *logFormat)
	}
	o.stage = st
	o.redisURL = *redisURL
	if *rescue <= jobs.JobTimeout {
		return nil, fmt.Errorf("%s must exceed the job timeout of %v", f.Setting("job-rescue-after"), jobs.JobTimeout)
	}
	o.jobRescueAfter = *rescue
	if *drain < 0 {
		return nil, fmt.Errorf("%s cannot be negative", f.Setting("drain-delay"))
	}
	o.drainDelay = *drain
	if *sessionIdle < time.Minute || *sessionAbsolute < *sessionIdle {
		return nil, fmt.Errorf("%s must be at least 1m and %s at least --session-idle", f.Setting("session-idle"), f.Setting("session-absolute"))
	}
	o.sessions = account.SessionPolicy{Idle: *sessionIdle, Absolute: *sessionAbsolute}
	if *authFailures < 0 {
		return nil, fmt.Errorf("%s cannot be negative", f.Setting("auth-failures-per-minute"))
	}
	if *passwordChecks < 0 {
		return nil, fmt.Errorf("%s cannot be negative", f.Setting("password-checks"))
	}
	o.authFailures = *authFailures
	o.passwordChecks = *passwordChecks
	for _, t := range *trusted {
		p, err := parsePrefix(t)
		if err != nil {
			return nil, fmt.Errorf("%s %q: want an IP address or CIDR prefix", f.Setting("trusted-proxy"), t)
		}
		o.trustedProxies = append(o.trustedProxies, p)
	}
	if *inFlight < 0 {
		return nil, fmt.Errorf("%s cannot be negative", f.Setting("webhook-max-in-flight"))
	}
	if *perEndpoint < 0 {
		return nil, fmt.Errorf("%s cannot be negative", f.Setting("webhook-per-endpoint"))
	}
	o.webhookInFlight, o.webhookPerEndpoint = *inFlight, *perEndpoint
	o.addr, o.adminAddr, o.dashboardAddr = *addr, *adminAddr, *dashboardAddr
	o.adminToken, o.databaseURL, o.dataDir, o.publicURL = *adminToken, *databaseURL, *dataDir, *publicURL
	o.tlsCert, o.tlsKey, o.behindProxy, o.dev, o.testClock = *tlsCert, *tlsKey, *behind, *dev, *testClock
	o.logFormat, o.webhookAllowHosts, o.webhookCAFile = *logFormat, *allow, *caFile
	return o, nil
}

// parsePrefix reads a CIDR prefix, or a single address as its host prefix.
func parsePrefix(s string) (netip.Prefix, error) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func newLogger(format string, w io.Writer) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

func runServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	o, err := parseServe(args, getenv, stdout)
	if err != nil {
		return err
	}
	return serveWith(ctx, o, getenv, stdout, stderr)
}

// serveWith is serve with its options read: tests that change an option no
// flag sets (timeouts) start here.
func serveWith(ctx context.Context, o *serveOptions, getenv func(string) string, stdout, stderr io.Writer) error {
	useTLS := o.tlsCert != "" || o.tlsKey != ""
	if useTLS && (o.tlsCert == "" || o.tlsKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	// The contract is HTTPS only: plain HTTP is served only where nobody
	// else can listen in (loopback) or behind a proxy that terminates TLS.
	if !useTLS && !o.behindProxy {
		for _, a := range []string{o.addr, o.adminAddr, o.dashboardAddr} {
			if a == "" {
				continue
			}
			if !isLoopback(a) {
				return fmt.Errorf("refusing to serve plain HTTP on %s: give --tls-cert and --tls-key, or --behind-tls-proxy when a proxy in front terminates TLS", a)
			}
		}
	}
	scheme := "http"
	if useTLS {
		scheme = "https"
	}
	if o.publicURL == "" {
		o.publicURL = scheme + "://" + o.addr
	}
	o.publicURL = strings.TrimRight(o.publicURL, "/")
	// Without a key, --dev takes the one of its data directory, made
	// by serve.New once the listeners are bound.
	secretsKeys, err := secretsKeys(o.setting("secrets-key-file"), o.secretsKeyFile, o.setting("secrets-key"), o.secretsKey)
	if err != nil {
		return err
	}
	if secretsKeys == nil && !o.dev {
		return errNoSecretsKey
	}
	// Everything above reads the configuration and nothing else: the
	// check stops here, before any file is made or port bound.
	if o.printConfig {
		return printConfig(stdout, o.settings)
	}
	if o.dev && o.adminToken == "" {
		o.adminToken = serve.DevAdminToken(o.dataDir)
	}
	log := newLogger(o.logFormat, stderr)
	var certs *certFiles
	if useTLS {
		if certs, err = loadCertFiles(o.tlsCert, o.tlsKey, log); err != nil {
			return err
		}
	}
	var roots *x509.CertPool
	if o.webhookCAFile != "" {
		pem, err := os.ReadFile(o.webhookCAFile)
		if err != nil {
			return fmt.Errorf("--webhook-ca-file: %w", err)
		}
		if roots, err = x509.SystemCertPool(); err != nil {
			roots = x509.NewCertPool()
		}
		if !roots.AppendCertsFromPEM(pem) {
			return fmt.Errorf("--webhook-ca-file %s holds no PEM certificate", o.webhookCAFile)
		}
	}
	var tp trace.TracerProvider
	if o.trace {
		sdk, err := tracing.Start(ctx, version)
		if err != nil {
			return err
		}
		// Last of all: the spans of the shutdown itself are sent too.
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := sdk.Shutdown(sctx); err != nil {
				log.Warn("trace exporter shutdown", "err", err.Error())
			}
		}()
		tp = sdk
	}

	// Every listener is bound before storage is opened and before anything
	// tells a developer where to call: with a port taken, the start fails
	// here, leaving no database file behind and no dev.json or banner
	// pointing at a service that is not there.
	binds := []bind{{o.addr, "--addr"}}
	if o.adminToken != "" {
		binds = append(binds, bind{o.adminAddr, "--admin-addr"})
	}
	if o.dashboardAddr != "" {
		binds = append(binds, bind{o.dashboardAddr, "--dashboard-addr"})
	}
	listeners, err := bindAll(binds)
	if err != nil {
		return err
	}
	notify := newNotifier(getenv, log)
	notify.status("opening the database and applying migrations")
	in, err := serve.New(ctx, serve.Config{
		TracerProvider: tp,
		DatabaseURL:    o.databaseURL, DataDir: o.dataDir, PublicURL: o.publicURL, AdminToken: o.adminToken,
		TestClock: o.testClock, TrustProxy: o.behindProxy, TrustedProxies: o.trustedProxies,
		AuthFailuresPerMinute: o.authFailures, PasswordChecks: o.passwordChecks, Logger: log, WebhookAllowHosts: o.webhookAllowHosts, Stage: o.stage,
		WebhookRootCAs: roots, RedisURL: o.redisURL, JobRescueAfter: o.jobRescueAfter,
		Delivery:             dispatch.Options{MaxInFlight: o.webhookInFlight, PerEndpoint: o.webhookPerEndpoint},
		DashboardOwnListener: o.dashboardAddr != "", Sessions: o.sessions, SecretsKeys: secretsKeys,
	})
	if err != nil {
		closeAll(listeners)
		return err
	}
	if certs != nil {
		in.Registry.MustRegister(certs.expiryGauge())
	}
	adminURL := scheme + "://" + o.adminAddr
	// The servers in the order of binds: the service has an operator
	// API exactly when it has a token, and a dashboard handler of its
	// own exactly when it has an address.
	servers := []*http.Server{newHTTPServer(o.addr, in.API, o.timeouts, log)}
	if in.Admin != nil {
		servers = append(servers, newHTTPServer(o.adminAddr, in.Admin, o.timeouts, log))
	}
	if in.Dashboard != nil {
		servers = append(servers, newHTTPServer(o.dashboardAddr, in.Dashboard, o.timeouts, log))
	}
	if len(servers) != len(listeners) {
		closeAll(listeners)
		in.Close(context.Background())
		return fmt.Errorf("serve: %d listeners bound for %d servers", len(listeners), len(servers))
	}
	if o.dev {
		dashURL := o.publicURL + dashboard.Prefix
		if o.dashboardAddr != "" {
			dashURL = scheme + "://" + o.dashboardAddr + dashboard.Prefix
		}
		info, err := serve.EnsureDev(ctx, in.Service, in.Accounts, o.dataDir, o.publicURL+"/v1", adminURL, o.adminToken, dashURL)
		if err != nil {
			closeAll(listeners)
			in.Close(context.Background())
			return err
		}
		printBanner(stdout, info, o)
	}
	if err := in.Start(ctx); err != nil {
		closeAll(listeners)
		in.Close(context.Background())
		return err
	}

	errc := make(chan error, len(servers))
	for i, srv := range servers {
		ln := listeners[i]
		go func() {
			var err error
			if useTLS {
				// A renewed certificate is served without a restart
				// (tlsfiles.go).
				srv.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: certs.GetCertificate}
				err = srv.ServeTLS(ln, "", "")
			} else {
				err = srv.Serve(framing.Guard(srv, ln, refuseAmbiguousFraming(log)))
			}
			if !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}()
	}
	notify.ready()
	log.Info("payd serving", "api", o.publicURL+"/v1", "admin", adminURL, "admin_enabled", in.Admin != nil,
		"storage", in.Store.Dialect(), "test_clock", o.testClock, "stage", o.stage.String(), "tracing", o.trace)

	var serveErr error
	select {
	case <-ctx.Done():
		notify.stopping()
		// Draining: the balancer sees /readyz fail and stops sending
		// requests here, while those it already sent are served.
		if o.drainDelay > 0 {
			in.Drain()
			log.Info("draining", "delay_s", o.drainDelay.Seconds())
			select {
			case <-time.After(o.drainDelay):
			case serveErr = <-errc:
			}
		}
	case serveErr = <-errc:
		notify.stopping()
	}
	// Graceful shutdown: stop accepting, let in-flight requests and jobs
	// finish, then close storage.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log.Info("shutting down")
	for _, srv := range servers {
		srv.Shutdown(shutdownCtx)
	}
	return errors.Join(serveErr, in.Close(shutdownCtx))
}

// refuseAmbiguousFraming answers a request that carried both
// Content-Length and Transfer-Encoding (package framing) with the
// contract's Error object; framing closes the connection after it.
func refuseAmbiguousFraming(log *slog.Logger) http.Handler {
	return httpapi.Frame(httpapi.FrameConfig{Logger: log}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteError(w, r, payd.Invalid("", "a request may not carry both Content-Length and Transfer-Encoding (RFC 9112, section 6.3); the connection is closed"))
	}))
}

// bind is an address to listen on and the flag that chose it.
type bind struct{ addr, flag string }

// bindAll binds the address of every server, in order. When one cannot be
// bound, the ones already bound are closed again and the error names the
// flag that chose the address.
func bindAll(binds []bind) ([]net.Listener, error) {
	var out []net.Listener
	for _, b := range binds {
		ln, err := net.Listen("tcp", b.addr)
		if err != nil {
			closeAll(out)
			return nil, fmt.Errorf("listen on %s (%s): %w: another process holds it (a payd started earlier?); stop it or choose another %s",
				b.addr, b.flag, err, b.flag)
		}
		out = append(out, ln)
	}
	return out, nil
}

func closeAll(listeners []net.Listener) {
	for _, ln := range listeners {
		ln.Close()
	}
}

// httpTimeouts bound how long a request may take to arrive (read) and its
// answer to leave (write, counted from the end of the request's head), on
// every route but those that lift them for themselves: the sandbox reset
// (payd.SandboxResetLimit).
type httpTimeouts struct{ read, write time.Duration }

func defaultHTTPTimeouts() httpTimeouts {
	return httpTimeouts{read: 30 * time.Second, write: 60 * time.Second}
}

func newHTTPServer(addr string, h http.Handler, to httpTimeouts, log *slog.Logger) *http.Server {
	return &http.Server{
		Addr: addr, Handler: h,
		ReadHeaderTimeout: min(10*time.Second, to.read), ReadTimeout: to.read, WriteTimeout: to.write,
		IdleTimeout: 120 * time.Second, MaxHeaderBytes: 1 << 20,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

func printBanner(w io.Writer, info *serve.DevInfo, o *serveOptions) {
	fmt.Fprintf(w, "\npayd is running in --dev mode (data in %s)\n\n", o.dataDir)
	fmt.Fprintf(w, "  API:          %s\n", info.APIURL)
	fmt.Fprintf(w, "  Operator API: %s   token: %s\n", info.AdminURL, info.AdminToken)
	if d := info.Dashboard; d != nil {
		fmt.Fprintf(w, "  Dashboard:    %s  %s  %s\n", d.URL, d.Email, d.Password)
	}
	if b := info.BackOffice; b != nil {
		fmt.Fprintf(w, "  Back office:  %s  %s  %s  second factor (TOTP) secret: %s\n", b.URL, b.Email, b.Password, b.TOTPSecret)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  Sandbox shops (test keys):\n")
	for _, s := range info.Shops {
		fmt.Fprintf(w, "    %s  shop_id=%s  secret_key=%s\n", s.Region, s.ShopID, s.SecretKey)
	}
	if len(info.Shops) > 0 {
		fmt.Fprintf(w, "\n  Try: curl -u %s:%s %s/shop\n\n", info.Shops[0].ShopID, info.Shops[0].SecretKey, info.APIURL)
	}
}
