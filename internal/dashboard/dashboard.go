package dashboard

import (
	"embed"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/internal/mac"
	"github.com/paydhq/payd/internal/signinpage"
	"github.com/paydhq/payd/internal/webpage"
)

//go:embed static
var staticFS embed.FS

// Static is the dashboard's stylesheet and script, which the back office
// (internal/office) serves as its own: one look for both.
func Static() fs.FS {
	static, _ := fs.Sub(staticFS, "static")
	return static
}

// Config assembles a Handler.
type Config struct {
	Service *payd.Service
	// Accounts signs users in and manages them.
	Accounts *account.Service
	// Key binds the forms to their session (CSRF tokens).
	Key []byte
	Log *slog.Logger
	// Source finds the client's address behind a trusted proxy.
	Source httpapi.Source
	// Throttle counts failed sign-ins, codes and setup links per
	// address, as the APIs count failed keys, shared through Redis when
	// the service is configured with it. (Failures per account are the
	// account service's: payd.SignInGuard.)
	Throttle *httpapi.AuthThrottle
	// Secure marks the session cookie Secure: the dashboard is behind TLS.
	Secure bool
	// TestClock is set only with `serve --test-clock`: the sandbox page
	// then shows it, and advances it through the service, which allows
	// that only while no other merchant runs on it (Service.AdvanceTestClock).
	TestClock *payd.TestClock
}

// Handler serves the dashboard's pages.
type Handler struct {
	svc      *payd.Service
	acc      *account.Service
	forms    mac.Signer
	log      *slog.Logger
	source   httpapi.Source
	throttle *httpapi.AuthThrottle
	secure   bool
	clock    *payd.TestClock
	// origins refuses posts a browser made for another site.
	origins *http.CrossOriginProtection
	// out are the signed-out pages and the session's cookie.
	out *signinpage.Pages
}

// New returns the dashboard.
func New(cfg Config) *Handler {
	h := &Handler{svc: cfg.Service, acc: cfg.Accounts, forms: mac.New(cfg.Key, "dashboard"), log: cfg.Log,
		source: cfg.Source, throttle: cfg.Throttle, secure: cfg.Secure, clock: cfg.TestClock,
		origins: http.NewCrossOriginProtection()}
	h.out = h.signInPages(cfg)
	return h
}

// maxForm bounds every form the dashboard reads, except evidence uploads,
// which have their own bound.
const maxForm = 16 << 10

// Register mounts the dashboard on mux.
func (h *Handler) Register(mux *http.ServeMux) {
	files := http.StripPrefix(Prefix+"static/", http.FileServer(http.FS(Static())))
	mux.Handle("GET "+Prefix+"static/", webpage.AppHeaders(webpage.CacheStatic(files)))

	h.out.Register(mux, webpage.AppHeaders, h.form)
	mux.Handle("POST "+Prefix+"signout", webpage.AppHeaders(h.form(h.signOut)))

	for _, p := range pages(h) {
		h.mount(mux, p)
	}
}

// form bounds the body of a post before anything reads it and refuses
// posts a browser made for another site: the CSRF token is checked too,
// by each action, this is the first fence. The standard library's check
// reads Sec-Fetch-Site where the browser sends it, else compares Origin
// with Host, and lets a client that sends neither (not a browser) through
// to the CSRF token; no origin is trusted and no path bypasses it, since
// every form of the dashboard is posted by its own pages. It is asked
// here rather than wrapped around the handler so that the refusal is the
// dashboard's page in the visitor's language, not a bare 403.
func (h *Handler) form(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.origins.Check(r) != nil {
			h.refuse(w, r, http.StatusForbidden, "This form was sent from another site.")
			return
		}
		if isMultipart(r) {
			// A form with a file (evidence): its own bound, the file
			// left for the handler (upload_form.go).
			withFile, err := readUploadForm(w, r)
			if err != nil {
				h.refuse(w, r, http.StatusRequestEntityTooLarge, "The form is too large or not readable.")
				return
			}
			next(w, withFile)
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

// now is the service's clock, so that pages agree with the API under a
// test clock.
func (h *Handler) now() time.Time { return h.svc.Clock().Now() }
