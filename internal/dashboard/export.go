package dashboard

import (
	"net/http"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/csvexport"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/money"
)

// exportPage is how many payments the export reads at a time: memory stays
// the same whatever the number of rows.
const exportPage = payd.MaxPageSize

// paymentsCSV streams the filtered list as CSV, page by page of the same
// keyset query as the list, flushing as it goes. Every cell goes through
// csvexport, which keeps a merchant's text (order_id, description) from
// being read as a formula whatever separator the spreadsheet uses.
func (h *Handler) paymentsCSV(q *req) {
	// The export starts at the newest payment whatever page it was
	// asked from.
	vals := q.r.URL.Query()
	vals.Del("cursor")
	params, _, _, err := paymentQuery(vals, q.methods())
	if err != nil {
		q.fail(err)
		return
	}
	all := len(q.shops) > 1 && vals.Get("shops") == "all"
	who := q.listed(all)
	name := q.shop.ID
	if all {
		name = "all-shops"
	}
	params.Limit = exportPage
	mode := "live"
	if q.test {
		mode = "test"
	}
	w := q.w
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="payments-`+name+"-"+mode+`.csv"`)
	cw := csvexport.NewWriter(w)
	_ = cw.Write([]string{"id", "created_at", "status", "amount", "currency", "captured", "refunded", "order_id", "method", "description", "test", "shop_id"})
	flusher, _ := w.(http.Flusher)
	for {
		page, err := h.svc.ListPaymentsOfShops(q.ctx, who, params)
		if err != nil {
			h.exportInterrupted(q, cw, err)
			return
		}
		for _, item := range page.Items {
			row, err := item.Payment()
			if err != nil {
				h.exportInterrupted(q, cw, err)
				return
			}
			method := ""
			if row.PaymentMethod != nil {
				method = row.PaymentMethod.Type
			}
			_ = cw.Write([]string{row.ID, row.CreatedAt.UTC().Format("2006-01-02T15:04:05.000000Z"), string(row.Status),
				money.FormatValue(row.Amount.Minor), string(row.Amount.Currency),
				money.FormatValue(row.CapturedAmount.Minor), money.FormatValue(row.RefundedAmount.Minor),
				row.OrderID, method, row.Description, boolText(q.test), shopOf(item, q.shop.ID)})
		}
		cw.Flush()
		if flusher != nil {
			flusher.Flush()
		}
		if page.Next == nil || q.ctx.Err() != nil {
			return
		}
		params.After = page.Next
	}
}

// shopOf is the shop of a listed payment: the one it was listed from when
// the list spans shops, else the page's.
func shopOf(v *payd.PaymentView, page string) string {
	if v.ShopID != "" {
		return v.ShopID
	}
	return page
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// exportInterrupted ends a file whose headers are gone with a line that
// says it is cut short and names the request, so the reason can be found
// in the log; the reason itself, an internal error, is not the user's to
// read.
func (h *Handler) exportInterrupted(q *req, cw *csvexport.Writer, err error) {
	id := httpapi.RequestID(q.ctx)
	h.log.Error("dashboard: export", "err", err.Error(), "request_id", id)
	_ = cw.Write([]string{"# export interrupted; request " + id})
	cw.Flush()
}
