package dashboard

import (
	"net/http"
	"net/url"

	"github.com/paydhq/payd"
)

// formError is a refusal of one of the page's forms, shown next to the
// field the rule names.
type formError struct {
	Form, Field, Message string
}

type paymentPage struct {
	Pay                              *payd.PaymentJSON
	Story                            *payd.PaymentStory
	Method                           string
	CanCapture, CanCancel, CanRefund bool
	// Keys are the forms' idempotency keys: a double submit of one form is
	// one operation.
	CaptureKey, CancelKey, RefundKey, ResendKey string
	Err                                         formError
	Refundable                                  string
	// Typed is what the user typed into the refused form (Err.Form),
	// shown again in it.
	Typed url.Values
}

// TypedIn is what the user typed into field of form when form was
// refused, else "".
func (v paymentPage) TypedIn(form, field string) string {
	if v.Err.Form != form {
		return ""
	}
	return v.Typed.Get(field)
}

// payment shows a payment's amounts, method, metadata and its timeline.
func (h *Handler) payment(q *req) { h.showPayment(q, http.StatusOK, formError{}) }

func (h *Handler) showPayment(q *req, status int, fe formError) {
	st, err := h.svc.PaymentStory(q.ctx, q.principal(), q.r.PathValue("id"))
	if err != nil {
		q.failObject(q.r.PathValue("id"), err)
		return
	}
	pay := st.Payment
	v := paymentPage{Pay: pay.View(""), Story: st, Err: fe, Typed: q.r.PostForm,
		CaptureKey: newKey(), CancelKey: newKey(), RefundKey: newKey(), ResendKey: newKey()}
	if m := pay.PaymentMethod; m != nil {
		if v.Method, err = maskedMethod(q, m); err != nil {
			q.fail(err)
			return
		}
	}
	v.CanCapture = pay.Status == payd.PaymentWaitingForCapture && q.can(payd.AuditCapturePayment.Permission())
	v.CanCancel = (pay.Status == payd.PaymentWaitingForCapture || pay.Status == payd.PaymentPending) && q.can(payd.AuditCancelPayment.Permission())
	v.CanRefund = pay.Status == payd.PaymentSucceeded && pay.RefundableAmount() > 0 && q.can(payd.AuditCreateRefund.Permission())
	v.Refundable = q.l.Amount(max(0, pay.RefundableAmount()), string(pay.Amount.Currency))
	q.render(status, "payment", "payments", q.l.T("Payment")+" "+pay.ID, v)
}

// maskedMethod names the method and, for a card, its scheme and last four
// digits: a full number is never stored, let alone shown.
func maskedMethod(q *req, m *payd.PaymentMethodData) (string, error) {
	s, err := label(q.l, payd.MethodType(m.Type))
	if err != nil {
		return "", err
	}
	if c := m.Card; c != nil && c.Last4 != "" {
		s += " · " + c.Brand + " ···· " + c.Last4
	}
	if b := m.SBP; b != nil && b.BankName != "" {
		s += " · " + b.BankName
	}
	return s, nil
}

// paymentForm runs one of the page's forms and goes back to the payment:
// on success with a notice, on a refusal with the rule's words next to
// its field and nothing changed.
func (h *Handler) paymentForm(q *req, form, done string, run func(payd.Idempotency) (*payd.Response, error)) {
	idem, ok := postIdempotency(q)
	if !ok {
		return
	}
	act(q, func() (*payd.Response, error) { return run(idem) },
		func(*payd.Response) { q.redirect("payments/"+q.r.PathValue("id"), done) },
		func(pe *payd.Error) { h.showPayment(q, httpStatusOf(pe), refusedIn(q.l, form, pe)) })
}

func (h *Handler) capture(q *req) {
	id := q.r.PathValue("id")
	h.paymentForm(q, "capture", "captured", func(idem payd.Idempotency) (*payd.Response, error) {
		amount, err := formAmount(q, id, "amount")
		if err != nil {
			return nil, err
		}
		return h.svc.CapturePayment(q.ctx, q.principal(), idem, id, amount)
	})
}

func (h *Handler) cancel(q *req) {
	id := q.r.PathValue("id")
	h.paymentForm(q, "cancel", "canceled", func(idem payd.Idempotency) (*payd.Response, error) {
		return h.svc.CancelPayment(q.ctx, q.principal(), idem, id)
	})
}

// resend delivers an event again; the form names the payment whose page
// it came from, to go back there. A refusal is shown on a page of its
// own: the form is on more than one page.
func (h *Handler) resend(q *req) {
	back := q.r.PostForm.Get("payment")
	if !payd.ValidID(payd.PrefixPayment, back) {
		back = ""
	}
	idem := formIdempotency(q.r)
	act(q, func() (*payd.Response, error) {
		return h.svc.ResendEvent(q.ctx, q.principal(), idem, q.r.PathValue("id"))
	}, func(*payd.Response) {
		if back == "" {
			q.redirect("developers/events", "resent")
			return
		}
		q.redirect("payments/"+back, "resent")
	}, nil)
}

// AttemptsOf are the attempts of one delivery of an event, oldest first.
func (v paymentPage) AttemptsOf(eventID, deliveryID string) []*payd.DeliveryAttempt {
	var out []*payd.DeliveryAttempt
	for _, e := range v.Story.Events {
		if e.Event.ID != eventID {
			continue
		}
		for _, a := range e.Attempts {
			if a.DeliveryID == deliveryID {
				out = append(out, a)
			}
		}
	}
	return out
}
