package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/httpapi"
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

// signedOut is the view of the pages before a session exists.
type signedOut struct {
	Email, Next, Error string
	Token              string
	CSRF               string
}

func (h *Handler) outPage(w http.ResponseWriter, r *http.Request, status int, name, title string, l webpage.Locale, v signedOut) {
	v.CSRF = h.preCSRF(w, r)
	h.write(w, status, name, layout{L: l, Title: l.T(title), Path: r.URL.Path, P: v})
}

// preCookie holds a random value of the browser before any session
// exists; the forms of signing in carry a MAC of it, so that another site
// cannot post them in the visitor's name (login CSRF).
const preCookie = "payd_pre"

// preCSRF returns the signed-out forms' token, giving the browser its
// random value first when it has none.
func (h *Handler) preCSRF(w http.ResponseWriter, r *http.Request) string {
	v := ""
	if c, err := r.Cookie(preCookie); err == nil && len(c.Value) >= 16 {
		v = c.Value
	} else {
		v = newKey()
		http.SetCookie(w, &http.Cookie{Name: preCookie, Value: v, Path: Prefix, HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteLaxMode})
		// The value is the request's from now on, so that a page and its
		// form agree even on the first visit.
		r.AddCookie(&http.Cookie{Name: preCookie, Value: v})
	}
	return h.forms.Sign("pre", v)
}

// validPre checks a signed-out form's token against the browser's value.
func (h *Handler) validPre(r *http.Request) bool {
	c, err := r.Cookie(preCookie)
	return err == nil && h.forms.Verify(r.PostForm.Get("csrf"), "pre", c.Value)
}

// signedOutForm refuses a signed-out form without the browser's token.
func (h *Handler) signedOutForm(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !h.validPre(r) {
			h.refuse(w, r, http.StatusForbidden, "This form has expired. Open the page again and repeat.")
			return
		}
		next(w, r)
	}
}

func (h *Handler) signInPage(w http.ResponseWriter, r *http.Request) {
	l := chooseLocale(w, r)
	h.outPage(w, r, http.StatusOK, "signin", "Sign in", l, signedOut{Next: safeNext(r.URL.Query().Get("next"))})
}

// signIn checks the password. The address's throttle takes a token
// before anything is looked at and gives it back on success; the service
// bounds the password checks running at once and counts the attempt on
// the account name before it checks the password. The answer to a failure
// is one text whether or not the email exists; a locked account answers
// 429 with a text of its own, the same for an email that belongs to no
// one, since unknown emails lock too.
func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) {
	l := chooseLocale(w, r)
	email := strings.TrimSpace(r.PostForm.Get("email"))
	v := signedOut{Email: email, Next: safeNext(r.PostForm.Get("next"))}
	page := func(status int, text string) {
		v.Error = l.T(text)
		h.outPage(w, r, status, "signin", "Sign in", l, v)
	}
	attempt := h.beginAttempt(w, r, page)
	if attempt == nil {
		return
	}
	token, sess, err := h.acc.SignIn(r.Context(), email, r.PostForm.Get("password"), h.source.Addr(r).String(), r.UserAgent())
	switch {
	case err == nil:
		attempt.Release()
	case errors.Is(err, account.ErrSignInFailed):
		attempt.Failed()
		page(http.StatusUnauthorized, "The email or the password is not right.")
		return
	case errors.Is(err, account.ErrPasswordChecksBusy):
		attempt.Release()
		h.refused(w, err)
		page(http.StatusServiceUnavailable, "Too many sign-ins at this moment. Try again in a few seconds.")
		return
	case payd.ErrorCodeOf(err) == payd.CodeTooManyRequests:
		attempt.Failed()
		h.refused(w, err)
		page(http.StatusTooManyRequests, "Too many failed sign-ins to this account. Wait and try again later.")
		return
	default:
		attempt.Release()
		h.log.Error("dashboard: sign-in", "err", err.Error())
		page(http.StatusServiceUnavailable, "Something went wrong; try again.")
		return
	}
	h.setSession(w, token)
	switch sess.State {
	case payd.SessionSecondFactor:
		http.Redirect(w, r, Prefix+"signin/code?next="+url.QueryEscape(v.Next), http.StatusSeeOther)
	case payd.SessionEnroll:
		http.Redirect(w, r, Prefix+"account/second-factor", http.StatusSeeOther)
	default:
		http.Redirect(w, r, h.landing(r.Context(), token, v.Next), http.StatusSeeOther)
	}
}

// refused sets Retry-After from a refusal that says when to come back.
func (h *Handler) refused(w http.ResponseWriter, err error) {
	var pe *payd.Error
	if errors.As(err, &pe) && pe.RetryAfter > 0 {
		httpapi.SetRetryAfter(w, pe.RetryAfter)
	}
}

// beginAttempt takes the address's token for one attempt at a signed-out form;
// when the address has none left it answers page with 429 and returns nil.
func (h *Handler) beginAttempt(w http.ResponseWriter, r *http.Request, page func(status int, text string)) *httpapi.Attempt {
	attempt, err := h.throttle.Begin(r)
	if err != nil {
		h.refused(w, err)
		page(http.StatusTooManyRequests, "Too many failed sign-ins. Wait a minute and try again.")
		return nil
	}
	return attempt
}

func (h *Handler) codePage(w http.ResponseWriter, r *http.Request) {
	l := chooseLocale(w, r)
	if sessionToken(r) == "" {
		http.Redirect(w, r, SignInPath, http.StatusSeeOther)
		return
	}
	h.outPage(w, r, http.StatusOK, "code", "Second factor", l, signedOut{Next: safeNext(r.URL.Query().Get("next"))})
}

// code checks the second factor's code. The address's throttle takes a
// token first, as for passwords; the service counts the code on the
// account before checking it, and ends the waiting session after a
// handful of wrong ones.
func (h *Handler) code(w http.ResponseWriter, r *http.Request) {
	l := chooseLocale(w, r)
	v := signedOut{Next: safeNext(r.PostForm.Get("next"))}
	page := func(status int, text string) {
		v.Error = l.T(text)
		h.outPage(w, r, status, "code", "Second factor", l, v)
	}
	attempt := h.beginAttempt(w, r, page)
	if attempt == nil {
		return
	}
	token, _, err := h.acc.SecondFactor(r.Context(), sessionToken(r), strings.TrimSpace(r.PostForm.Get("code")), h.source.Addr(r).String())
	switch {
	case err == nil:
		attempt.Release()
		h.setSession(w, token)
		http.Redirect(w, r, h.landing(r.Context(), token, v.Next), http.StatusSeeOther)
	case errors.Is(err, account.ErrSecondFactorSessionEnded), errors.Is(err, account.ErrNoSession):
		attempt.Failed()
		h.clearSession(w)
		v2 := signedOut{Next: v.Next, Error: l.T("Too many wrong codes, or the sign-in has expired. Sign in again with your password.")}
		h.outPage(w, r, http.StatusUnauthorized, "signin", "Sign in", l, v2)
	case payd.ErrorCodeOf(err) == payd.CodeTooManyRequests:
		attempt.Failed()
		h.refused(w, err)
		page(http.StatusTooManyRequests, "Too many failed sign-ins to this account. Wait and try again later.")
	case errors.Is(err, account.ErrSecondFactorFailed):
		attempt.Failed()
		page(http.StatusUnauthorized, "The code is not right. Enter the current code of your authenticator app.")
	default:
		attempt.Release()
		if refusal(err) == nil {
			h.log.Error("dashboard: second factor", "err", err.Error())
		}
		page(http.StatusUnauthorized, "The code is not right. Enter the current code of your authenticator app.")
	}
}

func (h *Handler) setupPage(w http.ResponseWriter, r *http.Request) {
	l := chooseLocale(w, r)
	h.outPage(w, r, http.StatusOK, "setup", "Set your password", l, signedOut{Token: r.PathValue("token")})
}

// setup sets a new user's password through the one-time link; then the
// user signs in. A link that is not one counts as a failed
// authentication of the address, as a wrong password does.
func (h *Handler) setup(w http.ResponseWriter, r *http.Request) {
	l := chooseLocale(w, r)
	token := r.PathValue("token")
	pw := r.PostForm.Get("password")
	v := signedOut{Token: token}
	page := func(status int, text string) {
		v.Error = l.T(text)
		h.outPage(w, r, status, "setup", "Set your password", l, v)
	}
	if pw != r.PostForm.Get("password_again") {
		page(http.StatusUnprocessableEntity, "The two passwords differ.")
		return
	}
	attempt := h.beginAttempt(w, r, page)
	if attempt == nil {
		return
	}
	user, err := h.acc.SetPassword(r.Context(), token, pw, h.source.Addr(r).String())
	if err != nil {
		if pe := refusal(err); pe != nil {
			if pe.Code == payd.CodeNotFound {
				attempt.Failed()
			} else {
				attempt.Release()
				h.refused(w, err)
			}
			v.Error = say(l, pe)
			h.outPage(w, r, httpapi.StatusOf(pe.Code), "setup", "Set your password", l, v)
			return
		}
		attempt.Release()
		h.log.Error("dashboard: set password", "err", err.Error())
		v.Error = l.T("Something went wrong; try again.")
		h.outPage(w, r, http.StatusServiceUnavailable, "setup", "Set your password", l, v)
		return
	}
	attempt.Release()
	h.outPage(w, r, http.StatusOK, "signin", "Sign in", l, signedOut{Email: user.Email, Next: Prefix})
}

// signOut ends this session, or with everywhere=1 every session of the
// user.
func (h *Handler) signOut(w http.ResponseWriter, r *http.Request) {
	token := sessionToken(r)
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
	h.clearSession(w)
	http.Redirect(w, r, SignInPath, http.StatusSeeOther)
}
