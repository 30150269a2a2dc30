package office

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
)

// The disputes across merchants: the queue by evidence deadline, each
// dispute with its evidence, and the decisions of the disputes team.
// Disputes are served from stage M2; below it the API answers 501 and the
// pages say so.

// disputeStatuses are the queue's tabs; none chosen is the API's default,
// the disputes awaiting an answer.
var disputeStatuses = []string{"opened", "evidence_required", "submitted", "won", "lost", "expired"}

// disputeSteps are the decisions a dispute may take from its state, as
// the API's actions name them (payd's disputeNext).
var disputeSteps = map[string][]string{
	"opened":            {"request_evidence", "submit", "win", "lose", "expire"},
	"evidence_required": {"submit", "win", "lose", "expire"},
	"submitted":         {"win", "lose"},
}

// disputesOff renders the page that says disputes are not served, when
// the API answered so (501); it reports whether it did.
func (q *req) disputesOff(a *answer) bool {
	if a.status != http.StatusNotImplemented {
		return false
	}
	q.render(http.StatusOK, "disputes", "disputes", q.l.T("Disputes"), struct{ Off bool }{true})
	return true
}

// disputes is the queue: ?status= (the disputes awaiting an answer when
// absent), ?test=true, ?merchant_id=, paged by cursor.
func (h *Handler) disputes(q *req) {
	in := q.r.URL.Query()
	status := in.Get("status")
	if !slices.Contains(disputeStatuses, status) {
		status = ""
	}
	out := url.Values{"limit": {"50"}}
	if status != "" {
		out.Set("status", status)
	}
	if in.Get("test") == "true" {
		out.Set("test", "true")
	}
	for _, k := range []string{"merchant_id", "cursor"} {
		if v := in.Get(k); v != "" {
			out.Set(k, v)
		}
	}
	list, next, ok := q.pageOf("/admin/v1/disputes", "disputes", out, q.disputesOff)
	if !ok {
		return
	}
	q.render(http.StatusOK, "disputes", "disputes", q.l.T("Disputes"), struct {
		Off          bool
		Status, Next string
		Test         bool
		States       []string
		Items        []map[string]any
	}{false, status, next, in.Get("test") == "true", disputeStatuses, list.Items})
}

// dispute shows one dispute, its evidence, and the decisions its state
// allows.
func (h *Handler) dispute(q *req) {
	a := q.call(http.MethodGet, "/admin/v1/disputes/"+url.PathEscape(q.r.PathValue("id")), nil)
	if q.disputesOff(a) {
		return
	}
	if !a.ok() {
		q.refused(a)
		return
	}
	var d map[string]any
	if err := a.decode(&d); err != nil {
		q.problem(http.StatusBadGateway, q.l.T("Something went wrong; try again."))
		return
	}
	q.render(http.StatusOK, "dispute", "disputes", q.l.T("Dispute"), struct {
		D     map[string]any
		Steps []string
	}{d, disputeSteps[fmt.Sprint(d["status"])]})
}

// disputeEvidence hands an evidence file to the browser as it was
// uploaded.
func (h *Handler) disputeEvidence(q *req) {
	q.download("/admin/v1/disputes/" + url.PathEscape(q.r.PathValue("id")) + "/evidence/" + url.PathEscape(q.r.PathValue("file_id")))
}

// changeDispute takes a decision (request_evidence, submit, win, lose,
// expire) with the resolution written for the dispute's record.
func (h *Handler) changeDispute(q *req) {
	id := url.PathEscape(q.r.PathValue("id"))
	body := map[string]string{}
	if res := q.r.PostForm.Get("resolution"); res != "" {
		body["resolution"] = res
	}
	q.change(http.MethodPost, "/admin/v1/disputes/"+id+"/"+url.PathEscape(q.r.PathValue("action")), body, Prefix+"disputes/"+id)
}
