package dashboard

import (
	"net/http"
	"slices"
	"strings"

	"github.com/paydhq/payd"
)

type webhooksView struct {
	Endpoints []*payd.WebhookEndpoint
	Types     []payd.EventType
	// Form holds what was typed when a create was refused, so the user
	// corrects it instead of typing it again.
	URL, Description string
	Checked          map[payd.EventType]bool
	Key              string
	Err              formError
}

// webhooks lists the endpoints of the shop's mode, with a form to add one.
func (h *Handler) webhooks(q *req) { h.showWebhooks(q, http.StatusOK, webhooksView{}) }

func (h *Handler) showWebhooks(q *req, status int, v webhooksView) {
	list, err := h.svc.ListWebhookEndpoints(q.ctx, q.principal())
	if err != nil {
		q.fail(err)
		return
	}
	v.Endpoints, v.Types, v.Key = list, payd.EventTypeAll(), newKey()
	if v.Checked == nil {
		v.Checked = map[payd.EventType]bool{}
	}
	q.render(status, "webhooks", "developers", q.l.T("Webhook endpoints"), v)
}

// formEvents reads the event types of the form's checkboxes, in the
// catalogue's order.
func formEvents(q *req) []payd.EventType {
	var out []payd.EventType
	for _, t := range payd.EventTypeAll() {
		if slices.Contains(q.r.PostForm["events"], string(t)) {
			out = append(out, t)
		}
	}
	// A value the catalogue does not know is passed on, so the service
	// refuses it in its own words.
	for _, v := range q.r.PostForm["events"] {
		if !payd.EventType(v).Valid() {
			out = append(out, payd.EventType(v))
		}
	}
	return out
}

// signingSecretView is the answer that shows an endpoint's signing secret, the
// one time it is shown.
type signingSecretView struct {
	ID, URL, Secret string
	Rotated         bool
}

// createWebhook registers an endpoint with the form's idempotency key and
// shows its signing secret once.
func (h *Handler) createWebhook(q *req) {
	idem, ok := postIdempotency(q)
	if !ok {
		return
	}
	in := payd.WebhookEndpointCreate{URL: strings.TrimSpace(q.r.PostForm.Get("url")), Events: formEvents(q),
		Description: strings.TrimSpace(q.r.PostForm.Get("description"))}
	act(q, func() (*payd.Response, error) { return h.svc.CreateWebhookEndpoint(q.ctx, q.principal(), idem, in) },
		func(resp *payd.Response) { h.showSigningSecret(q, resp, false) },
		func(pe *payd.Error) {
			v := webhooksView{URL: in.URL, Description: in.Description, Checked: map[payd.EventType]bool{}, Err: refusedIn(q.l, "create", pe)}
			for _, t := range in.Events {
				v.Checked[t] = true
			}
			h.showWebhooks(q, httpStatusOf(pe), v)
		})
}

// showSigningSecret answers a create or a rotation with the endpoint's
// signing secret, the one page that shows it.
func (h *Handler) showSigningSecret(q *req, resp *payd.Response, rotated bool) {
	e, err := payd.Answer[payd.WebhookEndpointJSON](resp)
	if err != nil {
		q.fail(err)
		return
	}
	q.render(http.StatusOK, "webhook_secret", "developers", q.l.T("Signing secret"),
		signingSecretView{ID: e.ID, URL: e.URL, Secret: e.Secret, Rotated: rotated})
}

type webhookView struct {
	E        *payd.WebhookEndpoint
	Types    []payd.EventType
	Checked  map[payd.EventType]bool
	Attempts []*payd.DeliveryAttempt
	// Keys of the page's three forms.
	SaveKey, RotateKey, TestKey string
	Err                         formError
	// Overlap is set while the previous signing secret still signs
	// beside the new one (SecretOverlap after a rotation).
	Overlap bool
	// Disabled and Failing are the endpoint's status, for the form.
	Disabled, Failing bool
}

// endpointRecentEvents is how many of the shop's newest events the endpoint page
// looks through for its attempts: the attempt log is kept per event.
const endpointRecentEvents = 20

// webhook shows an endpoint: its settings to edit, its secret's rotation,
// a test event, and its recent attempts.
func (h *Handler) webhook(q *req) { h.showWebhook(q, http.StatusOK, formError{}) }

func (h *Handler) showWebhook(q *req, status int, fe formError) {
	e, err := h.svc.GetWebhookEndpoint(q.ctx, q.principal(), q.r.PathValue("id"))
	if err != nil {
		q.fail(err)
		return
	}
	v := webhookView{E: e, Types: payd.EventTypeAll(), Checked: map[payd.EventType]bool{}, Err: fe,
		SaveKey: newKey(), RotateKey: newKey(), TestKey: newKey()}
	for _, t := range e.Events {
		v.Checked[t] = true
	}
	v.Overlap = e.PrevSecretUntil != nil && h.now().Before(*e.PrevSecretUntil)
	v.Disabled, v.Failing = e.Status == payd.WebhookDisabled, e.Status == payd.WebhookFailing
	if v.Attempts, err = h.endpointAttempts(q, e); err != nil {
		q.fail(err)
		return
	}
	q.render(status, "webhook", "developers", q.l.T("Webhook endpoint")+" "+e.ID, v)
}

// endpointAttempts are the endpoint's attempts among the shop's newest
// events, newest first: the attempt log is kept per event, so this is
// one query for the events and one per event, a bounded number.
func (h *Handler) endpointAttempts(q *req, e *payd.WebhookEndpoint) ([]*payd.DeliveryAttempt, error) {
	page, err := h.svc.ListEvents(q.ctx, q.principal(), &payd.EventListParams{ListParams: payd.ListParams{Limit: endpointRecentEvents}})
	if err != nil {
		return nil, err
	}
	var out []*payd.DeliveryAttempt
	for _, ev := range page.Items {
		if ev.Delivery.Attempts == 0 {
			continue
		}
		list, err := h.svc.EventAttempts(q.ctx, ev.ID)
		if err != nil {
			return nil, err
		}
		for _, a := range list {
			if a.EndpointID == e.ID {
				out = append(out, a)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b *payd.DeliveryAttempt) int { return b.At.Compare(a.At) })
	return out, nil
}

// updateWebhook saves the endpoint's URL, events and whether it is on.
func (h *Handler) updateWebhook(q *req) {
	h.webhookAct(q, "save", func(idem payd.Idempotency, id string) (*payd.Response, error) {
		url := strings.TrimSpace(q.r.PostForm.Get("url"))
		status := payd.WebhookDisabled
		if q.r.PostForm.Get("enabled") == "on" {
			status = payd.WebhookActive
		}
		// Saved as on, a failing endpoint is revived, as the API's
		// `status: active` revives it (the page says so beside the box).
		in := payd.WebhookEndpointUpdate{URL: &url, Events: formEvents(q), Status: &status}
		if in.Events == nil {
			in.Events = []payd.EventType{} // none ticked: refused as the API refuses an empty list
		}
		return h.svc.UpdateWebhookEndpoint(q.ctx, q.principal(), idem, id, in)
	}, "webhook_saved")
}

// rotateWebhookSecret gives the endpoint a new signing secret, shown once;
// the previous one keeps signing, beside it, for the contract's 24 hours.
// The form carries an idempotency key, so a second submit of it (a double
// click, a reload, the browser's back button) rotates nothing; the API
// would replay the answer with the secret, as the contract asks, but this
// page says the secret was already rotated and shows it no second time:
// a secret a merchant did not copy is rotated again, not recovered.
func (h *Handler) rotateWebhookSecret(q *req) {
	idem, ok := postIdempotency(q)
	if !ok {
		return
	}
	id := q.r.PathValue("id")
	act(q, func() (*payd.Response, error) {
		return h.svc.UpdateWebhookEndpoint(q.ctx, q.principal(), idem, id, payd.WebhookEndpointUpdate{RotateSecret: true})
	}, func(resp *payd.Response) {
		if resp.Replayed {
			q.redirect("developers/webhooks/"+id, "webhook_already_rotated")
			return
		}
		h.showSigningSecret(q, resp, true)
	}, func(pe *payd.Error) { h.showWebhook(q, httpStatusOf(pe), refusedIn(q.l, "rotate", pe)) })
}

// testWebhook sends the endpoint a test event (payd.Service.SendTestEvent).
func (h *Handler) testWebhook(q *req) {
	h.webhookAct(q, "test", func(idem payd.Idempotency, id string) (*payd.Response, error) {
		return h.svc.SendTestEvent(q.ctx, q.principal(), idem, id)
	}, "webhook_tested")
}

// webhookAct runs one of the endpoint page's forms and goes back to the
// page: with a notice, or with the refusal next to its form. An endpoint
// not found has no page to go back to: that refusal is a page of its own.
func (h *Handler) webhookAct(q *req, form string, run func(payd.Idempotency, string) (*payd.Response, error), done string) {
	idem, ok := postIdempotency(q)
	if !ok {
		return
	}
	id := q.r.PathValue("id")
	act(q, func() (*payd.Response, error) { return run(idem, id) },
		func(*payd.Response) { q.redirect("developers/webhooks/"+id, done) },
		func(pe *payd.Error) {
			if pe.Code == payd.CodeNotFound {
				q.showRefusal(pe)
				return
			}
			h.showWebhook(q, httpStatusOf(pe), refusedIn(q.l, form, pe))
		})
}
