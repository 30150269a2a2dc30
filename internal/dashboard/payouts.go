package dashboard

import (
	"net/http"
	"slices"
	"strings"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// destinationFields are the form's inputs of each destination kind, named
// as the API's destination members.
var destinationFields = []string{"card_token", "phone", "bank_id", "account_number", "bic"}

type payoutsView struct {
	Rows       []*payd.PayoutJSON
	Status     string
	Statuses   []choice
	Problem    string
	Pages      pager
	Balance    []payd.BalanceJSON
	Form       createForm
	Currencies []money.Currency
	Currency   money.Currency
	Kinds      []payd.DestinationType
	SBP        bool
}

// payouts lists the shop's payouts with the form that creates one and the
// balance it is paid from beside it.
func (h *Handler) payouts(q *req) { h.showPayouts(q, http.StatusOK, newForm()) }

func (h *Handler) showPayouts(q *req, status int, form createForm) {
	if !h.stageM5(q) {
		return
	}
	vals := q.r.URL.Query()
	v := payoutsView{Status: vals.Get("status"), Form: form,
		Currency: defaultCurrency(q.shop), Kinds: payd.DestinationTypeAll(), SBP: q.shop.Region == payd.RegionRU}
	statuses, err := choices(q.shown(), payd.PayoutStatusAll(), v.Status, true)
	if err != nil {
		q.fail(err)
		return
	}
	v.Statuses = statuses
	if !v.SBP {
		// SBP pays to Russian phone numbers only.
		v.Kinds = slices.DeleteFunc(v.Kinds, func(d payd.DestinationType) bool { return d == payd.DestinationSBP })
	}
	bal, err := h.svc.Balance(q.ctx, q.principal())
	if err != nil {
		q.fail(err)
		return
	}
	v.Balance = bal
	v.Currencies = []money.Currency{v.Currency}
	for _, b := range bal {
		if b.Currency != v.Currency {
			v.Currencies = append(v.Currencies, b.Currency)
		}
	}
	if c := form.Get("currency"); c != "" {
		v.Currency = money.Currency(c)
	}
	lp, print, keep, err := listQuery(vals, "status")
	if err == nil && v.Status != "" && !payd.PayoutStatus(v.Status).Valid() {
		err = payd.Invalid("status", "status must be pending, processing, succeeded or canceled")
	}
	if err == nil {
		var page payd.Page[*payd.Payout]
		page, err = h.svc.ListPayouts(q.ctx, q.principal(), &payd.PayoutListParams{ListParams: lp, Status: payd.PayoutStatus(v.Status)})
		for _, po := range page.Items {
			v.Rows = append(v.Rows, po.View())
		}
		v.Pages = pagesOf(vals, keep, page.Next, print)
	}
	if err != nil {
		var ok bool
		if v.Problem, ok = listProblem(q, err); !ok {
			return
		}
		status = http.StatusBadRequest
	}
	q.render(status, "payouts", "payouts", q.l.T("Payouts"), v)
}

// createPayout pays out from the available balance to the destination the
// form names. The destination's fields of other kinds are left empty by
// the form; only those typed in are given, so that the service refuses a
// field that does not belong to the kind, as the API does.
func (h *Handler) createPayout(q *req) {
	if !h.stageM5(q) {
		return
	}
	idem, ok := postIdempotency(q)
	if !ok {
		return
	}
	act(q, func() (*payd.Response, error) { return h.payoutCreate(q, idem) },
		func(*payd.Response) { q.redirect("payouts", "payout_created") },
		func(pe *payd.Error) { h.showPayouts(q, httpStatusOf(pe), refusedForm(q, pe)) })
}

func (h *Handler) payoutCreate(q *req, idem payd.Idempotency) (*payd.Response, error) {
	f := q.r.PostForm
	c, err := formCurrency(q, "currency")
	if err != nil {
		return nil, err
	}
	amount, err := formMoney(q, "amount", "amount.value", c)
	if err != nil {
		return nil, err
	}
	if amount == nil {
		return nil, payd.Invalid("amount.value", "%s", said(q.l.T("Enter the amount in digits, for example 1500 or 1500.50.")))
	}
	dest := payd.PayoutDestination{Type: payd.DestinationType(f.Get("destination_type"))}
	for _, name := range destinationFields {
		val := strings.TrimSpace(f.Get(name))
		if val == "" {
			continue
		}
		dest.Given = append(dest.Given, name)
		switch name {
		case "card_token":
			dest.CardToken = val
		case "phone":
			dest.Phone = val
		case "bank_id":
			dest.BankID = val
		case "account_number":
			dest.AccountNumber = val
		case "bic":
			dest.BIC = val
		}
	}
	return h.svc.CreatePayout(q.ctx, q.principal(), idem, payd.PayoutCreate{Amount: *amount, Destination: dest,
		Description: strings.TrimSpace(f.Get("description"))})
}
