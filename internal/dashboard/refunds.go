package dashboard

import (
	"html/template"
	"net/http"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

type refundsView struct {
	Rows     []refundRow
	Cols     refundCols
	Status   string
	Statuses []payd.RefundStatus
	Problem  string
	Pages    pager
}

// refundRow is a listed refund with its moment, status and amount as the
// page shows them, written once per row in Go rather than by helpers the
// template calls through reflection.
type refundRow struct {
	*payd.Refund
	When                template.HTML
	StatusLabel, Amount string
}

// refundCols are the refunds list's column names, translated once a page.
type refundCols struct {
	Created, Refund, Payment, OrderID, Status, Amount, Reason string
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
		v.Pages = pagesOf(vals, keep, page.Next, print)
		if err == nil {
			v.Rows, err = refundRows(q.shown(), page.Items)
		}
	}
	if err != nil {
		var ok bool
		if v.Problem, ok = listProblem(q, err); !ok {
			return
		}
		status = http.StatusBadRequest
	}
	v.Cols = refundCols{Created: q.l.T("Created"), Refund: q.l.T("Refund"), Payment: q.l.T("Payment"), OrderID: q.l.T("Order id"),
		Status: q.l.T("Status"), Amount: q.l.T("Amount"), Reason: q.l.T("Reason")}
	q.render(status, "refunds", "refunds", q.l.T("Refunds"), v)
}

func refundRows(l webpage.Locale, refunds []*payd.Refund) ([]refundRow, error) {
	rows := make([]refundRow, 0, len(refunds))
	word := pageWords(l)
	for _, r := range refunds {
		w, err := word(r.Status)
		if err != nil {
			return nil, err
		}
		rows = append(rows, refundRow{Refund: r, When: moment(l, r.CreatedAt), StatusLabel: w,
			Amount: l.Amount(r.Amount.Minor, string(r.Amount.Currency))})
	}
	return rows, nil
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
