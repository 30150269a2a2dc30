package office

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/paydhq/payd"
)

// The payment lookup: a payment of any merchant by its id, with its
// provider attempts, its events and their deliveries, and an event's
// webhook delivery attempts; and, for whom the role allows, resending an
// event and opening a dispute the bank reported outside its
// notifications.

// paymentView is the lookup page.
type paymentView struct {
	// ID is the id looked up ("" before any); Pay is nil when none is
	// found.
	ID  string
	Pay map[string]any
	// Event is the event whose delivery attempts are shown, Deliveries
	// its attempts.
	Event      string
	Deliveries []map[string]any
	// Events are the payment's events with their delivery summaries.
	Events []map[string]any
	// Resend offers each event's resend: the role may.
	Resend bool
	// OpenDispute offers the form: the role may, and disputes are served.
	OpenDispute bool
	Kinds       []payd.DisputeKind
}

// payment looks up ?id= (and ?event=, an event's delivery attempts).
func (h *Handler) payment(q *req) {
	in := q.r.URL.Query()
	v := paymentView{ID: strings.TrimSpace(in.Get("id")), Event: strings.TrimSpace(in.Get("event")),
		Kinds: []payd.DisputeKind{payd.DisputeChargeback, payd.DisputeRetrieval, payd.DisputeComplaint}}
	title := q.l.T("Payment lookup")
	if v.ID == "" {
		q.render(http.StatusOK, "payment", "payments", title, v)
		return
	}
	a := q.call(http.MethodGet, "/admin/v1/payments/"+url.PathEscape(v.ID), nil)
	switch {
	case a.status == http.StatusNotFound:
		q.render(http.StatusNotFound, "payment", "payments", title, v)
		return
	case !a.ok():
		q.refused(a)
		return
	case a.decode(&v.Pay) != nil:
		q.problem(http.StatusBadGateway, q.l.T("Something went wrong; try again."))
		return
	}
	var events struct {
		Items []map[string]any `json:"items"`
	}
	if !q.get("/admin/v1/payments/"+url.PathEscape(v.ID)+"/events", &events) {
		return
	}
	v.Events = events.Items
	if v.Event != "" {
		// An event the API does not know has no attempts: the payment
		// stays on the page.
		var list struct {
			Items []map[string]any `json:"items"`
		}
		ev := q.call(http.MethodGet, "/admin/v1/events/"+url.PathEscape(v.Event)+"/attempts", nil)
		switch {
		case ev.ok() && ev.decode(&list) == nil:
			v.Deliveries = list.Items
		case ev.status != http.StatusNotFound:
			q.refused(ev)
			return
		}
	}
	v.Resend = q.can(payd.StaffResendEvents)
	// Disputes are served from stage M2: the form is offered only where
	// the dispute routes answer.
	v.OpenDispute = q.can(payd.StaffOpenDisputes) &&
		q.call(http.MethodGet, "/admin/v1/disputes?limit=1", nil).status != http.StatusNotImplemented
	q.render(http.StatusOK, "payment", "payments", title, v)
}

// resendEvent delivers one of the payment's events again to its
// merchant's endpoints and comes back to the payment with the event's
// attempts shown.
func (h *Handler) resendEvent(q *req) {
	pay, ev := url.PathEscape(q.r.PathValue("id")), url.PathEscape(q.r.PathValue("event"))
	q.change(http.MethodPost, "/admin/v1/events/"+ev+"/resend", nil, Prefix+"payments?id="+pay+"&event="+ev)
}

// deadlineLayout is how a datetime-local input writes a moment; the back
// office reads it in UTC, as it shows every moment.
const deadlineLayout = "2006-01-02T15:04"

// openDispute opens a dispute the bank reported on the payment: every
// field may be left empty (a chargeback of the whole refundable amount,
// 7 days for evidence).
func (h *Handler) openDispute(q *req) {
	f := q.r.PostForm
	body := map[string]any{}
	for _, k := range []string{"kind", "reason_code", "provider_dispute_id"} {
		if v := strings.TrimSpace(f.Get(k)); v != "" {
			body[k] = v
		}
	}
	if v := strings.TrimSpace(f.Get("amount")); v != "" {
		body["amount"] = map[string]string{"value": v, "currency": f.Get("currency")}
	}
	if v := strings.TrimSpace(f.Get("evidence_deadline_at")); v != "" {
		t, err := time.Parse(deadlineLayout, v)
		if err != nil {
			q.problem(http.StatusBadRequest, q.l.T("The form has a value that is not accepted."))
			return
		}
		body["evidence_deadline_at"] = t.UTC().Format(time.RFC3339)
	}
	a := q.call(http.MethodPost, "/admin/v1/payments/"+url.PathEscape(q.r.PathValue("id"))+"/disputes", body)
	var d struct {
		ID string `json:"id"`
	}
	if !a.ok() || a.decode(&d) != nil {
		q.refused(a)
		return
	}
	q.redirect(Prefix+"disputes/"+url.PathEscape(d.ID), "done")
}
