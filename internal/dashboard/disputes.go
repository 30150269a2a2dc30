package dashboard

import (
	"net/http"
	"strconv"
	"time"

	"github.com/paydhq/payd"
)

type disputesView struct {
	Rows     []*payd.Dispute
	Status   string
	Statuses []payd.DisputeStatus
	Problem  string
	Pages    pager
}

// disputesStage answers 404 before stage M2, where disputes do not exist
// in the API either.
func (h *Handler) disputesStage(q *req) bool {
	if h.svc.Stage() < payd.StageM2 {
		q.problem(http.StatusNotFound, q.l.T("This page does not exist."))
		return false
	}
	return true
}

// disputes lists the shop's disputes, newest first, 50 a page.
func (h *Handler) disputes(q *req) {
	if !h.disputesStage(q) {
		return
	}
	vals := q.r.URL.Query()
	v := disputesView{Status: vals.Get("status"), Statuses: payd.DisputeStatusAll()}
	status := http.StatusOK
	lp, print, keep, err := listQuery(vals, "status")
	if err == nil && v.Status != "" && !payd.DisputeStatus(v.Status).Valid() {
		err = payd.Invalid("status", "unknown status")
	}
	if err == nil {
		var page payd.Page[*payd.Dispute]
		page, err = h.svc.ListDisputes(q.ctx, q.principal(), &payd.DisputeListParams{ListParams: lp, Status: payd.DisputeStatus(v.Status)})
		v.Rows, v.Pages = page.Items, pagesOf(vals, keep, page.Next, print)
	}
	if err != nil {
		var ok bool
		if v.Problem, ok = listProblem(q, err); !ok {
			return
		}
		status = http.StatusBadRequest
	}
	q.render(status, "disputes", "disputes", q.l.T("Disputes"), v)
}

type disputePage struct {
	D *payd.DisputeJSON
	// Comment is the merchant's note of its last submission.
	Comment string
	// Left is how long remains until the evidence deadline, in words;
	// Passed when it is over.
	Left   string
	Passed bool
	// CanAnswer shows the evidence form: the dispute takes evidence, the
	// deadline has not passed, the role may answer.
	CanAnswer bool
	Key       string
	MaxMiB    int
	Err       formError
}

// dispute shows a dispute, its deadline and evidence, and the form that
// answers it.
func (h *Handler) dispute(q *req) { h.showDispute(q, http.StatusOK, formError{}) }

func (h *Handler) showDispute(q *req, status int, fe formError) {
	if !h.disputesStage(q) {
		return
	}
	d, err := h.svc.GetDispute(q.ctx, q.principal(), q.r.PathValue("id"))
	if err != nil {
		q.failObject(q.r.PathValue("id"), err)
		return
	}
	left := d.EvidenceDeadlineAt.Sub(h.now())
	v := disputePage{D: d.View(), Comment: d.Comment, Passed: left <= 0, Key: newKey(), Err: fe,
		MaxMiB: payd.MaxEvidenceBytes >> 20}
	if !v.Passed {
		v.Left = timeLeft(q, left)
	}
	v.CanAnswer = !v.Passed && d.Status.AcceptsEvidence() && q.can(payd.AuditAttachEvidence.Permission()) && len(d.Evidence) < payd.MaxEvidenceFiles
	q.render(status, "dispute", "disputes", q.l.T("Dispute")+" "+d.ID, v)
}

// timeLeft says how long d is, in days and hours, or hours and minutes
// under a day.
func timeLeft(q *req, d time.Duration) string {
	if d >= 24*time.Hour {
		return q.l.T("%s d %s h left", strconv.Itoa(int(d/(24*time.Hour))), strconv.Itoa(int(d%(24*time.Hour)/time.Hour)))
	}
	return q.l.T("%s h %s min left", strconv.Itoa(int(d/time.Hour)), strconv.Itoa(int(d%time.Hour/time.Minute)))
}
