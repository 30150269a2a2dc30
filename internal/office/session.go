package office

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

// cookieName is the back office's session cookie: its value is the
// session's secret token, of which the database keeps only a hash. It
// differs from the dashboard's, and the kinds' sessions are kept apart by
// the account service anyway.
const cookieName = "payd_office"

// langCookie keeps the language a staff member chose.
const langCookie = "payd_office_lang"

// Languages are the back office's: Russian and English.
var languages = []string{"ru", "en"}

// chooseLocale is ?lang= (kept in a cookie), else the cookie, else the
// browser's Accept-Language among the back office's languages, else
// Russian.
func chooseLocale(w http.ResponseWriter, r *http.Request) webpage.Locale {
	lang := r.URL.Query().Get("lang")
	if slices.Contains(languages, lang) {
		http.SetCookie(w, &http.Cookie{Name: langCookie, Value: lang, Path: Prefix, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	} else if c, err := r.Cookie(langCookie); err == nil && slices.Contains(languages, c.Value) {
		lang = c.Value
	} else if l := webpage.Choose(r, "", payd.RegionRU).Lang(); slices.Contains(languages, l) {
		lang = l
	} else {
		lang = "ru"
	}
	return webpage.For(lang)
}

func (h *Handler) setSession(w http.ResponseWriter, token string) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: token, Path: Prefix,
		HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteStrictMode})
}

func (h *Handler) clearSession(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: Prefix, MaxAge: -1,
		HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteStrictMode})
}

func sessionToken(r *http.Request) string {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return ""
	}
	return c.Value
}

// csrf is the form token of a session: a MAC of its id.
func (h *Handler) csrf(s *payd.Session) string { return h.forms.Sign("csrf", s.ID) }

func (h *Handler) validCSRF(s *payd.Session, r *http.Request) bool {
	return s != nil && h.forms.Verify(r.PostForm.Get("csrf"), "csrf", s.ID)
}

// signedIn finds the request's session and its member, and runs the
// page; a post must carry the session's CSRF token. What the member's
// role allows is the operator API's to say, on every call the page makes.
func (h *Handler) signedIn(p page) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, ok := h.begin(w, r, p.enroll)
		if !ok {
			return
		}
		if r.Method == http.MethodPost && !h.validCSRF(q.sess, r) {
			q.problem(http.StatusForbidden, q.l.T("This form has expired. Open the page again and repeat."))
			return
		}
		p.fn(q)
	})
}

// begin reads the session. Without a usable one the browser is sent to
// sign in and comes back afterwards; a session awaiting its code goes to
// the code's page, and one without a second factor to its enrolment, the
// only page it may open (enroll).
func (h *Handler) begin(w http.ResponseWriter, r *http.Request, enroll bool) (*req, bool) {
	l := chooseLocale(w, r)
	token := sessionToken(r)
	if token == "" {
		h.toSignIn(w, r)
		return nil, false
	}
	sess, st, err := h.acc.StaffSession(r.Context(), token)
	if err != nil {
		var pe *payd.Error
		if !errors.As(err, &pe) {
			h.log.Error("office: session", "err", err.Error())
			http.Error(w, "the service is unavailable; try again in a minute", http.StatusServiceUnavailable)
			return nil, false
		}
		h.clearSession(w)
		h.toSignIn(w, r)
		return nil, false
	}
	switch {
	case sess.State == payd.SessionSecondFactor:
		http.Redirect(w, r, Prefix+"signin/code", http.StatusSeeOther)
		return nil, false
	case sess.State == payd.SessionEnroll && !enroll:
		http.Redirect(w, r, Prefix+"second-factor", http.StatusSeeOther)
		return nil, false
	}
	return &req{h: h, w: w, r: r, ctx: r.Context(), sess: sess, staff: st, token: token, l: l}, true
}

// toSignIn sends a browser to the sign-in page, remembering where it was
// going; only a path of the back office is remembered (no open redirect).
func (h *Handler) toSignIn(w http.ResponseWriter, r *http.Request) {
	next := ""
	if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, Prefix) {
		next = "?next=" + url.QueryEscape(r.URL.RequestURI())
	}
	http.Redirect(w, r, Prefix+"signin"+next, http.StatusSeeOther)
}

// safeNext returns next when it is a path of the back office, else its
// home page.
func safeNext(next string) string {
	if !strings.HasPrefix(next, Prefix) || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return Prefix
	}
	return next
}

// newKey is a random value for the signed-out forms' cookie.
func newKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
