package office

import (
	"context"
	"net/http"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/signinpage"
	"github.com/paydhq/payd/internal/webpage"
)

// The staff's signed-out pages are signinpage's, the dashboard's code,
// with the staff's account kind, cookies of the back office's own
// (SameSite strict: nothing links into it from another site) and its
// texts.

// staffAccounts are the account service's staff methods as signinpage
// asks them.
type staffAccounts struct{ acc *account.Service }

func (a staffAccounts) SignIn(ctx context.Context, email, password, addr, userAgent string) (string, *payd.Session, error) {
	return a.acc.StaffSignIn(ctx, email, password, addr, userAgent)
}

func (a staffAccounts) SecondFactor(ctx context.Context, token, code, addr string) (string, *payd.Session, error) {
	return a.acc.StaffSecondFactor(ctx, token, code, addr)
}

func (a staffAccounts) SetPassword(ctx context.Context, token, password, addr string) (string, error) {
	st, err := a.acc.StaffSetPassword(ctx, token, password, addr)
	if err != nil {
		return "", err
	}
	return st.Email, nil
}

// signInPages configures the signed-out pages of the back office.
func (h *Handler) signInPages(cfg Config) *signinpage.Pages {
	return &signinpage.Pages{Prefix: Prefix, SetupPath: SetupPath, SignInTitle: "Sign in to the back office",
		Cookie: "payd_office", PreCookie: "payd_office_pre", SameSite: http.SameSiteStrictMode, Secure: cfg.Secure,
		Forms: h.forms, Accounts: staffAccounts{cfg.Accounts}, Source: cfg.Source, Throttle: cfg.Throttle, Log: h.log,
		Locale: chooseLocale,
		Render: func(w http.ResponseWriter, r *http.Request, status int, name, title string, l webpage.Locale, v signinpage.View) {
			h.write(w, status, name, layout{L: l, Title: l.T(title), P: v})
		},
		Refuse:     h.refuse,
		Landing:    func(_ context.Context, _, next string) string { return next },
		EnrollPath: Prefix + "second-factor",
		Say: func(l webpage.Locale, pe *payd.Error) string {
			if pe.Code == payd.CodeNotFound {
				return l.T("This link is not valid: it was used, it expired, or a newer one was issued. Ask an administrator for a new one.")
			}
			return pe.Message
		},
	}
}

// signOut ends this session.
func (h *Handler) signOut(w http.ResponseWriter, r *http.Request) {
	token := h.out.SessionToken(r)
	if sess, _, err := h.acc.StaffSession(r.Context(), token); err == nil && h.validCSRF(sess, r) {
		if err := h.acc.StaffSignOut(r.Context(), token, h.source.Addr(r).String()); err != nil {
			h.log.Error("office: sign out", "err", err.Error())
		}
	}
	h.out.ClearSession(w)
	http.Redirect(w, r, Prefix+"signin", http.StatusSeeOther)
}
