package office

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/internal/webpage"
)

// The sign-in of staff: email and password, then the code of the second
// factor, or its enrolment at the first sign-in. Each attempt takes a
// token of the address's throttle before anything is checked, and the
// account service counts it on the account name (locks double); the
// answer to a failure is one text whether or not the email exists.

// signedOut is the view of the pages before a session exists.
type signedOut struct {
	Email, Next, Error string
	Token              string
	CSRF               string
}

func (h *Handler) outPage(w http.ResponseWriter, r *http.Request, status int, name, title string, l webpage.Locale, v signedOut) {
	v.CSRF = h.preCSRF(w, r)
	h.write(w, status, name, layout{L: l, Title: l.T(title), P: v})
}

// preCookie holds a random value of the browser before any session
// exists; the signed-out forms carry a MAC of it (no login CSRF).
const preCookie = "payd_office_pre"

func (h *Handler) preCSRF(w http.ResponseWriter, r *http.Request) string {
	v := ""
	if c, err := r.Cookie(preCookie); err == nil && len(c.Value) >= 16 {
		v = c.Value
	} else {
		v = newKey()
		http.SetCookie(w, &http.Cookie{Name: preCookie, Value: v, Path: Prefix, HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteStrictMode})
		r.AddCookie(&http.Cookie{Name: preCookie, Value: v})
	}
	return h.forms.Sign("pre", v)
}

// signedOutForm refuses a signed-out form without the browser's token.
func (h *Handler) signedOutForm(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(preCookie)
		if err != nil || !h.forms.Verify(r.PostForm.Get("csrf"), "pre", c.Value) {
			h.refuse(w, r, http.StatusForbidden, "This form has expired. Open the page again and repeat.")
			return
		}
		next(w, r)
	}
}

func (h *Handler) signInPage(w http.ResponseWriter, r *http.Request) {
	l := chooseLocale(w, r)
	h.outPage(w, r, http.StatusOK, "signin", "Sign in to the back office", l, signedOut{Next: safeNext(r.URL.Query().Get("next"))})
}

func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) {
	l := chooseLocale(w, r)
	v := signedOut{Email: strings.TrimSpace(r.PostForm.Get("email")), Next: safeNext(r.PostForm.Get("next"))}
	page := func(status int, text string) {
		v.Error = l.T(text)
		h.outPage(w, r, status, "signin", "Sign in to the back office", l, v)
	}
	attempt := h.beginAttempt(w, r, page)
	if attempt == nil {
		return
	}
	token, sess, err := h.acc.StaffSignIn(r.Context(), v.Email, r.PostForm.Get("password"), h.source.Addr(r).String(), r.UserAgent())
	if err != nil {
		h.signInRefused(w, attempt, err, page)
		return
	}
	attempt.Release()
	h.setSession(w, token)
	switch sess.State {
	case payd.SessionSecondFactor:
		http.Redirect(w, r, Prefix+"signin/code?next="+url.QueryEscape(v.Next), http.StatusSeeOther)
	case payd.SessionEnroll:
		http.Redirect(w, r, Prefix+"second-factor", http.StatusSeeOther)
	default:
		http.Redirect(w, r, v.Next, http.StatusSeeOther)
	}
}

// signInRefused answers a refused password or code on page and settles
// the address's attempt: a wrong secret counts against the address.
func (h *Handler) signInRefused(w http.ResponseWriter, attempt *httpapi.Attempt, err error, page func(int, string)) {
	switch {
	case errors.Is(err, account.ErrSignInFailed):
		attempt.Failed()
		page(http.StatusUnauthorized, "The email or the password is not right.")
	case errors.Is(err, account.ErrSecondFactorFailed):
		attempt.Failed()
		page(http.StatusUnauthorized, "The code is not right. Enter the current code of your authenticator app.")
	case errors.Is(err, account.ErrPasswordChecksBusy):
		attempt.Release()
		refused(w, err)
		page(http.StatusServiceUnavailable, "Too many sign-ins at this moment. Try again in a few seconds.")
	case payd.ErrorCodeOf(err) == payd.CodeTooManyRequests:
		attempt.Failed()
		refused(w, err)
		page(http.StatusTooManyRequests, "Too many failed sign-ins to this account. Wait and try again later.")
	default:
		attempt.Release()
		h.log.Error("office: sign-in", "err", err.Error())
		page(http.StatusServiceUnavailable, "Something went wrong; try again.")
	}
}

// refused sets Retry-After from a refusal that says when to come back.
func refused(w http.ResponseWriter, err error) {
	var pe *payd.Error
	if errors.As(err, &pe) && pe.RetryAfter > 0 {
		httpapi.SetRetryAfter(w, pe.RetryAfter)
	}
}

// beginAttempt takes the address's token for one attempt at a signed-out
// form; when the address has none left it answers 429 and returns nil.
func (h *Handler) beginAttempt(w http.ResponseWriter, r *http.Request, page func(status int, text string)) *httpapi.Attempt {
	attempt, err := h.throttle.Begin(r)
	if err != nil {
		refused(w, err)
		page(http.StatusTooManyRequests, "Too many failed sign-ins. Wait a minute and try again.")
		return nil
	}
	return attempt
}

func (h *Handler) codePage(w http.ResponseWriter, r *http.Request) {
	l := chooseLocale(w, r)
	if sessionToken(r) == "" {
		http.Redirect(w, r, Prefix+"signin", http.StatusSeeOther)
		return
	}
	h.outPage(w, r, http.StatusOK, "code", "Second factor", l, signedOut{Next: safeNext(r.URL.Query().Get("next"))})
}

// code checks the second factor's code; a handful of wrong ones end the
// waiting session, and the next try starts from the password.
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
	token, _, err := h.acc.StaffSecondFactor(r.Context(), sessionToken(r), strings.TrimSpace(r.PostForm.Get("code")), h.source.Addr(r).String())
	switch {
	case err == nil:
		attempt.Release()
		h.setSession(w, token)
		http.Redirect(w, r, v.Next, http.StatusSeeOther)
	case errors.Is(err, account.ErrSecondFactorSessionEnded), errors.Is(err, account.ErrNoSession):
		attempt.Failed()
		h.clearSession(w)
		v2 := signedOut{Next: v.Next, Error: l.T("Too many wrong codes, or the sign-in has expired. Sign in again with your password.")}
		h.outPage(w, r, http.StatusUnauthorized, "signin", "Sign in to the back office", l, v2)
	default:
		h.signInRefused(w, attempt, err, page)
	}
}

func (h *Handler) setupPage(w http.ResponseWriter, r *http.Request) {
	l := chooseLocale(w, r)
	h.outPage(w, r, http.StatusOK, "setup", "Set your password", l, signedOut{Token: r.PathValue("token")})
}

// setup sets a staff member's password through the one-time link; a link
// that is not one counts against the address as a wrong password does.
func (h *Handler) setup(w http.ResponseWriter, r *http.Request) {
	l := chooseLocale(w, r)
	v := signedOut{Token: r.PathValue("token")}
	page := func(status int, text string) {
		v.Error = l.T(text)
		h.outPage(w, r, status, "setup", "Set your password", l, v)
	}
	pw := r.PostForm.Get("password")
	if pw != r.PostForm.Get("password_again") {
		page(http.StatusUnprocessableEntity, "The two passwords differ.")
		return
	}
	attempt := h.beginAttempt(w, r, page)
	if attempt == nil {
		return
	}
	st, err := h.acc.StaffSetPassword(r.Context(), v.Token, pw, h.source.Addr(r).String())
	var pe *payd.Error
	switch {
	case err == nil:
		attempt.Release()
		h.outPage(w, r, http.StatusOK, "signin", "Sign in to the back office", l, signedOut{Email: st.Email, Next: Prefix})
	case errors.As(err, &pe) && pe.Code == payd.CodeNotFound:
		attempt.Failed()
		page(http.StatusNotFound, "This link is not valid: it was used, it expired, or a newer one was issued. Ask an administrator for a new one.")
	case errors.As(err, &pe):
		attempt.Release()
		refused(w, err)
		v.Error = pe.Message
		h.outPage(w, r, httpapi.StatusOf(pe.Code), "setup", "Set your password", l, v)
	default:
		attempt.Release()
		h.log.Error("office: set password", "err", err.Error())
		page(http.StatusServiceUnavailable, "Something went wrong; try again.")
	}
}

// signOut ends this session.
func (h *Handler) signOut(w http.ResponseWriter, r *http.Request) {
	token := sessionToken(r)
	if sess, _, err := h.acc.StaffSession(r.Context(), token); err == nil && h.validCSRF(sess, r) {
		if err := h.acc.StaffSignOut(r.Context(), token, h.source.Addr(r).String()); err != nil {
			h.log.Error("office: sign out", "err", err.Error())
		}
	}
	h.clearSession(w)
	http.Redirect(w, r, Prefix+"signin", http.StatusSeeOther)
}
