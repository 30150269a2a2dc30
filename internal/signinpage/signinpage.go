// Package signinpage holds the signed-out pages of the people who sign in
// to payd — the merchant dashboard's users and the operator's staff in
// the back office: the sign-in, the second factor's code and the setup
// link's password, their session and pre-session cookies, and the order
// of their checks. Each of the two sites configures one Pages with its
// address, cookies, texts and account kind; the account package checks
// the secrets. One implementation, so that both doors refuse the same
// way: the address's throttle before anything is read, one answer to a
// wrong email or password, login CSRF refused by a token bound to the
// browser.
package signinpage

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/internal/mac"
	"github.com/paydhq/payd/internal/webpage"
)

// Accounts checks the secrets of one kind of account.
type Accounts interface {
	SignIn(ctx context.Context, email, password, addr, userAgent string) (string, *payd.Session, error)
	SecondFactor(ctx context.Context, token, code, addr string) (string, *payd.Session, error)
	// SetPassword uses a setup token and returns the account's email.
	SetPassword(ctx context.Context, token, password, addr string) (email string, err error)
}

// View is what a signed-out page's template gets as its data.
type View struct {
	Email, Next, Error string
	Token              string
	CSRF               string
}

// Pages are one site's signed-out pages.
type Pages struct {
	// Prefix is the site's path ("/dashboard/"); the pages are
	// Prefix+"signin", Prefix+"signin/code" and SetupPath+{token}.
	Prefix    string
	SetupPath string
	// SignInTitle is the sign-in page's title, a catalogue text.
	SignInTitle string
	// Cookie is the session cookie, PreCookie the browser's value that
	// binds the signed-out forms; SameSite is both cookies'.
	Cookie, PreCookie string
	SameSite          http.SameSite
	Secure            bool
	Forms             mac.Signer
	Accounts          Accounts
	Source            httpapi.Source
	Throttle          *httpapi.AuthThrottle
	Log               *slog.Logger
	// Locale is the visitor's language.
	Locale func(w http.ResponseWriter, r *http.Request) webpage.Locale
	// Render writes the signed-out page name ("signin", "code", "setup").
	Render func(w http.ResponseWriter, r *http.Request, status int, name, title string, l webpage.Locale, v View)
	// Refuse answers a form refused before anything was checked.
	Refuse func(w http.ResponseWriter, r *http.Request, status int, msg string)
	// Landing is where a finished sign-in goes, next being a safe path of
	// the site.
	Landing func(ctx context.Context, token, next string) string
	// EnrollPath is where a session that must enrol a second factor goes.
	EnrollPath string
	// Say words a refusal of a new password in the visitor's language.
	Say func(l webpage.Locale, pe *payd.Error) string
}

// Register mounts the pages on mux; wrap is the site's fence of every
// answer (headers), form its fence of posts (origin, size).
func (p *Pages) Register(mux *http.ServeMux, wrap func(http.Handler) http.Handler, form func(http.HandlerFunc) http.Handler) {
	mux.Handle("GET "+p.Prefix+"signin", wrap(http.HandlerFunc(p.signInPage)))
	mux.Handle("POST "+p.Prefix+"signin", wrap(form(p.signedOutForm(p.signIn))))
	mux.Handle("GET "+p.Prefix+"signin/code", wrap(http.HandlerFunc(p.codePage)))
	mux.Handle("POST "+p.Prefix+"signin/code", wrap(form(p.signedOutForm(p.code))))
	mux.Handle("GET "+p.SetupPath+"{token}", wrap(http.HandlerFunc(p.setupPage)))
	mux.Handle("POST "+p.SetupPath+"{token}", wrap(form(p.signedOutForm(p.setup))))
}

// SetSession gives the browser a session's token. The cookie lives as
// long as the browser session; the server's timeouts end the session.
func (p *Pages) SetSession(w http.ResponseWriter, token string) {
	http.SetCookie(w, &http.Cookie{Name: p.Cookie, Value: token, Path: p.Prefix, HttpOnly: true, Secure: p.Secure, SameSite: p.SameSite})
}

// ClearSession removes the session cookie.
func (p *Pages) ClearSession(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: p.Cookie, Value: "", Path: p.Prefix, MaxAge: -1, HttpOnly: true, Secure: p.Secure, SameSite: p.SameSite})
}

// SessionToken is the request's session token, "" without one.
func (p *Pages) SessionToken(r *http.Request) string {
	c, err := r.Cookie(p.Cookie)
	if err != nil {
		return ""
	}
	return c.Value
}

// SafeNext returns next when it is a path of the site, else its home.
func (p *Pages) SafeNext(next string) string {
	if !strings.HasPrefix(next, p.Prefix) || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return p.Prefix
	}
	return next
}

// ToSignIn sends a browser to the sign-in page, remembering where it was
// going; only a path of the site is remembered (no open redirect).
func (p *Pages) ToSignIn(w http.ResponseWriter, r *http.Request) {
	next := ""
	if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, p.Prefix) {
		next = "?next=" + url.QueryEscape(r.URL.RequestURI())
	}
	http.Redirect(w, r, p.Prefix+"signin"+next, http.StatusSeeOther)
}

func (p *Pages) page(w http.ResponseWriter, r *http.Request, status int, name, title string, l webpage.Locale, v View) {
	v.CSRF = p.preCSRF(w, r)
	p.Render(w, r, status, name, title, l, v)
}

// NewKey is 16 random bytes in base64url.
func NewKey() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// preCSRF returns the signed-out forms' token, giving the browser its
// random value first when it has none: another site cannot post the
// sign-in in the visitor's name (login CSRF).
func (p *Pages) preCSRF(w http.ResponseWriter, r *http.Request) string {
	v := ""
	if c, err := r.Cookie(p.PreCookie); err == nil && len(c.Value) >= 16 {
		v = c.Value
	} else {
		v = NewKey()
		http.SetCookie(w, &http.Cookie{Name: p.PreCookie, Value: v, Path: p.Prefix, HttpOnly: true, Secure: p.Secure, SameSite: p.SameSite})
		// The value is the request's from now on, so that a page and its
		// form agree even on the first visit.
		r.AddCookie(&http.Cookie{Name: p.PreCookie, Value: v})
	}
	return p.Forms.Sign("pre", v)
}

// signedOutForm refuses a signed-out form without the browser's token.
func (p *Pages) signedOutForm(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(p.PreCookie)
		if err != nil || !p.Forms.Verify(r.PostForm.Get("csrf"), "pre", c.Value) {
			p.Refuse(w, r, http.StatusForbidden, "This form has expired. Open the page again and repeat.")
			return
		}
		next(w, r)
	}
}

func (p *Pages) signInPage(w http.ResponseWriter, r *http.Request) {
	l := p.Locale(w, r)
	p.page(w, r, http.StatusOK, "signin", p.SignInTitle, l, View{Next: p.SafeNext(r.URL.Query().Get("next"))})
}

// signIn checks the password. The address's throttle takes a token
// before anything is looked at and gives it back on success; the account
// service bounds the password checks at once and counts the attempt on
// the account name before it checks the password. A failure has one
// answer whether or not the email exists; a locked account answers 429,
// the same for an email of no one, since unknown emails lock too.
func (p *Pages) signIn(w http.ResponseWriter, r *http.Request) {
	l := p.Locale(w, r)
	v := View{Email: strings.TrimSpace(r.PostForm.Get("email")), Next: p.SafeNext(r.PostForm.Get("next"))}
	answer := func(status int, text string) {
		v.Error = l.T(text)
		p.page(w, r, status, "signin", p.SignInTitle, l, v)
	}
	attempt := p.beginAttempt(w, r, answer)
	if attempt == nil {
		return
	}
	token, sess, err := p.Accounts.SignIn(r.Context(), v.Email, r.PostForm.Get("password"), p.Source.Addr(r).String(), r.UserAgent())
	if err != nil {
		p.refused(w, attempt, err, stepPassword, answer)
		return
	}
	attempt.Release()
	p.SetSession(w, token)
	switch sess.State {
	case payd.SessionSecondFactor:
		http.Redirect(w, r, p.Prefix+"signin/code?next="+url.QueryEscape(v.Next), http.StatusSeeOther)
	case payd.SessionEnroll:
		http.Redirect(w, r, p.EnrollPath, http.StatusSeeOther)
	default:
		http.Redirect(w, r, p.Landing(r.Context(), token, v.Next), http.StatusSeeOther)
	}
}

// refused answers a refused password or code and settles the address's
// attempt: a wrong secret counts against the address.
func (p *Pages) refused(w http.ResponseWriter, attempt *httpapi.Attempt, err error, step string, answer func(int, string)) {
	switch {
	case errors.Is(err, account.ErrSignInFailed):
		attempt.Failed()
		answer(http.StatusUnauthorized, "The email or the password is not right.")
	case errors.Is(err, account.ErrSecondFactorFailed):
		attempt.Failed()
		answer(http.StatusUnauthorized, "The code is not right. Enter the current code of your authenticator app.")
	case errors.Is(err, account.ErrPasswordChecksBusy):
		attempt.Release()
		RetryAfter(w, err)
		answer(http.StatusServiceUnavailable, "Too many sign-ins at this moment. Try again in a few seconds.")
	case payd.ErrorCodeOf(err) == payd.CodeTooManyRequests:
		attempt.Failed()
		RetryAfter(w, err)
		answer(http.StatusTooManyRequests, "Too many failed sign-ins to this account. Wait and try again later.")
	default:
		attempt.Release()
		var pe *payd.Error
		if !errors.As(err, &pe) {
			p.Log.Error(strings.TrimSuffix(p.Prefix[1:], "/")+": "+step, "err", err.Error())
		}
		if pe == nil || step == stepPassword {
			answer(http.StatusServiceUnavailable, "Something went wrong; try again.")
			return
		}
		// A session that awaits no code (already signed in, or
		// enrolling): the code is not what it needs.
		answer(http.StatusUnauthorized, "The code is not right. Enter the current code of your authenticator app.")
	}
}

// The steps of a sign-in, as its log lines name them.
const (
	stepPassword = "sign-in"
	stepCode     = "second factor"
)

// RetryAfter sets Retry-After from a refusal that says when to come back.
func RetryAfter(w http.ResponseWriter, err error) {
	var pe *payd.Error
	if errors.As(err, &pe) && pe.RetryAfter > 0 {
		httpapi.SetRetryAfter(w, pe.RetryAfter)
	}
}

// beginAttempt takes the address's token for one attempt at a signed-out
// form; when the address has none left it answers 429 and returns nil.
func (p *Pages) beginAttempt(w http.ResponseWriter, r *http.Request, answer func(status int, text string)) *httpapi.Attempt {
	attempt, err := p.Throttle.Begin(r)
	if err != nil {
		RetryAfter(w, err)
		answer(http.StatusTooManyRequests, "Too many failed sign-ins. Wait a minute and try again.")
		return nil
	}
	return attempt
}

func (p *Pages) codePage(w http.ResponseWriter, r *http.Request) {
	l := p.Locale(w, r)
	if p.SessionToken(r) == "" {
		http.Redirect(w, r, p.Prefix+"signin", http.StatusSeeOther)
		return
	}
	p.page(w, r, http.StatusOK, "code", "Second factor", l, View{Next: p.SafeNext(r.URL.Query().Get("next"))})
}

// code checks the second factor's code. The address's throttle takes a
// token first, as for passwords; the account service counts the code on
// the account before checking it and ends the waiting session after a
// handful of wrong ones: the next try starts from the password.
func (p *Pages) code(w http.ResponseWriter, r *http.Request) {
	l := p.Locale(w, r)
	v := View{Next: p.SafeNext(r.PostForm.Get("next"))}
	answer := func(status int, text string) {
		v.Error = l.T(text)
		p.page(w, r, status, "code", "Second factor", l, v)
	}
	attempt := p.beginAttempt(w, r, answer)
	if attempt == nil {
		return
	}
	token, _, err := p.Accounts.SecondFactor(r.Context(), p.SessionToken(r), strings.TrimSpace(r.PostForm.Get("code")), p.Source.Addr(r).String())
	switch {
	case err == nil:
		attempt.Release()
		p.SetSession(w, token)
		http.Redirect(w, r, p.Landing(r.Context(), token, v.Next), http.StatusSeeOther)
	case errors.Is(err, account.ErrSecondFactorSessionEnded), errors.Is(err, account.ErrNoSession):
		attempt.Failed()
		p.ClearSession(w)
		again := View{Next: v.Next, Error: l.T("Too many wrong codes, or the sign-in has expired. Sign in again with your password.")}
		p.page(w, r, http.StatusUnauthorized, "signin", p.SignInTitle, l, again)
	default:
		p.refused(w, attempt, err, stepCode, answer)
	}
}

func (p *Pages) setupPage(w http.ResponseWriter, r *http.Request) {
	l := p.Locale(w, r)
	p.page(w, r, http.StatusOK, "setup", "Set your password", l, View{Token: r.PathValue("token")})
}

// setup sets a password through the one-time link; then the person signs
// in. A link that is not one counts as a failed authentication of the
// address, as a wrong password does.
func (p *Pages) setup(w http.ResponseWriter, r *http.Request) {
	l := p.Locale(w, r)
	v := View{Token: r.PathValue("token")}
	answer := func(status int, text string) {
		v.Error = l.T(text)
		p.page(w, r, status, "setup", "Set your password", l, v)
	}
	pw := r.PostForm.Get("password")
	if pw != r.PostForm.Get("password_again") {
		answer(http.StatusUnprocessableEntity, "The two passwords differ.")
		return
	}
	attempt := p.beginAttempt(w, r, answer)
	if attempt == nil {
		return
	}
	email, err := p.Accounts.SetPassword(r.Context(), v.Token, pw, p.Source.Addr(r).String())
	var pe *payd.Error
	switch {
	case err == nil:
		attempt.Release()
		p.page(w, r, http.StatusOK, "signin", p.SignInTitle, l, View{Email: email, Next: p.Prefix})
	case errors.As(err, &pe):
		if pe.Code == payd.CodeNotFound {
			attempt.Failed()
		} else {
			attempt.Release()
			RetryAfter(w, err)
		}
		v.Error = p.Say(l, pe)
		p.page(w, r, httpapi.StatusOf(pe.Code), "setup", "Set your password", l, v)
	default:
		attempt.Release()
		p.Log.Error(strings.TrimSuffix(p.Prefix[1:], "/")+": set password", "err", err.Error())
		answer(http.StatusServiceUnavailable, "Something went wrong; try again.")
	}
}
