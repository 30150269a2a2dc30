package dashboard

import (
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
	"github.com/paydhq/payd/money"
)

type linksView struct {
	Rows       []*payd.PaymentLinkJSON
	Problem    string
	Pages      pager
	Form       createForm
	Currencies []money.Currency
	Currency   money.Currency
}

// stageM5 answers 404 before stage M5, where payment links and payouts
// do not exist in the API either.
func (h *Handler) stageM5(q *req) bool {
	if h.svc.Stage() < payd.StageM5 {
		q.problem(http.StatusNotFound, q.l.T("This page does not exist."))
		return false
	}
	return true
}

// links lists the shop's payment links, newest first, with the form that
// creates one.
func (h *Handler) links(q *req) { h.showLinks(q, http.StatusOK, newForm()) }

func (h *Handler) showLinks(q *req, status int, form createForm) {
	if !h.stageM5(q) {
		return
	}
	v := linksView{Form: form, Currencies: money.Currencies(), Currency: defaultCurrency(q.shop)}
	if c := form.Get("currency"); c != "" {
		v.Currency = money.Currency(c)
	}
	lp, print, keep, err := listQuery(q.r.URL.Query())
	if err == nil {
		var page payd.Page[*payd.PaymentLink]
		page, err = h.svc.ListPaymentLinks(q.ctx, q.principal(), &payd.PaymentLinkListParams{ListParams: lp})
		for _, l := range page.Items {
			v.Rows = append(v.Rows, l.View(h.svc.LinkURL(l.ID)))
		}
		v.Pages = pagesOf(q.r.URL.Query(), keep, page.Next, print)
	}
	if err != nil {
		var ok bool
		if v.Problem, ok = listProblem(q, err); !ok {
			return
		}
		status = http.StatusBadRequest
	}
	q.render(status, "links", "links", q.l.T("Payment links"), v)
}

// createLink creates a link from the form: a fixed amount, or an amount
// the payer enters between an optional minimum and maximum; one-time or
// reusable.
func (h *Handler) createLink(q *req) {
	if !h.stageM5(q) {
		return
	}
	idem, ok := postIdempotency(q)
	if !ok {
		return
	}
	act(q, func() (*payd.Response, error) { return h.linkCreate(q, idem) },
		func(resp *payd.Response) {
			id, err := createdID(resp)
			if err != nil {
				q.fail(err)
				return
			}
			q.redirect("links/"+id, "link_created")
		}, func(pe *payd.Error) { h.showLinks(q, httpStatusOf(pe), refusedForm(q, pe)) })
}

func (h *Handler) linkCreate(q *req, idem payd.Idempotency) (*payd.Response, error) {
	f := q.r.PostForm
	c, err := formCurrency(q, "currency")
	if err != nil {
		return nil, err
	}
	in := payd.PaymentLinkCreate{Description: strings.TrimSpace(f.Get("description")),
		OrderID: strings.TrimSpace(f.Get("order_id")), Reusable: f.Get("reusable") == "1"}
	if f.Get("two_stage") == "1" {
		capture := false
		in.Capture = &capture
	}
	in.ReturnURL = strings.TrimSpace(f.Get("return_url"))
	if day := f.Get("expires_on"); day != "" {
		d, err := time.Parse("2006-01-02", day)
		if err != nil {
			return nil, payd.Invalid("expires_at", "%s", said(q.l.T("Enter a date such as 2026-12-31.")))
		}
		// The link works through the whole day it is given, in UTC.
		end := d.AddDate(0, 0, 1)
		in.ExpiresAt = &end
	}
	if f.Get("amount_kind") == "open" {
		if in.MinAmount, err = formMoney(q, "min_amount", "min_amount.value", c); err != nil {
			return nil, err
		}
		if in.MaxAmount, err = formMoney(q, "max_amount", "max_amount.value", c); err != nil {
			return nil, err
		}
	} else {
		if in.Amount, err = formMoney(q, "amount", "amount.value", c); err != nil {
			return nil, err
		}
		if in.Amount == nil {
			return nil, payd.Invalid("amount.value", "%s", said(q.l.T("Enter the amount, or choose an amount the payer enters.")))
		}
	}
	return h.svc.CreatePaymentLink(q.ctx, q.principal(), idem, in)
}

type linkPage struct {
	Link          *payd.PaymentLinkJSON
	QR            template.URL
	CanDeactivate bool
	Key           string
	Err           formError
}

// link shows a link: its terms, its address with a copy button and a QR
// code of it, the payments made through it, and the deactivation.
func (h *Handler) link(q *req) { h.showLink(q, http.StatusOK, formError{}) }

func (h *Handler) showLink(q *req, status int, fe formError) {
	if !h.stageM5(q) {
		return
	}
	l, err := h.svc.GetPaymentLink(q.ctx, q.principal(), q.r.PathValue("id"))
	if err != nil {
		q.failObject(q.r.PathValue("id"), err)
		return
	}
	v := linkPage{Link: l.View(h.svc.LinkURL(l.ID)), Key: newKey(), Err: fe,
		CanDeactivate: l.Status == payd.LinkActive && q.can(payd.AuditDeactivateLink.Permission())}
	if v.QR, err = webpage.QRSVG(v.Link.URL); err != nil {
		q.fail(err)
		return
	}
	q.render(status, "link", "links", q.l.T("Payment link")+" "+l.ID, v)
}

// deactivateLink ends a link: its page stops taking payments.
func (h *Handler) deactivateLink(q *req) {
	if !h.stageM5(q) {
		return
	}
	idem, ok := postIdempotency(q)
	if !ok {
		return
	}
	id := q.r.PathValue("id")
	act(q, func() (*payd.Response, error) { return h.svc.DeactivatePaymentLink(q.ctx, q.principal(), idem, id) },
		func(*payd.Response) { q.redirect("links/"+id, "link_deactivated") },
		func(pe *payd.Error) { h.showLink(q, httpStatusOf(pe), refusedIn(q.l, "deactivate", pe)) })
}
