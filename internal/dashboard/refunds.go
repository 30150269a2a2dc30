package dashboard

import (
	"net/http"

	"github.com/paydhq/payd"
)

type refundsView struct {
	Rows     []*payd.Refund
	Status   string
	Statuses []payd.RefundStatus
	Problem  string
	Pages    pager
}

// refunds lists the shop's refunds, newest first, 50 a page, each linking
// to its payment.
func (h *Handler) refunds(q *req) {
	vals := q.r.URL.Query()
	v := refundsView{Status: vals.Get("status"),
		Statuses: payd.RefundStatusAll()}
	status := http.StatusOK
	lp, print, keep, err := listQuery(vals, "status")
	if err == nil && v.Status != "" && !payd.RefundStatus(v.Status).Valid() {
		err = payd.Invalid("status", "status must be pending, succeeded or canceled")
	}
	if err == nil {
		var page payd.Page[*payd.Refund]
		page, err = h.svc.ListRefunds(q.ctx, q.principal(), &payd.RefundListParams{ListParams: lp, Status: payd.RefundStatus(v.Status)})
		v.Rows, v.Pages = page.Items, pagesOf(vals, keep, page.Next, print)
	}
	if err != nil {
		var ok bool
		if v.Problem, ok = listProblem(q, err); !ok {
			return
		}
		status = http.StatusBadRequest
	}
	q.render(status, "refunds", "refunds", q.l.T("Refunds"), v)
}

// refundPage is a refund's address: its payment's page, which shows the
// refund in its table.
func (h *Handler) refundPage(q *req) {
	id := q.r.PathValue("id")
	r, err := h.svc.GetRefund(q.ctx, q.principal(), id)
	if err != nil {
		q.failObject(id, err)
		return
	}
	u := q.base() + "payments/" + r.PaymentID
	if done := q.r.URL.Query().Get("done"); done == switchedNotice {
		u += "?done=" + done
	}
	http.Redirect(q.w, q.r, u+"#"+r.ID, http.StatusSeeOther)
}
