package dashboard

import (
	"html/template"
	"net/http"
	"strings"

	"github.com/paydhq/payd"
)

// eventLogFilters are the events log's filters; a cursor is bound to them.
var eventLogFilters = []string{"type", "object_id"}

type eventRow struct {
	// Event's body is shown indented for reading (rowWriter.prettyJSON);
	// what was delivered is the body as stored, byte for byte.
	*payd.Event
	// Payment is the payment the event is about, to link its page; ""
	// for an event of another object.
	Payment string
	// When and LastAttempt are the moments as the page shows them, and
	// Status the delivery summary's word.
	When, LastAttempt template.HTML
	Status            string
}

// eventCols are the events log's column names and the words every row
// repeats, translated once a page.
type eventCols struct {
	Created, Event, Type, Delivery, Body, Attempts, ShowBody, Resend string
}

type eventsView struct {
	Rows []eventRow
	Cols eventCols
	// RowsHTML are the rows' markup (eventRows).
	RowsHTML     rowsHTML
	Types        []choice
	Type, Object string
	Problem      string
	Pages        pager
	Key          string
}

// events is the events log: the API's keyset list of events, newest
// first, filtered by type or object, each with its body and its delivery
// summary.
func (h *Handler) events(q *req) {
	vals := q.r.URL.Query()
	v := eventsView{Type: vals.Get("type"), Object: strings.TrimSpace(vals.Get("object_id")), Key: newKey()}
	// Types are shown as they are: no label to fail.
	v.Types, _ = choices(q.shown(), payd.EventTypeAll(), v.Type, false)
	lp, print, keep, err := listQuery(vals, eventLogFilters...)
	params := &payd.EventListParams{ListParams: lp, ObjectID: v.Object}
	if err == nil && v.Type != "" {
		if !payd.EventType(v.Type).Valid() {
			err = payd.Invalid("type", "unknown event type %q", v.Type)
		}
		params.Type = payd.EventType(v.Type)
	}
	if err == nil && len(v.Object) > 40 {
		err = payd.Invalid("object_id", "object_id must be at most 40 characters")
	}
	if err != nil {
		if pe := refusal(err); pe != nil {
			v.Problem = say(q.l, pe)
			q.render(http.StatusBadRequest, "events", "developers", q.l.T("Events"), v)
			return
		}
		q.fail(err)
		return
	}
	page, err := h.svc.ListEvents(q.ctx, q.principal(), params)
	if err != nil {
		q.fail(err)
		return
	}
	l := q.shown()
	v.Cols = eventCols{Created: l.T("Created"), Event: l.T("Event"), Type: l.T("Type"), Delivery: l.T("Delivery"),
		Body: l.T("Body"), Attempts: l.T("attempts"), ShowBody: l.T("Show the body"), Resend: l.T("Resend")}
	word := pageWords(l)
	for _, e := range page.Items {
		row := eventRow{Event: e, When: moment(l, e.CreatedAt)}
		if at := e.Delivery.LastAttemptAt; at != nil {
			row.LastAttempt = moment(l, *at)
		}
		if row.Status, err = word(e.Delivery.Status); err != nil {
			q.fail(err)
			return
		}
		if strings.HasPrefix(e.ObjectID, payd.PrefixPayment) {
			row.Payment = e.ObjectID
		}
		v.Rows = append(v.Rows, row)
	}
	v.RowsHTML = eventRows(v.Rows, v.Cols, q.base(), q.h.csrf(q.sess), v.Key, q.can(payd.PermDevelopers))
	v.Pages = pagesOf(vals, keep, page.Next, print)
	q.render(http.StatusOK, "events", "developers", q.l.T("Events"), v)
}
