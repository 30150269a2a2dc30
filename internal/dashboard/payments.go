package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// pageRows is the dashboard's page size of lists: one query of the API's
// list, keyset, never a count of the table.
const pageRows = 50

// paymentFilters are the query parameters that filter the payments list;
// a cursor is bound to them as the API's are.
var paymentFilters = []string{"status", "from", "to", "q"}

// paymentQuery reads the filters of the payments list: status, a period of
// whole UTC days (from, to inclusive) and an order id to search for.
func paymentQuery(vals url.Values) (*payd.PaymentListParams, string, url.Values, error) {
	lp, print, keep, err := listQuery(vals, paymentFilters...)
	if err != nil {
		return nil, "", nil, err
	}
	p := &payd.PaymentListParams{ListParams: lp}
	if s := vals.Get("status"); s != "" {
		if !payd.PaymentStatus(s).Valid() {
			return nil, "", nil, payd.Invalid("status", "unknown status")
		}
		p.Status = payd.PaymentStatus(s)
	}
	for _, f := range []struct {
		name string
		dst  **time.Time
		next int
	}{{"from", &p.Created.GTE, 0}, {"to", &p.Created.LT, 1}} {
		v := vals.Get(f.name)
		if v == "" {
			continue
		}
		d, err := time.Parse("2006-01-02", v)
		if err != nil {
			return nil, "", nil, payd.Invalid(f.name, "a date such as 2026-01-31")
		}
		d = d.AddDate(0, 0, f.next)
		*f.dst = &d
	}
	p.OrderID = strings.TrimSpace(vals.Get("q"))
	return p, print, keep, nil
}

// paymentRow is what a list row shows of a payment, read from the
// rendering the API's list sends.
type paymentRow struct {
	ID            string                  `json:"id"`
	Status        payd.PaymentStatus      `json:"status"`
	Amount        money.Amount            `json:"amount"`
	OrderID       string                  `json:"order_id"`
	Description   string                  `json:"description"`
	CreatedAt     time.Time               `json:"created_at"`
	PaymentMethod *payd.PaymentMethodData `json:"payment_method"`
	Refunded      money.Amount            `json:"refunded_amount"`
	Captured      money.Amount            `json:"captured_amount"`
}

// rowView is a list row as the page shows it, its words and amounts
// written once here: the template then only places strings, which keeps
// a page of 50 rows cheap to render.
type rowView struct {
	ID, OrderID, Status, StatusLabel, Created, Amount, Method string
}

type paymentsView struct {
	Rows                  []rowView
	Status, From, To, Q   string
	Next, Export, Problem string
	Statuses              []payd.PaymentStatus
}

func (h *Handler) payments(q *req) {
	vals := q.r.URL.Query()
	v := paymentsView{Status: vals.Get("status"), From: vals.Get("from"), To: vals.Get("to"), Q: vals.Get("q"),
		Statuses: []payd.PaymentStatus{payd.PaymentPending, payd.PaymentWaitingForCapture, payd.PaymentSucceeded, payd.PaymentCanceled}}
	// A payment id goes straight to its page.
	if id := strings.TrimSpace(v.Q); payd.ValidID(payd.PrefixPayment, id) {
		if _, err := h.svc.GetPayment(q.ctx, q.principal(), id); err == nil {
			http.Redirect(q.w, q.r, q.base()+"payments/"+id, http.StatusSeeOther)
			return
		}
	}
	params, print, keep, err := paymentQuery(vals)
	if err != nil {
		var pe *payd.Error
		if errors.As(err, &pe) {
			v.Problem = pe.Message + " (" + pe.Param + ")"
			q.render(http.StatusBadRequest, "payments", "payments", q.l.T("Payments"), v)
			return
		}
		q.fail(err)
		return
	}
	page, err := h.svc.ListPayments(q.ctx, q.principal(), params)
	if err != nil {
		q.fail(err)
		return
	}
	words := map[string]string{}
	word := func(kind, value string) string {
		k := kind + ":" + value
		if w, ok := words[k]; ok {
			return w
		}
		w := label(q.l, kind, value)
		words[k] = w
		return w
	}
	v.Rows = make([]rowView, 0, len(page.Items))
	for _, item := range page.Items {
		var row paymentRow
		if err := json.Unmarshal(item.JSON, &row); err != nil {
			q.fail(err)
			return
		}
		rv := rowView{ID: row.ID, OrderID: row.OrderID, Status: string(row.Status), StatusLabel: word("status", string(row.Status)),
			Created: row.CreatedAt.UTC().Format(timeLayout), Amount: q.l.Amount(row.Amount.Minor, string(row.Amount.Currency))}
		if row.PaymentMethod != nil {
			rv.Method = word("method", row.PaymentMethod.Type)
		}
		v.Rows = append(v.Rows, rv)
	}
	v.Next = nextPage(keep, page.Next, print)
	v.Export = q.base() + "payments.csv?" + keep.Encode()
	q.render(http.StatusOK, "payments", "payments", q.l.T("Payments"), v)
}
