package office

import (
	"net/http"
	"net/url"
)

// operationsPages are the pages of the day's operations: disputes,
// payments, discrepancies, provider routes and the ledger check.
func operationsPages(h *Handler) []page {
	return []page{
		{method: get, path: "disputes", fn: h.disputes},
		{method: get, path: "disputes/{id}", fn: h.dispute},
		{method: get, path: "disputes/{id}/evidence/{file_id}", fn: h.disputeEvidence},
		{method: post, path: "disputes/{id}/{action}", fn: h.changeDispute},
		{method: get, path: "payments", fn: h.payment},
		{method: post, path: "payments/{id}/disputes", fn: h.openDispute},
		{method: post, path: "payments/{id}/events/{event}/resend", fn: h.resendEvent},
		{method: get, path: "discrepancies", fn: h.discrepancies},
		{method: get, path: "routes", fn: h.providerRoutes},
		{method: post, path: "routes", fn: h.putRoute},
		{method: post, path: "routes/delete", fn: h.deleteRoute},
		{method: get, path: "ledger", fn: h.ledger},
	}
}

// discrepancies lists the provider reports that could not be applied.
func (h *Handler) discrepancies(q *req) {
	out := url.Values{"limit": {"50"}}
	if c := q.r.URL.Query().Get("cursor"); c != "" {
		out.Set("cursor", c)
	}
	list, next, ok := q.pageOf("/admin/v1/discrepancies", "discrepancies", out, nil)
	if !ok {
		return
	}
	q.render(http.StatusOK, "discrepancies", "discrepancies", q.l.T("Discrepancies"), struct {
		Items []map[string]any
		Next  string
	}{list.Items, next})
}

// ledger is the ledger check: the money invariants hold, or the problems
// found.
func (h *Handler) ledger(q *req) {
	var check struct {
		OK       bool     `json:"ok"`
		Problems []string `json:"problems"`
	}
	if !q.get("/admin/v1/ledger/check", &check) {
		return
	}
	q.render(http.StatusOK, "ledger", "ledger", q.l.T("Ledger check"), check)
}

// download hands a file the API answered to the browser as it came, its
// type and name kept.
func (q *req) download(path string) {
	a := q.call(http.MethodGet, path, nil)
	if !a.ok() {
		q.refused(a)
		return
	}
	for _, k := range []string{"Content-Type", "Content-Disposition"} {
		q.w.Header().Set(k, a.header.Get(k))
	}
	q.w.WriteHeader(http.StatusOK)
	_, _ = q.w.Write(a.body)
}
