package dashboard

import (
	"html/template"
	"net/http"
	"strings"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

type accountView struct {
	Secret string // the pending secret, shown while enrolling
	// URL opens the pending secret in an authenticator app (otpauth:).
	URL    template.URL
	QR     template.URL
	Enroll bool // the merchant requires a second factor
	Err    formError
}

// account shows the user's sign-in settings: the second factor and the
// sessions.
func (h *Handler) account(q *req) {
	q.render(http.StatusOK, "account", "", q.l.T("Account"), accountView{})
}

// secondFactor is where a user turns the second factor on; a session the
// merchant's policy holds in enrolment can open only this page.
func (h *Handler) secondFactor(q *req) {
	q.render(http.StatusOK, "account", "", q.l.T("Account"), accountView{Enroll: q.sess.State == payd.SessionEnroll})
}

// beginSecondFactor makes a new pending secret and shows it, with its
// otpauth:// address, once.
func (h *Handler) beginSecondFactor(q *req) {
	type pending struct{ secret, url string }
	act(q, func() (pending, error) {
		secret, url, err := h.acc.BeginTOTP(q.ctx, q.actor(), q.user.ID)
		return pending{secret, url}, err
	}, func(p pending) {
		// The QR code is of the otpauth:// address: phones'
		// authenticator apps read it from the screen.
		qr, err := webpage.QRSVG(p.url)
		if err != nil {
			q.fail(err)
			return
		}
		q.render(http.StatusOK, "account", "", q.l.T("Account"), accountView{Secret: p.secret, URL: webpage.OTPAuthURL(p.url), QR: qr,
			Enroll: q.sess.State == payd.SessionEnroll})
	}, h.accountRefused(q, "begin"))
}

// confirmSecondFactor turns the second factor on with a code of the
// pending secret; the session is replaced by a new one.
func (h *Handler) confirmSecondFactor(q *req) {
	act(q, func() (string, error) {
		token, _, err := h.acc.ConfirmTOTP(q.ctx, q.actor(), h.out.SessionToken(q.r), strings.TrimSpace(q.r.PostForm.Get("code")))
		return token, err
	}, func(token string) {
		h.out.SetSession(q.w, token)
		http.Redirect(q.w, q.r, Prefix+"account?done=totp-on", http.StatusSeeOther)
	}, h.accountRefused(q, "confirm"))
}

func (h *Handler) disableSecondFactor(q *req) {
	act(q, func() (*payd.User, error) { return h.acc.DisableTOTP(q.ctx, q.actor(), q.user.ID) },
		func(*payd.User) { http.Redirect(q.w, q.r, Prefix+"account?done=totp-off", http.StatusSeeOther) },
		h.accountRefused(q, "disable"))
}

// accountRefused shows the account page again with a refusal next to its
// form.
func (h *Handler) accountRefused(q *req, form string) func(*payd.Error) {
	return func(pe *payd.Error) {
		q.render(httpStatusOf(pe), "account", "", q.l.T("Account"), accountView{Err: refusedIn(q.l, form, pe),
			Enroll: q.sess.State == payd.SessionEnroll})
	}
}

type auditView struct {
	Entries []*payd.AuditEntry
	Pages   pager
}

// auditLog lists what the merchant's users did, newest first.
func (h *Handler) auditLog(q *req) {
	lp, print, keep, err := listQuery(q.r.URL.Query())
	if err != nil {
		q.fail(err)
		return
	}
	page, err := h.svc.ListAudit(q.ctx, q.user.MerchantID, payd.AuditListParams{ListParams: lp})
	if err != nil {
		q.fail(err)
		return
	}
	q.render(http.StatusOK, "audit", "users", q.l.T("Audit log"), auditView{Entries: page.Items, Pages: pagesOf(q.r.URL.Query(), keep, page.Next, print)})
}
