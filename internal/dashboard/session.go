package dashboard

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/paydhq/payd"
)

// cookieName is the session cookie (docs/dashboard.md): its value is the
// session's secret token, of which the database keeps only a hash.
const cookieName = "payd_session"

// setSession gives the browser a session's token. The cookie lives as long
// as the browser session; the server's idle and absolute timeouts end the
// session itself.
func (h *Handler) setSession(w http.ResponseWriter, token string) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: token, Path: Prefix,
		HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteLaxMode})
}

func (h *Handler) clearSession(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: Prefix, MaxAge: -1,
		HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteLaxMode})
}

func sessionToken(r *http.Request) string {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return ""
	}
	return c.Value
}

// csrf is the form token of a session: a MAC of the session's id, so it
// needs no storage and dies with the session.
func (h *Handler) csrf(s *payd.Session) string {
	if s == nil {
		return ""
	}
	return h.forms.Sign("csrf", s.ID)
}

func (h *Handler) validCSRF(s *payd.Session, r *http.Request) bool {
	return s != nil && h.forms.Verify(r.PostForm.Get("csrf"), "csrf", s.ID)
}

// mount registers a page for live and test data, behind the session and
// role checks.
func (h *Handler) mount(mux *http.ServeMux, p page) {
	for _, test := range []bool{false, true} {
		prefix := Prefix
		if test {
			prefix += "test/"
		}
		pattern := p.method + " " + prefix + p.path
		if p.path == "" {
			pattern += "{$}"
		}
		var next http.Handler = h.signedIn(p, test)
		if p.method == http.MethodPost {
			next = h.form(next.ServeHTTP)
		}
		mux.Handle(pattern, h.headers(next))
	}
}

// signedIn finds the request's session, the user's shops and the chosen
// shop, checks the role, and runs the page; a post must carry the
// session's CSRF token.
func (h *Handler) signedIn(p page, test bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, ok := h.begin(w, r)
		if !ok {
			return
		}
		q.test = test
		if r.Method == http.MethodPost && !h.validCSRF(q.sess, r) {
			q.problem(http.StatusForbidden, q.l.T("This form has expired. Open the page again and repeat."))
			return
		}
		if !q.can(p.perm) {
			q.problem(http.StatusForbidden, q.l.T("Your role does not allow this. Ask an administrator of your account."))
			return
		}
		if !h.chooseShop(q) {
			return
		}
		p.fn(q)
	})
}

// begin reads the session; without a usable one the browser is sent to
// sign in and comes back afterwards.
func (h *Handler) begin(w http.ResponseWriter, r *http.Request) (*req, bool) {
	l := chooseLocale(w, r)
	token := sessionToken(r)
	if token == "" {
		h.toSignIn(w, r)
		return nil, false
	}
	sess, user, err := h.acc.Session(r.Context(), token)
	if err != nil {
		if refusal(err) == nil && !errors.Is(err, payd.ErrNoRows) {
			h.log.Error("dashboard: session", "err", err.Error())
			http.Error(w, "the service is unavailable; try again in a minute", http.StatusServiceUnavailable)
			return nil, false
		}
		h.clearSession(w)
		h.toSignIn(w, r)
		return nil, false
	}
	switch sess.State {
	case payd.SessionSecondFactor:
		http.Redirect(w, r, Prefix+"signin/code", http.StatusSeeOther)
		return nil, false
	case payd.SessionEnroll:
		if !strings.HasPrefix(r.URL.Path, Prefix+"account/second-factor") {
			http.Redirect(w, r, Prefix+"account/second-factor", http.StatusSeeOther)
			return nil, false
		}
	}
	return &req{h: h, w: w, r: r, ctx: r.Context(), sess: sess, user: user, l: l}, true
}

// toSignIn sends a browser to the sign-in page, remembering where it was
// going; only a path of the dashboard is remembered (no open redirect).
func (h *Handler) toSignIn(w http.ResponseWriter, r *http.Request) {
	next := ""
	if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, Prefix) {
		next = "?next=" + url.QueryEscape(r.URL.RequestURI())
	}
	http.Redirect(w, r, SignInPath+next, http.StatusSeeOther)
}

// safeNext returns next when it is a path of the dashboard, else the home
// page.
func safeNext(next string) string {
	if !strings.HasPrefix(next, Prefix) || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return Prefix
	}
	return next
}

// chooseShop picks the shop the pages show: ?shop= (remembered in a
// cookie), else the remembered one, else the merchant's first, the one
// made first (the list is newest first): the shop a merchant starts with,
// and the first of dev.json's that the README's walk uses.
func (h *Handler) chooseShop(q *req) bool {
	shops, err := h.svc.ListShops(q.ctx, &payd.ShopListParams{MerchantID: q.user.MerchantID,
		ListParams: payd.ListParams{Limit: payd.MaxPageSize}})
	if err != nil {
		q.fail(err)
		return false
	}
	q.shops = shops.Items
	if len(q.shops) == 0 {
		q.problem(http.StatusNotFound, q.l.T("Your account has no shop yet."))
		return false
	}
	want := q.r.URL.Query().Get("shop")
	if want == "" {
		if c, err := q.r.Cookie("payd_shop"); err == nil {
			want = c.Value
		}
	}
	q.shop = q.shops[len(q.shops)-1]
	for _, s := range q.shops {
		if s.ID == want {
			q.shop = s
		}
	}
	if q.r.URL.Query().Get("shop") == q.shop.ID {
		http.SetCookie(q.w, &http.Cookie{Name: "payd_shop", Value: q.shop.ID, Path: Prefix,
			HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteLaxMode})
	}
	return true
}

// newKey is an idempotency key for one form: the form carries it, so a
// double submit of the same form is one operation.
func newKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "dash_" + base64.RawURLEncoding.EncodeToString(b)
}
