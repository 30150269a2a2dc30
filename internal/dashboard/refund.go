package dashboard

import (
	"net/http"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// refundReview is the refund's confirmation step: what will be refunded
// and what stays refundable after it.
type refundReview struct {
	Pay *payd.PaymentJSON
	// Amount is the refund as the page writes it; Value is the same in
	// the contract's form, which the confirmation posts and which every
	// language reads.
	Amount, Value string
	// Whole is set when the amount was left empty: the step says it is
	// the whole refundable amount.
	Whole  bool
	Left   string
	Reason string
	Key    string
}

// reviewRefund is the refund form's first step. It checks the amount
// against the payment as it stands, by the domain's rules
// (Payment.CheckRefund), and asks to confirm, naming the amount (an
// empty one is the whole refundable amount, said so) and what stays
// refundable; it changes nothing. A refusal shows the form again with
// what was typed. The confirmation carries the form's idempotency key,
// so a double submit of it is one refund.
func (h *Handler) reviewRefund(q *req) {
	idem, ok := postIdempotency(q)
	if !ok {
		return
	}
	id := q.r.PathValue("id")
	pay, err := h.svc.GetPayment(q.ctx, q.principal(), id)
	if err != nil {
		q.fail(err)
		return
	}
	amount, err := formMoney(q, "amount", "amount.value", pay.Amount.Currency)
	whole := amount == nil && err == nil
	if whole {
		all := money.New(max(0, pay.RefundableAmount()), pay.Amount.Currency)
		amount = &all
	}
	if err == nil {
		err = pay.CheckRefund(*amount)
	}
	if err != nil {
		if pe := refusal(err); pe != nil {
			h.showPayment(q, httpStatusOf(pe), refusedIn(q.l, "refund", pe))
			return
		}
		q.fail(err)
		return
	}
	c := string(pay.Amount.Currency)
	v := refundReview{Pay: pay.View(""), Amount: q.l.Amount(amount.Minor, c), Value: money.FormatValue(amount.Minor),
		Whole: whole, Left: q.l.Amount(pay.RefundableAmount()-amount.Minor, c),
		Reason: q.r.PostForm.Get("reason"), Key: idem.Key}
	q.render(http.StatusOK, "refund_confirm", "payments", q.l.T("Confirm the refund"), v)
}

// refund makes the refund its confirmation step asked about. The amount
// is the one the step named, never empty: a post without one is refused
// rather than read as everything.
func (h *Handler) refund(q *req) {
	id := q.r.PathValue("id")
	h.paymentForm(q, "refund", "refunded", func(idem payd.Idempotency) (*payd.Response, error) {
		amount, err := formAmount(q, id, "amount")
		if err != nil {
			return nil, err
		}
		if amount == nil {
			return nil, payd.Invalid("amount.value", "%s", said(q.l.T("Enter the amount to refund.")))
		}
		return h.svc.CreateRefund(q.ctx, q.principal(), idem, payd.RefundCreate{PaymentID: id, Amount: *amount,
			Reason: q.r.PostForm.Get("reason")})
	})
}
