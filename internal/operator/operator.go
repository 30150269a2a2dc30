// Package operator is the operator API (`/admin/v1`): merchants, shops,
// keys and the test clock, as JSON over HTTP on its own listener behind a
// bearer token. Errors use the contract's Error object like the merchant
// API.
package operator

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/internal/ratelimit"
	"github.com/paydhq/payd/money"
)

// Config assembles the operator API.
type Config struct {
	Service *payd.Service
	// Accounts keeps the merchants' dashboard users.
	Accounts *account.Service
	// Token is the bearer token operators present.
	Token string
	// TestClock is non-nil only with `serve --test-clock`; the clock route
	// exists only then.
	TestClock *payd.TestClock
	Logger    *slog.Logger
	Metrics   *httpapi.Metrics
	// Gatherer serves /metrics (no token: the listener is the operator's own).
	Gatherer prometheus.Gatherer
	// Limiter holds the failed-authentication counters (the merchant
	// API's Limiter, so that a shared one covers both); nil is a fresh
	// in-process one. Source and AuthFailuresPerMinute are as in the
	// merchant API's configuration: the operator token is throttled like
	// merchant keys.
	Limiter               ratelimit.Limiter
	Source                httpapi.Source
	AuthFailuresPerMinute int
	// AuthNow is the throttle's clock: the wall clock (nil), never the
	// test clock, so that moving a sandbox's time refills no budget.
	AuthNow func() time.Time
	// JobStats reads the job queue's live jobs by queue and kind, for
	// GET /admin/v1/jobs; nil serves 404 there.
	JobStats func(ctx context.Context) (any, error)
}

type server struct {
	// mux serves a confirmed proposal's request again (fourEyes).
	mux       *recordingMux
	svc       *payd.Service
	acc       *account.Service
	tokenHash [32]byte
	clock     *payd.TestClock
	throttle  *httpapi.AuthThrottle
	// patterns are the routes registered, in order.
	patterns []string
	jobStats func(ctx context.Context) (any, error)
	// log and source record who moved the test clock: it is no
	// merchant's object, so its moves are in the service's log, not in
	// a merchant's audit log.
	log    *slog.Logger
	source httpapi.Source
}

// New returns the operator API handler.
func New(cfg Config) http.Handler {
	_, h := newServer(cfg)
	return h
}

// newServer builds the server and its handler; the server keeps the
// patterns it registered so that tests can sweep every route.
func newServer(cfg Config) (*server, http.Handler) {
	s := &server{svc: cfg.Service, acc: cfg.Accounts, tokenHash: sha256.Sum256([]byte(cfg.Token)), clock: cfg.TestClock, jobStats: cfg.JobStats,
		log: cfg.Logger, source: cfg.Source}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.throttle = httpapi.NewAuthThrottle(httpapi.ThrottleConfig{
		Scope: "operator", Limiter: cfg.Limiter, Source: cfg.Source, FailuresPerMinute: cfg.AuthFailuresPerMinute,
		Now: cfg.AuthNow, Metrics: cfg.Metrics,
	})
	mux := &recordingMux{ServeMux: http.NewServeMux(), patterns: &s.patterns}
	s.mux = mux
	h := func(pattern string, fn func(*http.Request) (int, any, error)) {
		a, ok := routeAccess[pattern]
		if !ok {
			panic("operator: route " + pattern + " has no line in routeAccess")
		}
		mux.Handle(pattern, s.authed(a, fn))
	}
	h("POST /admin/v1/merchants", s.createMerchant)
	h("GET /admin/v1/merchants", s.listMerchants)
	h("GET /admin/v1/merchants/{id}", s.getMerchant)
	h("PATCH /admin/v1/merchants/{id}", s.updateMerchant)
	h("GET /admin/v1/calendar/{region}/holidays", s.listHolidays)
	h("PUT /admin/v1/calendar/{region}/holidays/{day}", s.putHoliday)
	h("DELETE /admin/v1/calendar/{region}/holidays/{day}", s.putHoliday)
	h("POST /admin/v1/shops", s.createShop)
	h("GET /admin/v1/shops", s.listShops)
	h("GET /admin/v1/shops/{id}", s.getShop)
	h("PATCH /admin/v1/shops/{id}", s.updateShop)
	h("POST /admin/v1/shops/{id}/{action}", s.shopAction)
	h("POST /admin/v1/shops/{id}/keys", s.issueKey)
	h("GET /admin/v1/shops/{id}/keys", s.listKeys)
	h("POST /admin/v1/keys/{id}/revoke", s.revokeKey)
	h("GET /admin/v1/payments/{id}", s.getPayment)
	h("GET /admin/v1/payments/{id}/events", s.paymentEvents)
	h("GET /admin/v1/providers", s.listProviders)
	h("GET /admin/v1/provider-routes", s.listProviderRoutes)
	h("PUT /admin/v1/provider-routes", s.putProviderRoute)
	h("DELETE /admin/v1/provider-routes/{region}/{method}/{currency}", s.deleteProviderRoute)
	h("GET /admin/v1/discrepancies", s.listDiscrepancies)
	h("GET /admin/v1/events/{id}/attempts", s.eventAttempts)
	h("POST /admin/v1/events/{id}/resend", s.resendEvent)
	h("POST /admin/v1/merchants/{id}/settlements", s.formSettlement)
	h("GET /admin/v1/settlements", s.listSettlementQueue)
	h("POST /admin/v1/settlements/{id}/{action}", s.advanceSettlement)
	h("GET /admin/v1/ledger/check", s.ledgerCheck)
	h("GET /admin/v1/jobs", s.getJobs)
	h("GET /admin/v1/merchants/{id}/balance", s.merchantBalance)
	h("GET /admin/v1/merchants/{id}/entries", s.merchantEntries)
	h("POST /admin/v1/merchants/{id}/deposit/{action}", s.deposit)
	h("POST /admin/v1/merchants/{id}/freeze", s.freeze)
	h("POST /admin/v1/merchants/{id}/unfreeze", s.freeze)
	s.disputeRoutes(mux, h)
	s.userRoutes(h)
	s.staffRoutes(h)
	s.proposalRoutes(h)
	if s.clock != nil {
		h("POST /admin/v1/clock/advance", s.advanceClock)
		h("GET /admin/v1/clock", s.getClock)
	}
	// Unknown routes answer with the Error object too, after the token, so
	// the route table is not visible to strangers.
	h("/", func(r *http.Request) (int, any, error) {
		return 0, nil, &payd.Error{Code: payd.CodeNotFound, Message: "no such route: " + r.Method + " " + r.URL.Path}
	})
	if cfg.Gatherer != nil {
		// A collector that cannot answer (the job queue's, while the
		// database is away) leaves out its own series, not the others:
		// payd_ready and the rate limit store's are what an outage is
		// alerted on.
		mux.Handle("GET /metrics", promhttp.HandlerFor(cfg.Gatherer, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	}
	return s, httpapi.Frame(httpapi.FrameConfig{Logger: cfg.Logger, Metrics: cfg.Metrics}, mux)
}

// recordingMux is a ServeMux that remembers its patterns (ServeMux does not
// list them).
type recordingMux struct {
	*http.ServeMux
	patterns *[]string
}

// Handle registers handler for pattern and remembers the pattern.
func (m *recordingMux) Handle(pattern string, handler http.Handler) {
	*m.patterns = append(*m.patterns, pattern)
	m.ServeMux.Handle(pattern, handler)
}

// HandleFunc registers fn for pattern and remembers the pattern.
func (m *recordingMux) HandleFunc(pattern string, fn func(http.ResponseWriter, *http.Request)) {
	m.Handle(pattern, http.HandlerFunc(fn))
}

// authed authenticates the request (actor), checks that the actor's role
// allows what the route asks (a's permissions), and writes fn's answer.
// A change runs with its OperatorAct in the context, so that its audit
// entry commits in the change's own transaction; one that wrote nothing
// through the store (the test clock) is recorded after it succeeded.
func (s *server) authed(a access, fn func(*http.Request) (int, any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		confirm := confirmationOf(r)
		var actor *payd.StaffActor
		if confirm != nil {
			// A proposal's request served again: its second person must
			// be allowed what it asks too.
			actor = confirm.confirmer
		} else if actor = signedInStaff(r.Context()); actor != nil {
			// The back office's request, its session authenticated.
		} else if actor, _ = s.actor(w, r); actor == nil {
			return
		}
		var body []byte
		action := actionOf(a, r)
		if action != "" || r.Method == http.MethodPatch {
			body = readBody(r)
			action = refineAction(action, body)
		}
		perms := a.perms(r, body)
		if err := actor.Allow(perms...); err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		if confirm != nil {
			if err := s.proposerStillMay(r, confirm.proposal, perms); err != nil {
				httpapi.WriteError(w, r, err)
				return
			}
		}
		if confirm == nil && payd.NeedsFourEyes(action) && actor.Via != payd.StaffViaBreakGlass {
			status, v, err := s.propose(r, actor, action, body)
			writeAnswer(w, r, status, v, err)
			return
		}
		var act *payd.OperatorAct
		if action != "" {
			act = &payd.OperatorAct{Actor: actor, Action: action, ObjectID: r.PathValue("id"), Detail: auditDetail(body)}
			if confirm != nil {
				act.Actor, act.Confirmer, act.ProposalID = confirm.proposer, confirm.confirmer, confirm.proposal.ID
			}
			if strings.HasPrefix(r.Pattern, "POST /admin/v1/merchants/{id}") || strings.HasPrefix(r.Pattern, "PATCH /admin/v1/merchants/{id}") {
				act.MerchantID = r.PathValue("id")
			}
		}
		r = r.WithContext(payd.WithOperatorAct(withActor(r.Context(), actor), act))
		status, v, err := fn(r)
		if err == nil && act != nil {
			err = s.svc.RecordOperatorAct(r.Context(), act)
		}
		writeAnswer(w, r, status, v, err)
	})
}

// writeAnswer writes a handler's answer: the error, a CSV file, or JSON.
func writeAnswer(w http.ResponseWriter, r *http.Request, status int, v any, err error) {
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	if f, ok := v.(csvBody); ok {
		f.write(w)
		return
	}
	httpapi.WriteJSON(w, status, v)
}

// actor authenticates the request's bearer token: a staff API token
// (account.IsStaffToken's form) is looked up, anything else is compared
// with the break-glass token in constant time (over hashes, so the
// comparison does not leak the token's length either). A wrong token is
// answered invalid_credentials, and like the merchant API, an address
// that presented wrong tokens too often is answered 429 before its token
// is checked.
func (s *server) actor(w http.ResponseWriter, r *http.Request) (*payd.StaffActor, bool) {
	attempt, err := s.throttle.Begin(r)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return nil, false
	}
	header := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(header, "Bearer ")
	addr := s.source.Addr(r).String()
	var actor *payd.StaffActor
	if ok && account.IsStaffToken(tok) && s.acc != nil {
		actor, err = s.acc.StaffByToken(r.Context(), tok, addr)
		if err != nil && !errors.Is(err, account.ErrStaffToken) {
			attempt.Release()
			httpapi.WriteError(w, r, err)
			return nil, false
		}
	} else {
		got := sha256.Sum256([]byte(tok))
		if ok && subtle.ConstantTimeCompare(got[:], s.tokenHash[:]) == 1 {
			actor = payd.BreakGlass(addr)
		}
	}
	if actor == nil {
		if header != "" {
			attempt.Failed()
		} else {
			attempt.Release()
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="payd-admin"`)
		httpapi.WriteError(w, r, &payd.Error{Code: payd.CodeInvalidCredentials, Message: "missing or wrong operator token"})
		return nil, false
	}
	attempt.Release()
	return actor, true
}

type actorKey struct{}

type signedInKey struct{}

// AsStaff returns ctx under which the operator API serves a request as
// actor, a staff member whose back-office session the caller has
// authenticated: the back office (internal/office) serves its pages and
// forms through the API in-process, so that one table of routes and
// permissions, the four-eyes rules and the audit hold for both. Only code
// of the process can make such a context; a request from the network
// never carries it.
func AsStaff(ctx context.Context, actor *payd.StaffActor) context.Context {
	return context.WithValue(ctx, signedInKey{}, actor)
}

func signedInStaff(ctx context.Context) *payd.StaffActor {
	a, _ := ctx.Value(signedInKey{}).(*payd.StaffActor)
	return a
}

func withActor(ctx context.Context, a *payd.StaffActor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// actorOf is the request's authenticated actor (authed put it there).
func actorOf(r *http.Request) *payd.StaffActor {
	a, _ := r.Context().Value(actorKey{}).(*payd.StaffActor)
	return a
}

func decode(r *http.Request, dst any) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return payd.Invalid("", "could not read the request body")
	}
	return httpapi.Decode(body, dst)
}

func (s *server) createMerchant(r *http.Request) (int, any, error) {
	var in payd.MerchantCreate
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	m, err := s.svc.CreateMerchant(r.Context(), in)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, merchantView(m), nil
}

func (s *server) listMerchants(r *http.Request) (int, any, error) {
	lp, print, err := httpapi.ParseList(r.URL.Query())
	if err != nil {
		return 0, nil, err
	}
	p, err := s.svc.ListMerchants(r.Context(), &payd.MerchantListParams{ListParams: lp})
	return http.StatusOK, pageOf(p, print, merchantView), err
}

func (s *server) getMerchant(r *http.Request) (int, any, error) {
	m, err := s.svc.GetMerchant(r.Context(), r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, merchantView(m), nil
}

// shopCreateIn is `POST /admin/v1/shops`: payd.ShopCreate with the
// settings as operators write them.
type shopCreateIn struct {
	MerchantID      string         `json:"merchant_id"`
	Region          payd.Region    `json:"region"`
	Name            string         `json:"name"`
	DefaultCurrency money.Currency `json:"default_currency"`
	Settings        *settingsJSON  `json:"settings"`
}

func (s *server) createShop(r *http.Request) (int, any, error) {
	var in shopCreateIn
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	create := payd.ShopCreate{MerchantID: in.MerchantID, Region: in.Region, Name: in.Name, DefaultCurrency: in.DefaultCurrency}
	if in.Settings != nil {
		settings := in.Settings.settings()
		create.Settings = &settings
	}
	shop, err := s.svc.CreateShop(r.Context(), create)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, shopView(shop), nil
}

func (s *server) listShops(r *http.Request) (int, any, error) {
	lp, print, err := httpapi.ParseList(r.URL.Query(), "merchant_id")
	if err != nil {
		return 0, nil, err
	}
	p, err := s.svc.ListShops(r.Context(), &payd.ShopListParams{ListParams: lp, MerchantID: r.URL.Query().Get("merchant_id")})
	return http.StatusOK, pageOf(p, print, shopView), err
}

func (s *server) getShop(r *http.Request) (int, any, error) {
	shop, err := s.svc.GetShop(r.Context(), r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, shopView(shop), nil
}

func (s *server) updateShop(r *http.Request) (int, any, error) {
	var patch json.RawMessage
	if err := decode(r, &patch); err != nil {
		return 0, nil, err
	}
	shop, err := s.svc.UpdateShopSettings(r.Context(), r.PathValue("id"), func(current payd.ShopSettings) (payd.ShopSettings, error) {
		return mergeSettings(current, patch)
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, shopView(shop), nil
}

// mergeSettings applies patch, a JSON object of settings as operators
// write them (settingsJSON), to current: a field given null returns to its
// default, the others take the value given. Unknown fields are refused so
// that a typo in an operator's request is not silently ignored.
func mergeSettings(current payd.ShopSettings, patch json.RawMessage) (payd.ShopSettings, error) {
	raw, err := json.Marshal(settingsView(current))
	if err != nil {
		return payd.ShopSettings{}, err
	}
	merged := map[string]json.RawMessage{}
	_ = json.Unmarshal(raw, &merged)
	var changes map[string]json.RawMessage
	if err := json.Unmarshal(patch, &changes); err != nil {
		return payd.ShopSettings{}, payd.Invalid("", "the body must be a JSON object of settings")
	}
	for k, v := range changes {
		if string(v) == "null" {
			delete(merged, k)
		} else {
			merged[k] = v
		}
	}
	raw, _ = json.Marshal(merged)
	var next settingsJSON
	if err := httpapi.DecodeJSON(raw, &next, httpapi.DecodeOptions{RejectUnknown: true}); err != nil {
		return payd.ShopSettings{}, err
	}
	return next.settings(), nil
}

func (s *server) shopAction(r *http.Request) (int, any, error) {
	shop, err := s.svc.ChangeShopState(r.Context(), r.PathValue("id"), payd.ShopAction(r.PathValue("action")))
	if errors.Is(err, payd.ErrNoRows) {
		err = payd.NotFound("shop")
	}
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, shopView(shop), nil
}

func (s *server) issueKey(r *http.Request) (int, any, error) {
	var in struct {
		Mode payd.Mode `json:"mode"`
	}
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	key, secret, err := s.svc.IssueKey(r.Context(), r.PathValue("id"), in.Mode)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, keyIssued{keyJSON: keyView(key), Secret: secret}, nil
}

func (s *server) listKeys(r *http.Request) (int, any, error) {
	keys, err := s.svc.ListKeys(r.Context(), r.PathValue("id"))
	if keys == nil {
		keys = []*payd.APIKey{}
	}
	return http.StatusOK, items[keyJSON]{views(keys, keyView)}, err
}

func (s *server) revokeKey(r *http.Request) (int, any, error) {
	key, err := s.svc.RevokeKey(r.Context(), r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, keyView(key), nil
}

func (s *server) advanceClock(r *http.Request) (int, any, error) {
	var in struct {
		Seconds *int64 `json:"seconds"`
	}
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	if in.Seconds == nil || *in.Seconds < 0 || *in.Seconds > 10*365*86400 {
		return 0, nil, payd.Invalid("seconds", "seconds must be an integer 0..315360000")
	}
	now := s.clock.Advance(time.Duration(*in.Seconds) * time.Second)
	s.log.Info("test clock advanced by the operator", "seconds", *in.Seconds, "now", now.Format(time.RFC3339),
		"addr", s.source.Addr(r).String())
	return http.StatusOK, map[string]any{"now": now}, nil
}

func (s *server) getClock(r *http.Request) (int, any, error) {
	return http.StatusOK, map[string]any{"now": s.clock.Now()}, nil
}

// getPayment looks a payment up across shops, with what the merchant does
// not see: shop, provider attempts.
func (s *server) getPayment(r *http.Request) (int, any, error) {
	p, err := s.svc.OperatorPayment(r.Context(), r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, paymentView(p), nil
}

// paymentEvents lists a payment's events, newest first, each with its
// delivery summary; an event's attempts are GET /admin/v1/events/{id}/attempts.
func (s *server) paymentEvents(r *http.Request) (int, any, error) {
	list, err := s.svc.OperatorPaymentEvents(r.Context(), r.PathValue("id"))
	if list == nil {
		list = []*payd.Event{}
	}
	return http.StatusOK, items[eventJSON]{views(list, eventView)}, err
}

func (s *server) listDiscrepancies(r *http.Request) (int, any, error) {
	lp, print, err := httpapi.ParseList(r.URL.Query())
	if err != nil {
		return 0, nil, err
	}
	p, err := s.svc.ListDiscrepancies(r.Context(), &lp)
	return http.StatusOK, pageOf(p, print, discrepancyView), err
}

// eventAttempts is the full attempt log of an event: time, endpoint, status
// code, duration, the kept start of the answer, error.
func (s *server) eventAttempts(r *http.Request) (int, any, error) {
	list, err := s.svc.EventAttempts(r.Context(), r.PathValue("id"))
	if list == nil {
		list = []*payd.DeliveryAttempt{}
	}
	return http.StatusOK, items[deliveryAttemptJSON]{views(list, deliveryAttemptView)}, err
}

// resendEvent delivers any merchant's event again to its shop's endpoints
// subscribed to its type, as the merchant's own resend would, and answers
// with the event and its delivery summary.
func (s *server) resendEvent(r *http.Request) (int, any, error) {
	ev, err := s.svc.ResendEventAsOperator(r.Context(), r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, eventView(ev), nil
}

// freeze freezes or unfreezes a merchant's payouts in one contour:
// {"test": true|false, "reason": "manual_review"}. It answers with the
// contract's SettlementStatus, the object a merchant reads in its shop.
func (s *server) freeze(r *http.Request) (int, any, error) {
	var in struct {
		Test   bool              `json:"test"`
		Reason payd.FreezeReason `json:"reason"`
	}
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	frozen := strings.HasSuffix(r.URL.Path, "/freeze")
	st, err := s.svc.ChangeFreeze(r.Context(), r.PathValue("id"), in.Test, frozen, in.Reason)
	return http.StatusOK, st, err
}

// formSettlement forms a register on an operator's request:
// {"test": bool, "currency": "RUB", "date": "2026-01-31"}.
func (s *server) formSettlement(r *http.Request) (int, any, error) {
	var in struct {
		Test     bool           `json:"test"`
		Currency money.Currency `json:"currency"`
		Date     string         `json:"date"`
	}
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	if !in.Currency.Valid() {
		return 0, nil, payd.Invalid("currency", "currency must be one of RUB, KZT, USD, EUR")
	}
	st, err := s.svc.FormSettlement(r.Context(), r.PathValue("id"), in.Test, in.Currency, in.Date)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, s.settlement(st), nil
}

var settlementActions = map[string]payd.SettlementState{
	"approve": payd.SettlementApproved, "send": payd.SettlementSent, "pay": payd.SettlementPaid, "fail": payd.SettlementFailed,
}

// advanceSettlement is approve, send, pay or fail.
func (s *server) advanceSettlement(r *http.Request) (int, any, error) {
	to, ok := settlementActions[r.PathValue("action")]
	if !ok {
		return 0, nil, payd.Invalid("action", "action must be approve, send, pay or fail")
	}
	st, err := s.svc.AdvanceSettlement(r.Context(), r.PathValue("id"), to)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, s.settlement(st), nil
}

// ledgerCheck runs the money invariants: {"ok": bool, "problems": [...]}.
func (s *server) ledgerCheck(r *http.Request) (int, any, error) {
	problems, err := s.svc.CheckLedger(r.Context())
	if problems == nil {
		problems = []string{}
	}
	return http.StatusOK, map[string]any{"ok": len(problems) == 0, "problems": problems}, err
}

// merchantBalance is the trial balance of a merchant's contour: every
// bucket per currency, straight from the postings (?test=true for the
// sandbox), each sum written as money (balanceView).
func (s *server) merchantBalance(r *http.Request) (int, any, error) {
	b, err := s.svc.TrialBalance(r.Context(), r.PathValue("id"), r.URL.Query().Get("test") == "true")
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, balanceView(b), nil
}

// merchantEntries lists a merchant's ledger entries with their postings:
// ?currency=RUB&from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z[&test=true].
func (s *server) merchantEntries(r *http.Request) (int, any, error) {
	q := r.URL.Query()
	from, err1 := time.Parse(time.RFC3339, q.Get("from"))
	to, err2 := time.Parse(time.RFC3339, q.Get("to"))
	if err1 != nil || err2 != nil {
		return 0, nil, payd.Invalid("from", "from and to must be RFC 3339 times")
	}
	list, err := s.svc.LedgerEntries(r.Context(), r.PathValue("id"), q.Get("test") == "true", money.Currency(q.Get("currency")), from, to)
	if list == nil {
		list = []*ledger.Entry{}
	}
	return http.StatusOK, items[entryJSON]{views(list, entryView)}, err
}

func (s *server) updateMerchant(r *http.Request) (int, any, error) {
	var in payd.MerchantUpdate
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	m, err := s.svc.UpdateMerchant(r.Context(), r.PathValue("id"), in)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, merchantView(m), nil
}

func (s *server) listHolidays(r *http.Request) (int, any, error) {
	days, err := s.svc.Holidays(r.Context(), payd.Region(r.PathValue("region")))
	return http.StatusOK, map[string]any{"items": days}, err
}

// putHoliday adds (PUT) or removes (DELETE) a holiday of a region.
func (s *server) putHoliday(r *http.Request) (int, any, error) {
	region, day := payd.Region(r.PathValue("region")), r.PathValue("day")
	err := s.svc.SetHoliday(r.Context(), region, day, r.Method == http.MethodPut)
	return http.StatusOK, map[string]any{"region": region, "day": day, "holiday": r.Method == http.MethodPut}, err
}

// deposit holds or releases a security deposit:
// {"test": bool, "amount": {"value": "1000.00", "currency": "RUB"}}.
func (s *server) deposit(r *http.Request) (int, any, error) {
	var in struct {
		Test   bool              `json:"test"`
		Amount *httpapi.AmountIn `json:"amount"`
	}
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	action := r.PathValue("action")
	if action != "hold" && action != "release" {
		return 0, nil, payd.Invalid("action", "action must be hold or release")
	}
	amt, err := in.Amount.Parse("amount")
	if err != nil {
		return 0, nil, err
	}
	b, err := s.svc.ChangeDeposit(r.Context(), r.PathValue("id"), in.Test, amt, action == "hold")
	return http.StatusOK, b, err
}

// getJobs is the job queue as operators watch it (docs/operations.md,
// "Background work").
func (s *server) getJobs(r *http.Request) (int, any, error) {
	if s.jobStats == nil {
		return 0, nil, payd.NotFound("job queue")
	}
	st, err := s.jobStats(r.Context())
	return http.StatusOK, st, err
}
