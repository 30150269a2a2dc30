package office

import (
	"net/http"
	"net/url"
)

// home is the approvals queue: the four-eyes proposals that wait for a
// second person, with who proposed what and until when.
func (h *Handler) home(q *req) {
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if !q.get("/admin/v1/proposals?state=pending", &list) {
		return
	}
	q.render(http.StatusOK, "home", "home", q.l.T("Approvals"), struct {
		Proposals []map[string]any
		Me        string
	}{list.Items, q.staff.ID})
}

// decide confirms or rejects a proposal. Confirming serves the proposed
// request again as the second person: the API checks that it is another
// member whose role allows the change.
func (h *Handler) decide(q *req) {
	decision := q.r.PathValue("decision")
	if decision != "confirm" && decision != "reject" {
		q.problem(http.StatusNotFound, q.l.T("There is no such object."))
		return
	}
	notice := "done"
	if decision == "reject" {
		notice = "rejected"
	}
	a := q.call(http.MethodPost, "/admin/v1/proposals/"+url.PathEscape(q.r.PathValue("id"))+"/"+decision, nil)
	if !a.ok() {
		q.refused(a)
		return
	}
	q.redirect(Prefix, notice)
}
