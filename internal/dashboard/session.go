package dashboard

import (
	"errors"
	"net/http"
	"strings"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/signinpage"
	"github.com/paydhq/payd/internal/webpage"
)

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
		mux.Handle(pattern, webpage.AppHeaders(next))
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
	token := h.out.SessionToken(r)
	if token == "" {
		h.out.ToSignIn(w, r)
		return nil, false
	}
	sess, user, err := h.acc.Session(r.Context(), token)
	if err != nil {
		if refusal(err) == nil && !errors.Is(err, payd.ErrNoRows) {
			h.log.Error("dashboard: session", "err", err.Error())
			http.Error(w, "the service is unavailable; try again in a minute", http.StatusServiceUnavailable)
			return nil, false
		}
		h.out.ClearSession(w)
		h.out.ToSignIn(w, r)
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

// chooseShop picks the shop the pages show: ?shop= (remembered in a
// cookie), else the remembered one, else the merchant's first, the one
// made first (the list is newest first): the shop a merchant starts with,
// and the first of dev.json's that the README's walk uses.
func (h *Handler) chooseShop(q *req) bool {
	shops, err := h.svc.MerchantShops(q.ctx, q.user.MerchantID)
	if err != nil {
		q.fail(err)
		return false
	}
	q.shops = shops
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
func newKey() string { return "dash_" + signinpage.NewKey() }
