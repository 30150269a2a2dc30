package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// createForm is a create form of a list page as shown again after a
// refusal: what the user typed, and the rule's words next to the field it
// names.
type createForm struct {
	Key    string
	Values url.Values
	Err    formError
}

// ErrFor is the refusal's message when it names field (or a member of
// it, as amount.value), else "".
func (f createForm) ErrFor(field string) string {
	if f.Err.Field == field || strings.HasPrefix(f.Err.Field, field+".") {
		return f.Err.Message
	}
	return ""
}

// ErrOther is the refusal's message when it names none of fields: it is
// shown at the form's end.
func (f createForm) ErrOther(fields ...string) string {
	for _, field := range fields {
		if f.ErrFor(field) != "" {
			return ""
		}
	}
	return f.Err.Message
}

// Get is what the user typed into field.
func (f createForm) Get(field string) string { return f.Values.Get(field) }

// newForm is an empty create form with a fresh idempotency key.
func newForm() createForm { return createForm{Key: newKey(), Values: url.Values{}} }

// refusedForm is a create form shown again after a refusal: the values
// are kept, the key is new, since the refused request is done.
func refusedForm(q *req, pe *payd.Error) createForm {
	return createForm{Key: newKey(), Values: q.r.PostForm, Err: refusedIn(q.l, "", pe)}
}

// formMoney reads an amount field typed in the user's language in
// currency c; empty is nil. param names the field in a refusal.
func formMoney(q *req, field, param string, c money.Currency) (*money.Amount, error) {
	s := strings.TrimSpace(q.r.PostForm.Get(field))
	if s == "" {
		return nil, nil
	}
	minor, err := q.l.ParseAmount(s)
	if err != nil {
		return nil, payd.Invalid(param, "%s", said(q.l.T("Enter the amount in digits, for example 1500 or 1500.50.")))
	}
	a := money.New(minor, c)
	return &a, nil
}

// formCurrency reads a currency field; an unknown one is refused.
func formCurrency(q *req, field string) (money.Currency, error) {
	c := money.Currency(q.r.PostForm.Get(field))
	for _, known := range money.Currencies() {
		if c == known {
			return c, nil
		}
	}
	return "", payd.Invalid(field, "%s", said(q.l.T("Choose a currency.")))
}

// createdID is the id of the object a create call answered.
func createdID(resp *payd.Response) (string, error) {
	if id := resp.ObjectID(); id != "" {
		return id, nil
	}
	return "", errors.New("the created object has no id")
}

// postIdempotency is the form's idempotency key; a form without one is
// answered with a page that says to open the form again.
func postIdempotency(q *req) (payd.Idempotency, bool) {
	idem := formIdempotency(q.r)
	if idem.Key == "" {
		q.problem(http.StatusBadRequest, q.l.T("This form has expired. Open the page again and repeat."))
		return idem, false
	}
	return idem, true
}

// defaultCurrency is the currency a shop's forms start with: its region's.
func defaultCurrency(shop *payd.Shop) money.Currency {
	if shop.Region == payd.RegionKZ {
		return money.KZT
	}
	return money.RUB
}
