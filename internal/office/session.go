package office

import (
	"errors"
	"net/http"
	"slices"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

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
	token := h.out.SessionToken(r)
	if token == "" {
		h.out.ToSignIn(w, r)
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
		h.out.ClearSession(w)
		h.out.ToSignIn(w, r)
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
