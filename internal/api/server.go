package api

import (
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/internal/ratelimit"
	"github.com/paydhq/payd/openapi"
)

// Config assembles the merchant API.
type Config struct {
	Service *payd.Service
	Limiter ratelimit.Limiter
	Logger  *slog.Logger
	Metrics *httpapi.Metrics
	// TrustProxy takes the client address from X-Forwarded-For, for a
	// deployment behind a TLS-terminating proxy; TrustedProxies, when
	// set, limits that to connections from those addresses (see
	// httpapi.Source).
	TrustProxy     bool
	TrustedProxies []netip.Prefix
	// AuthFailuresPerMinute is the failed authentications a source
	// address may make per minute before it is throttled (zero:
	// httpapi.DefaultAuthFailuresPerMinute). The counters live in Limiter.
	AuthFailuresPerMinute int
	// AuthNow is the throttle's clock: the wall clock (nil), never the
	// test clock, so that moving a sandbox's time refills no budget.
	AuthNow func() time.Time
	// Extra routes (hosted pages) mounted on the same listener.
	Extra func(mux *http.ServeMux)
	// Draining, when it returns true, makes /readyz answer 503 while
	// requests are still served: the instance is about to stop and the
	// load balancer should send new requests elsewhere.
	Draining func() bool
}

// Server is the merchant API handler.
type Server struct {
	svc      *payd.Service
	draining func() bool
	limiter  ratelimit.Limiter
	source   httpapi.Source
	throttle *httpapi.AuthThrottle
	metrics  *httpapi.Metrics
	mux      *http.ServeMux
	// openapiDoc is the contract document as this stage serves it.
	openapiDoc []byte
	// built holds the patterns of later-stage routes registered with
	// their handlers, so laterStages leaves them alone.
	built map[string]bool
}

// handler is an authenticated endpoint; a returned error is written as the
// Error object.
type handler func(w http.ResponseWriter, r *http.Request, p *payd.Principal) error

// New returns the merchant API with its health routes.
func New(cfg Config) http.Handler {
	s := &Server{svc: cfg.Service, limiter: cfg.Limiter, draining: cfg.Draining, metrics: cfg.Metrics, mux: http.NewServeMux(),
		source:     httpapi.Source{TrustProxy: cfg.TrustProxy, TrustedProxies: cfg.TrustedProxies},
		openapiDoc: openapi.ForStage(int(cfg.Service.Stage())), built: map[string]bool{}}
	if s.limiter == nil {
		s.limiter = ratelimit.NewLocal()
	}
	s.throttle = httpapi.NewAuthThrottle(httpapi.ThrottleConfig{
		Scope: "merchant", Limiter: s.limiter, Source: s.source, FailuresPerMinute: cfg.AuthFailuresPerMinute,
		Now: cfg.AuthNow, Metrics: cfg.Metrics,
	})
	s.routes()
	if cfg.Extra != nil {
		cfg.Extra(s.mux)
	}
	s.mux.HandleFunc("/", s.unmatched)
	return httpapi.Frame(httpapi.FrameConfig{Logger: cfg.Logger, Metrics: cfg.Metrics, Quiet: listenPoll}, s.mux)
}

// ListenUserAgent is the product `payd listen` names in its User-Agent
// ("payd-listen/<version>"). It polls GET /v1/events every second while it
// runs; those polls are logged at debug, so that the request log at the
// default level keeps the developer's own calls readable.
const ListenUserAgent = "payd-listen"

// listenPoll picks out a successful poll of the event list by `payd
// listen`, whose log line is written at debug level.
func listenPoll(r *http.Request, route string, status int) bool {
	return (route == "GET /v1/events" || route == "GET /v1/test/events") && status == http.StatusOK && strings.HasPrefix(r.UserAgent(), ListenUserAgent+"/")
}

func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	m.HandleFunc("GET /readyz", s.ready)
	m.HandleFunc("GET /v1/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteRaw(w, http.StatusOK, s.openapiDoc)
	})

	m.Handle("GET /v1/shop", s.auth(s.getShop))
	m.Handle("GET /v1/payment-methods", s.auth(s.listPaymentMethods))

	m.Handle("POST /v1/payments", s.auth(s.createPayment))
	m.Handle("GET /v1/payments", s.auth(s.listPayments))
	m.Handle("GET /v1/payments/{payment_id}", s.auth(s.getPayment))
	m.Handle("POST /v1/payments/{payment_id}/capture", s.auth(s.capturePayment))
	m.Handle("POST /v1/payments/{payment_id}/cancel", s.auth(s.cancelPayment))
	m.Handle("POST /v1/test/payments/{payment_id}/simulate", s.auth(simulated("payment_id", s.svc.SimulateOutcome)))

	m.Handle("POST /v1/refunds", s.auth(s.createRefund))
	m.Handle("GET /v1/refunds", s.auth(s.listRefunds))
	m.Handle("GET /v1/refunds/{refund_id}", s.auth(s.getRefund))
	m.Handle("GET /v1/balance", s.auth(s.getBalance))
	m.Handle("GET /v1/settlements", s.auth(s.listSettlements))
	m.Handle("GET /v1/settlements/{settlement_id}", s.auth(s.getSettlement))
	m.HandleFunc("GET "+SettlementReportPath+"{file}", s.settlementReport)

	m.Handle("GET /v1/events", s.auth(s.listEvents))
	m.Handle("GET /v1/events/{event_id}", s.auth(s.getEvent))
	m.Handle("POST /v1/events/{event_id}/resend", s.auth(s.resendEvent))
	m.Handle("GET /v1/test/events", s.auth(s.eventFeed))
	m.Handle("POST /v1/test/reset", s.auth(s.resetSandbox))

	m.Handle("POST /v1/webhook-endpoints", s.auth(s.createWebhookEndpoint))
	m.Handle("GET /v1/webhook-endpoints", s.auth(s.listWebhookEndpoints))
	m.Handle("GET /v1/webhook-endpoints/{endpoint_id}", s.auth(s.getWebhookEndpoint))
	m.Handle("PATCH /v1/webhook-endpoints/{endpoint_id}", s.auth(s.updateWebhookEndpoint))
	m.Handle("DELETE /v1/webhook-endpoints/{endpoint_id}", s.auth(s.deleteWebhookEndpoint))

	if s.svc.Stage() >= payd.StageM2 {
		s.disputeRoutes()
	}
	if s.svc.Stage() >= payd.StageM5 {
		s.payoutRoutes()
		s.linkRoutes()
	}
	s.laterStages()
}

// ready reports whether storage answers and its schema is current, and the
// instance is not draining.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	if s.draining != nil && s.draining() {
		httpapi.NoteUnavailable(w, httpapi.CauseDraining)
		httpapi.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "draining"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.svc.Store().Ready(ctx); err != nil {
		httpapi.Logger(r.Context()).Warn("not ready", "err", err.Error())
		httpapi.NoteUnavailable(w, httpapi.CauseNotReady)
		httpapi.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// unmatched answers unknown routes with 404 and known routes called with a
// wrong method with 405 and an Allow header, both as the Error object.
func (s *Server) unmatched(w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete} {
		if method == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = method
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/" {
			allowed = append(allowed, method)
		}
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		httpapi.WriteJSON(w, http.StatusMethodNotAllowed, httpapi.ErrorBody{
			Type: "error", Code: payd.CodeInvalidRequest, RequestID: httpapi.RequestID(r.Context()),
			Description: "method " + r.Method + " is not allowed here; allowed: " + strings.Join(allowed, ", "),
		})
		return
	}
	httpapi.WriteError(w, r, &payd.Error{Code: payd.CodeNotFound, Message: "no such route: " + r.Method + " " + r.URL.Path})
}

// moneyOps are the operations that move money or may: when the shared rate
// limit store cannot be reached they answer 503 provider_unavailable
// rather than run uncounted (Errors: "also money operations when limit
// infrastructure is unavailable"). Every other authenticated request is a
// read or a change of settings and is counted by the in-process stand-in
// meanwhile (docs/operations.md).
var moneyOps = map[string]bool{
	"POST /v1/payments":                            true,
	"POST /v1/payments/{payment_id}/capture":       true,
	"POST /v1/payments/{payment_id}/cancel":        true,
	"POST /v1/test/payments/{payment_id}/simulate": true,
	"POST /v1/refunds":                             true,
	"POST /v1/test/payments/{payment_id}/disputes": true,
	"POST /v1/test/disputes/{dispute_id}/simulate": true,
	"POST /v1/payouts":                             true,
}

// limitUnavailableRetryAfter is the Retry-After of a money operation refused
// because the rate limit store is unreachable: about when the limiter next
// tries it.
const limitUnavailableRetryAfter = 2 * time.Second

// errLimitUnavailable refuses a money operation whose rate cannot be counted.
var errLimitUnavailable = &payd.Error{Code: payd.CodeProviderUnavailable, Cause: payd.CauseRateLimitStore, RetryAfter: limitUnavailableRetryAfter,
	Message: "rate limits cannot be checked at the moment; retry after the Retry-After seconds with the same Idempotency-Key"}

// allow applies one of the key's rates to a request. A money operation is
// refused when the shared limit store cannot be reached; any other request
// takes the in-process stand-in's answer.
func (s *Server) allow(r *http.Request, key string, perMinute int, exceeded string) error {
	ok, wait, err := s.limiter.Allow(r.Context(), key, perMinute, s.svc.Clock().Now())
	if err != nil && moneyOps[r.Pattern] {
		return errLimitUnavailable
	}
	if !ok {
		return &payd.Error{Code: payd.CodeTooManyRequests, RetryAfter: wait, Message: exceeded}
	}
	return nil
}

var errNoCredentials = &payd.Error{Code: payd.CodeInvalidCredentials, Message: "missing or invalid credentials: use HTTP Basic auth with shop_id and secret_key"}

// auth authenticates the request, applies the key's request rate, and runs h.
// A source address that failed authentication too often is answered 429
// before its credentials are read; only credentials presented and refused
// count as failures (a request without any is not a guess, and some HTTP
// clients send one before answering the 401 challenge).
func (s *Server) auth(h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The address's failure token is held only while the key is
		// checked (microseconds on the cache), so a shop's own burst of
		// right keys from one address never runs the bucket dry.
		attempt, err := s.throttle.Begin(r)
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		shopID, secret, ok := basicAuth(r)
		if !ok {
			attempt.Release()
			w.Header().Set("WWW-Authenticate", `Basic realm="payd"`)
			httpapi.WriteError(w, r, errNoCredentials)
			return
		}
		p, err := s.svc.Authenticate(r.Context(), shopID, secret, s.source.Addr(r))
		switch {
		case errors.Is(err, payd.ErrKeyRotatedOut):
			s.metrics.KeyUsed(payd.KeyExpired)
		case err == nil:
			s.metrics.KeyUsed(p.KeyState)
		}
		if err != nil {
			if payd.ErrorCodeOf(err) == payd.CodeInvalidCredentials {
				attempt.Failed()
				w.Header().Set("WWW-Authenticate", `Basic realm="payd"`)
			} else {
				attempt.Release()
			}
			httpapi.WriteError(w, r, err)
			return
		}
		attempt.Release()
		if err := s.allow(r, "req:"+p.KeyID, p.Shop.Settings.RequestLimit(),
			"request rate of this key exceeded; retry after the Retry-After seconds"); err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		if err := h(w, r, p); err != nil {
			httpapi.WriteError(w, r, err)
		}
	})
}

// basicAuth parses HTTP Basic credentials strictly: a malformed header is
// the same as a missing one.
func basicAuth(r *http.Request) (user, pass string, ok bool) {
	h := r.Header.Get("Authorization")
	const prefix = "Basic "
	if len(h) < len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", "", false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(h[len(prefix):]))
	if err != nil {
		return "", "", false
	}
	user, pass, ok = strings.Cut(string(raw), ":")
	return user, pass, ok && user != "" && pass != ""
}
