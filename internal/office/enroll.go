package office

import (
	"errors"
	"html/template"
	"net/http"
	"strings"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/account"
	"github.com/paydhq/payd/internal/webpage"
)

// The second factor's enrolment: mandatory for staff, so a session
// without one opens this page and nothing else until it is done.

type enrollView struct {
	Enroll bool
	Secret string
	URL    template.URL
	QR     template.URL
	Error  string
}

func (h *Handler) secondFactor(q *req) {
	if q.staff.TOTPEnabled {
		http.Redirect(q.w, q.r, Prefix, http.StatusSeeOther)
		return
	}
	q.render(http.StatusOK, "enroll", "", q.l.T("Second factor"), enrollView{Enroll: true})
}

// beginSecondFactor makes a new pending secret and shows it once, with
// its QR code for a phone's authenticator app.
func (h *Handler) beginSecondFactor(q *req) {
	secret, url, err := h.acc.StaffBeginTOTP(q.ctx, q.token)
	if err != nil {
		h.accountFailed(q, err)
		return
	}
	qr, err := webpage.QRSVG(url)
	if err != nil {
		h.accountFailed(q, err)
		return
	}
	q.render(http.StatusOK, "enroll", "", q.l.T("Second factor"), enrollView{Secret: secret, URL: webpage.OTPAuthURL(url), QR: qr})
}

// confirmSecondFactor turns the second factor on with a code of the
// pending secret; the session is replaced by an active one.
func (h *Handler) confirmSecondFactor(q *req) {
	token, _, err := h.acc.StaffConfirmTOTP(q.ctx, q.token, strings.TrimSpace(q.r.PostForm.Get("code")), q.h.source.Addr(q.r).String())
	if errors.Is(err, account.ErrSecondFactorFailed) {
		q.render(http.StatusUnprocessableEntity, "enroll", "", q.l.T("Second factor"),
			enrollView{Enroll: true, Error: q.l.T("The code is not right. Start again and scan the new code.")})
		return
	}
	if err != nil {
		h.accountFailed(q, err)
		return
	}
	h.out.SetSession(q.w, token)
	q.redirect(Prefix, "done")
}

// accountFailed answers an error of the account service on a signed-in
// page.
func (h *Handler) accountFailed(q *req, err error) {
	var pe *payd.Error
	if errors.As(err, &pe) {
		q.render(http.StatusConflict, "problem", "", q.l.T("Not done"), struct{ Message, Detail string }{q.l.T("Not done."), pe.Message})
		return
	}
	h.log.Error("office: account", "err", err.Error())
	q.problem(http.StatusServiceUnavailable, q.l.T("Something went wrong; try again."))
}
