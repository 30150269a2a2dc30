package dashboard

import (
	"net/http"
	"time"

	"github.com/paydhq/payd"
)

type disputesView struct {
	Rows     []*payd.Dispute
	Status   string
	Statuses []choice
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
	v := disputesView{Status: vals.Get("status")}
	var err error
	if v.Statuses, err = choices(q.shown(), payd.DisputeStatusAll(), v.Status, true); err != nil {
		q.fail(err)
		return
	}
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
	// Badge, when set, is the state the page names instead of the
	// status's label (disputeBadge); Steps are the dispute's steps.
	Badge string
	Steps []disputeStep
	// Reason is what the reason code means; Scheme the card scheme whose
	// code it is, empty for a code the table does not hold.
	Reason, Scheme string
	// SubmittedAt is when the evidence went to the bank: from then the
	// deadline no longer runs.
	SubmittedAt *time.Time
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
	now := h.now()
	left := d.EvidenceDeadlineAt.Sub(now)
	v := disputePage{D: d.View(), Comment: d.Comment, Passed: left <= 0, Key: newKey(), Err: fe,
		MaxMiB: payd.MaxEvidenceBytes >> 20, Badge: disputeBadge(d), Steps: disputeSteps(d, now), SubmittedAt: d.SubmittedAt}
	// The countdown runs only while evidence may still be sent: a
	// submitted or decided dispute's deadline is over for good.
	if !v.Passed && d.Status.AcceptsEvidence() {
		v.Left = timeLeft(q, left)
	}
	for i, st := range v.Steps {
		v.Steps[i].Title, v.Steps[i].Text = q.l.T(st.Title), q.l.T(st.Text, st.Args...)
	}
	if v.Badge != "" {
		v.Badge = q.l.T(v.Badge)
	}
	if d.ReasonCode != "" {
		rc, ok := reasonCodes[d.ReasonCode]
		v.Reason, v.Scheme = rc.Meaning, rc.Scheme
		if !ok {
			v.Reason = reasonUnknown
		}
		v.Reason = q.l.T(v.Reason)
	}
	v.CanAnswer = !v.Passed && d.Status.AcceptsEvidence() && q.can(payd.AuditAttachEvidence.Permission()) && len(d.Evidence) < payd.MaxEvidenceFiles
	q.render(status, "dispute", "disputes", q.l.T("Dispute")+" "+d.ID, v)
}

// timeLeft says how long d is, in days and hours, or hours and minutes
// under a day, each number with its plural form in the page's language.
func timeLeft(q *req, d time.Duration) string {
	if d >= 24*time.Hour {
		return q.l.T("%s left", q.l.T("%d days", int(d/(24*time.Hour)))+" "+q.l.T("%d hours", int(d%(24*time.Hour)/time.Hour)))
	}
	return q.l.T("%s left", q.l.T("%d hours", int(d/time.Hour))+" "+q.l.T("%d minutes", int(d%time.Hour/time.Minute)))
}
