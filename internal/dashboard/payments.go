package dashboard

import (
	"cmp"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

// pageRows is the dashboard's page size of lists: one query of the API's
// list, keyset, never a count of the table.
const pageRows = 50

// paymentFilters are the query parameters that filter the payments list;
// a cursor is bound to them as the API's are.
var paymentFilters = []string{"status", "method", "from", "to", "q", "shops"}

// paymentQuery reads the filters of the payments list: status, method
// (one of methods), a period of whole UTC days (from, to inclusive) and
// an order id to search for.
func paymentQuery(vals url.Values, methods []payd.MethodType) (*payd.PaymentListParams, string, url.Values, error) {
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
	if m := vals.Get("method"); m != "" {
		if !slices.Contains(methods, payd.MethodType(m)) {
			return nil, "", nil, payd.Invalid("method", "unknown payment method")
		}
		p.Method = m
	}
	if s := vals.Get("shops"); s != "" && s != "all" {
		return nil, "", nil, payd.Invalid("shops", "either all or absent")
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

// rowView is a list row as the page shows it, its words and amounts
// written once here: the template then only places strings, which keeps
// a page of 50 rows cheap to render.
type rowView struct {
	ID, OrderID, Status, StatusLabel, Amount, Method string
	// When is the moment of creation as the page shows it (moment).
	When template.HTML
	// Description and Customer (the customer's email, else name, else
	// phone) say what the payment was for and who paid, so that a row is
	// recognised without reading its id.
	Description, Customer string
	// Shop is the row's shop when the list shows all shops: its name,
	// and the link that opens the payment in that shop.
	ShopID, ShopName string
}

type paymentsView struct {
	Rows []rowView
	// Cols are the columns' names, which every row repeats for the
	// phone's layout (data-label): translated once a page, not per row.
	Cols paymentCols
	// RowsHTML are the rows' markup (paymentRows).
	RowsHTML                    rowsHTML
	Status, Method, From, To, Q string
	Export, Problem             string
	Pages                       pager
	Statuses, Methods           []choice
	// Several is set for a merchant of more than one shop, who may list
	// all of them at once (All).
	Several, All bool
}

// paymentCols are the payments list's column names in the page's language.
type paymentCols struct {
	Created, Payment, Customer, OrderID, Status, Amount, Method, Shop string
}

func paymentColsIn(l webpage.Locale) paymentCols {
	return paymentCols{Created: l.T("Created"), Payment: l.T("Payment"), Customer: l.T("Customer"), OrderID: l.T("Order id"),
		Status: l.T("Status"), Amount: l.T("Amount"), Method: l.T("Method"), Shop: l.T("Shop")}
}

// methods are the payment methods the user's shops offer, for the
// method filter.
func (q *req) methods() []payd.MethodType {
	var out []payd.MethodType
	for _, sh := range q.shops {
		for _, m := range payd.OfferedMethods(sh.Region) {
			if !slices.Contains(out, payd.MethodType(m)) {
				out = append(out, payd.MethodType(m))
			}
		}
	}
	return out
}

// listed is who the payments list reads as: the chosen shop, or every
// shop of the merchant when the list asks for all of them.
func (q *req) listed(all bool) []*payd.Principal {
	if !all {
		return []*payd.Principal{q.principal()}
	}
	out := make([]*payd.Principal, len(q.shops))
	for i, sh := range q.shops {
		p := *q.principal()
		p.Shop = sh
		out[i] = &p
	}
	return out
}

func (h *Handler) payments(q *req) {
	vals := q.r.URL.Query()
	v := paymentsView{Status: vals.Get("status"), Method: vals.Get("method"), From: vals.Get("from"), To: vals.Get("to"), Q: vals.Get("q"),
		Several: len(q.shops) > 1, All: len(q.shops) > 1 && vals.Get("shops") == "all"}
	methods := q.methods()
	var err error
	if v.Statuses, err = choices(q.shown(), payd.PaymentStatusAll(), v.Status, true); err == nil {
		v.Methods, err = choices(q.shown(), methods, v.Method, true)
	}
	if err != nil {
		q.fail(err)
		return
	}
	// A payment id goes straight to its page, in whichever listed shop
	// holds it.
	if id := strings.TrimSpace(v.Q); payd.ValidID(payd.PrefixPayment, id) {
		for _, p := range q.listed(v.All) {
			if _, err := h.svc.GetPayment(q.ctx, p, id); err == nil {
				to := q.base() + "payments/" + id
				if v.All {
					to += "?shop=" + url.QueryEscape(p.Shop.ID)
				}
				http.Redirect(q.w, q.r, to, http.StatusSeeOther)
				return
			}
		}
	}
	params, print, keep, err := paymentQuery(vals, methods)
	if err != nil {
		if pe := refusal(err); pe != nil {
			v.Problem = say(q.l, pe) + " (" + pe.Param + ")"
			q.render(http.StatusBadRequest, "payments", "payments", q.l.T("Payments"), v)
			return
		}
		q.fail(err)
		return
	}
	page, err := h.svc.ListPaymentsOfShops(q.ctx, q.listed(v.All), params)
	if err != nil {
		q.fail(err)
		return
	}
	names := map[string]string{}
	for _, sh := range q.shops {
		names[sh.ID] = sh.Name
	}
	word := pageWords(q.l)
	v.Rows = make([]rowView, 0, len(page.Items))
	v.Cols = paymentColsIn(q.l)
	shown := q.shown()
	for _, item := range page.Items {
		row, err := listed(item)
		if err != nil {
			q.fail(err)
			return
		}
		rv := rowView{ID: row.ID, OrderID: row.OrderID, Status: string(row.Status),
			When: moment(shown, row.CreatedAt), Amount: q.l.Amount(row.Minor, string(row.Currency)),
			Description: row.Description, Customer: cmp.Or(row.Email, row.FullName, row.Phone)}
		if rv.StatusLabel, err = word(row.Status); err != nil {
			q.fail(err)
			return
		}
		if row.Method != "" {
			if rv.Method, err = word(row.Method); err != nil {
				q.fail(err)
				return
			}
		}
		if v.All {
			rv.ShopID, rv.ShopName = item.ShopID, names[item.ShopID]
		}
		v.Rows = append(v.Rows, rv)
	}
	v.RowsHTML = paymentRows(v.Rows, v.Cols, q.base(), v.All)
	v.Pages = pagesOf(vals, keep, page.Next, print)
	v.Export = q.base() + "payments.csv?" + keep.Encode()
	q.render(http.StatusOK, "payments", "payments", q.l.T("Payments"), v)
}
