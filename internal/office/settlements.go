package office

import (
	"net/http"
	"net/url"
	"slices"
)

// settlementStates are the register queue's tabs, in the order a register
// moves through them.
var settlementStates = []string{"draft", "approved", "sent", "paid", "failed"}

// settlements is the queue of settlement registers across merchants, by
// state (?status=, drafts first), live or test (?test=true).
func (h *Handler) settlements(q *req) {
	in := q.r.URL.Query()
	status := in.Get("status")
	if !slices.Contains(settlementStates, status) {
		status = settlementStates[0]
	}
	out := url.Values{"status": {status}, "limit": {"50"}}
	if in.Get("test") == "true" {
		out.Set("test", "true")
	}
	for _, k := range []string{"merchant_id", "cursor"} {
		if v := in.Get(k); v != "" {
			out.Set(k, v)
		}
	}
	list, next, ok := q.pageOf("/admin/v1/settlements", "settlements", out, nil)
	if !ok {
		return
	}
	q.render(http.StatusOK, "settlements", "settlements", q.l.T("Registers"), struct {
		Status, Next string
		Test         bool
		States       []string
		Items        []map[string]any
	}{status, next, in.Get("test") == "true", settlementStates, list.Items})
}

// advanceSettlement moves a register on: approve and pay are proposed for
// a second person's confirmation (the API answers 202), send and fail
// are done at once.
func (h *Handler) advanceSettlement(q *req) {
	action := q.r.PathValue("action")
	back := Prefix + "settlements?status=" + url.QueryEscape(q.r.PostForm.Get("from"))
	q.change(http.MethodPost, "/admin/v1/settlements/"+url.PathEscape(q.r.PathValue("id"))+"/"+url.PathEscape(action), nil, back)
}
