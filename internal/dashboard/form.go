package dashboard

import (
	"crypto/sha256"
	"net/http"
	"net/url"
	"strings"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/money"
)

// formIdempotency is the form's idempotency key and the hash of what it
// asks: the same key with other values is refused as the API refuses it
// (idempotency_conflict).
func formIdempotency(r *http.Request) payd.Idempotency {
	key := r.PostForm.Get("idempotency_key")
	if !strings.HasPrefix(key, "dash_") || len(key) > 64 {
		return payd.Idempotency{}
	}
	vals := url.Values{}
	for k, v := range r.PostForm {
		if k != "csrf" && k != "idempotency_key" {
			vals[k] = v
		}
	}
	sum := sha256.Sum256([]byte(r.Method + " " + r.URL.Path + "\n" + vals.Encode()))
	return payd.Idempotency{Key: key, Hash: sum[:]}
}

// formAmount reads an amount typed as the user's language writes it, in
// the currency of the payment; empty means the whole.
func formAmount(q *req, paymentID, field string) (*money.Amount, error) {
	s := strings.TrimSpace(q.r.PostForm.Get(field))
	if s == "" {
		return nil, nil
	}
	minor, err := q.l.ParseAmount(s)
	if err != nil {
		return nil, payd.Invalid("amount.value", "%s", said(q.l.T("Enter the amount in digits, for example 1500 or 1500.50.")))
	}
	pay, err := q.h.svc.GetPayment(q.ctx, q.principal(), paymentID)
	if err != nil {
		return nil, err
	}
	a := money.New(minor, pay.Amount.Currency)
	return &a, nil
}

func httpStatusOf(pe *payd.Error) int { return httpapi.StatusOf(pe.Code) }
