package dashboard

import (
	"net/http"
	"time"

	"github.com/paydhq/payd"
)

type homeView struct {
	// FailedSignIns warns the owner of the failed attempts on the
	// account between the previous sign-in and this session's.
	FailedSignIns int
	Day           string
	Totals        []payd.PaymentTotal
	Balance       []payd.BalanceJSON
}

// home shows today's payments (UTC day) by status and currency, and the
// balance's buckets.
func (h *Handler) home(q *req) {
	now := h.now().UTC()
	from := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	p := q.principal()
	totals, err := h.svc.PaymentTotals(q.ctx, p, from, from.AddDate(0, 0, 1))
	if err != nil {
		q.fail(err)
		return
	}
	balance, err := h.svc.Balance(q.ctx, p)
	if err != nil {
		q.fail(err)
		return
	}
	q.render(http.StatusOK, "home", "home", q.l.T("Home"), homeView{FailedSignIns: q.sess.FailedSignIns,
		Day: from.Format("2006-01-02"), Totals: totals, Balance: balance})
}
