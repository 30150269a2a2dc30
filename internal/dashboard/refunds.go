package dashboard

import (
	"net/http"
	"net/url"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

type refundsView struct {
	// Rows are the refunds' rows (refundRows).
	Rows     rowsHTML
	Status   string
	Statuses []choice
	Problem  string
	Pages    pager
}

// refundCols are the refunds list's column names, translated once a page.
type refundCols struct {
	Created, Refund, Payment, OrderID, Status, Amount, Reason string
}

// refunds lists the shop's refunds, newest first, 50 a page, each linking
// to its payment.
func (h *Handler) refunds(q *req) {
	vals := q.r.URL.Query()
	v := refundsView{Status: vals.Get("status")}
	var err error
	if v.Statuses, err = choices(q.shown(), payd.RefundStatusAll(), v.Status, true); err != nil {
		q.fail(err)
		return
	}
	status := http.StatusOK
	lp, print, keep, err := listQuery(vals, "status")
	if err == nil && v.Status != "" && !payd.RefundStatus(v.Status).Valid() {
		err = payd.Invalid("status", "status must be pending, succeeded or canceled")
	}
	cols := refundCols{Created: q.l.T("Created"), Refund: q.l.T("Refund"), Payment: q.l.T("Payment"), OrderID: q.l.T("Order id"),
		Status: q.l.T("Status"), Amount: q.l.T("Amount"), Reason: q.l.T("Reason")}
	if err == nil {
		var page payd.Page[*payd.Refund]
		page, err = h.svc.ListRefunds(q.ctx, q.principal(), &payd.RefundListParams{ListParams: lp, Status: payd.RefundStatus(v.Status)})
		v.Pages = pagesOf(vals, keep, page.Next, print)
		if err == nil {
			v.Rows, err = refundRows(q.shown(), page.Items, cols, q.base())
		}
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

// refundRows writes the rows of the refunds list (rows.go says why in
// Go): each refund's moment, id, payment, order id, status, amount and
// reason, its cells labelled with their columns c for the phone's layout.
func refundRows(l webpage.Locale, refunds []*payd.Refund, c refundCols, base string) (rowsHTML, error) {
	word := pageWords(l)
	var w rowWriter
	w.Grow(len(refunds) * 1000)
	for _, r := range refunds {
		status, err := word(r.Status)
		if err != nil {
			return nil, err
		}
		w.WriteString("<tr>")
		w.cell("", c.Created)
		w.WriteString(string(moment(l, r.CreatedAt)))
		w.WriteString("</td>")
		w.cell("mono", c.Refund)
		w.text(r.ID)
		w.WriteString("</td>")
		w.cell("", c.Payment)
		w.monoLink(base+"payments/"+url.PathEscape(r.PaymentID), r.PaymentID)
		w.WriteString("</td>")
		w.cell("mono", c.OrderID)
		w.text(r.OrderID)
		w.WriteString("</td>\n")
		w.cell("", c.Status)
		w.badge(string(r.Status), status)
		w.WriteString("</td>")
		w.cell("num", c.Amount)
		w.text(l.Amount(r.Amount.Minor, string(r.Amount.Currency)))
		w.WriteString("</td>")
		w.cell("", c.Reason)
		w.textOrDash(r.Reason)
		w.WriteString("</td></tr>")
	}
	return w.html(), nil
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
