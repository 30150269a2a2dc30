package dashboard

import (
	"context"
	"net/http"
	"slices"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/signinpage"
	"github.com/paydhq/payd/internal/webpage"
)

// chooseLocale is the page's language: ?lang= (remembered in a cookie),
// else the remembered one, else the browser's, else Russian.
func chooseLocale(w http.ResponseWriter, r *http.Request) webpage.Locale {
	lang := r.URL.Query().Get("lang")
	if lang != "" && slices.Contains(payd.Locales(), lang) {
		http.SetCookie(w, &http.Cookie{Name: "payd_lang", Value: lang, Path: Prefix, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	} else if c, err := r.Cookie("payd_lang"); err == nil {
		lang = c.Value
	}
	return webpage.Choose(r, lang, "")
}

// dashboardAccounts are the account service's user methods as
// signinpage asks them.
type dashboardAccounts struct{ acc *account.Service }

func (a dashboardAccounts) SignIn(ctx context.Context, email, password, addr, userAgent string) (string, *payd.Session, error) {
	return a.acc.SignIn(ctx, email, password, addr, userAgent)
}

func (a dashboardAccounts) SecondFactor(ctx context.Context, token, code, addr string) (string, *payd.Session, error) {
	return a.acc.SecondFactor(ctx, token, code, addr)
}

func (a dashboardAccounts) SetPassword(ctx context.Context, token, password, addr string) (string, error) {
	u, err := a.acc.SetPassword(ctx, token, password, addr)
	if err != nil {
		return "", err
	}
	return u.Email, nil
}

// signInPages configures the dashboard's signed-out pages (signinpage,
// shared with the back office): the session cookie (docs/dashboard.md),
// whose value is the session's secret token, of which the database keeps
// only a hash.
func (h *Handler) signInPages(cfg Config) *signinpage.Pages {
	return &signinpage.Pages{Prefix: Prefix, SetupPath: SetupPath, SignInTitle: "Sign in",
		Cookie: "payd_session", PreCookie: "payd_pre", SameSite: http.SameSiteLaxMode, Secure: cfg.Secure,
		Forms: h.forms, Accounts: dashboardAccounts{cfg.Accounts}, Source: cfg.Source, Throttle: cfg.Throttle, Log: h.log,
		Locale: chooseLocale,
		Render: func(w http.ResponseWriter, r *http.Request, status int, name, title string, l webpage.Locale, v signinpage.View) {
			h.write(w, status, name, layout{L: l, Title: l.T(title), Path: r.URL.Path, P: v})
		},
		Refuse: h.refuse, Landing: h.landing, EnrollPath: Prefix + "account/second-factor", Say: say,
	}
}

// signOut ends this session, or with everywhere=1 every session of the
// user.
func (h *Handler) signOut(w http.ResponseWriter, r *http.Request) {
	token := h.out.SessionToken(r)
	sess, user, err := h.acc.Session(r.Context(), token)
	if err == nil && h.validCSRF(sess, r) {
		if r.PostForm.Get("everywhere") == "1" {
			err = h.acc.SignOutEverywhere(r.Context(), &payd.Actor{UserID: user.ID, Email: user.Email, Addr: h.source.Addr(r).String()}, user.ID)
		} else {
			err = h.acc.SignOut(r.Context(), token, h.source.Addr(r).String())
		}
		if err != nil {
			h.log.Error("dashboard: sign out", "err", err.Error())
		}
	}
	h.out.ClearSession(w)
	http.Redirect(w, r, SignInPath, http.StatusSeeOther)
}
