// Package office is the operator's back office: the pages the operator's
// staff work in, served under Prefix on the operator API's listener. It
// is built as the merchant dashboard is (server-rendered pages, no inline
// script, CSRF tokens bound to the session, the same stylesheet, Russian
// and English), and it holds no rule of its own: every page reads, and
// every form changes, through the operator API in-process (api.go) as the
// signed-in staff member, so the API's one table of routes and
// permissions, its four-eyes proposals and its audit entries hold for the
// pages exactly as for a token. What the office adds is the staff
// sign-in (the account package's, with a second factor that is
// mandatory) and the pages.
package office

import (
	"log/slog"
	"net/http"

	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/dashboard"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/internal/mac"
	"github.com/paydhq/payd/internal/signinpage"
	"github.com/paydhq/payd/internal/webpage"
)

// Prefix is where the back office is served on the operator listener.
const Prefix = "/office/"

// SetupPath is the page that takes a staff member's setup token.
const SetupPath = Prefix + "setup/"

// Config assembles a Handler.
type Config struct {
	// Accounts signs staff in.
	Accounts *account.Service
	// API is the operator API's handler, which the pages call in-process.
	API http.Handler
	// Key binds the forms to their session (CSRF tokens).
	Key []byte
	Log *slog.Logger
	// Source finds the client's address behind a trusted proxy.
	Source httpapi.Source
	// Throttle counts failed sign-ins, codes and setup links per address,
	// as the dashboard's does.
	Throttle *httpapi.AuthThrottle
	// Secure marks the session cookie Secure: the listener is behind TLS.
	Secure bool
}

// Handler serves the back office.
type Handler struct {
	acc      *account.Service
	api      http.Handler
	forms    mac.Signer
	log      *slog.Logger
	source   httpapi.Source
	throttle *httpapi.AuthThrottle
	secure   bool
	origins  *http.CrossOriginProtection
	// out are the signed-out pages and the session's cookie.
	out *signinpage.Pages
}

// New returns the back office.
func New(cfg Config) *Handler {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{acc: cfg.Accounts, api: cfg.API, forms: mac.New(cfg.Key, "office"), log: log, source: cfg.Source,
		throttle: cfg.Throttle, secure: cfg.Secure, origins: http.NewCrossOriginProtection()}
	h.out = h.signInPages(cfg)
	return h
}

// maxForm bounds every form the back office reads.
const maxForm = 16 << 10

// Register mounts the back office on mux.
func (h *Handler) Register(mux *http.ServeMux) {
	files := http.StripPrefix(Prefix+"static/", http.FileServer(http.FS(dashboard.Static())))
	mux.Handle("GET "+Prefix+"static/", webpage.AppHeaders(webpage.CacheStatic(files)))
	h.out.Register(mux, webpage.AppHeaders, h.form)
	mux.Handle("POST "+Prefix+"signout", webpage.AppHeaders(h.form(h.signOut)))
	for _, p := range pages(h) {
		pattern := p.method + " " + Prefix + p.path
		if p.path == "" {
			pattern += "{$}"
		}
		var next http.Handler = h.signedIn(p)
		if p.method == http.MethodPost {
			next = h.form(next.ServeHTTP)
		}
		mux.Handle(pattern, webpage.AppHeaders(next))
	}
}

// form bounds a post's body and refuses one a browser made for another
// site (the CSRF token is checked too, by each form).
func (h *Handler) form(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.origins.Check(r) != nil {
			h.refuse(w, r, http.StatusForbidden, "This form was sent from another site.")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		if err := r.ParseForm(); err != nil {
			h.refuse(w, r, http.StatusRequestEntityTooLarge, "The form is too large or not readable.")
			return
		}
		next(w, r)
	})
}
