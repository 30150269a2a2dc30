package office

import (
	"net/http"
	"net/url"
)

// auditFilters are the operator audit log's filters, named as the API
// names them.
var auditFilters = []string{"staff_id", "action", "object_id", "merchant_id"}

// auditQuery is the API's query of the page's filters (and cursor).
func auditQuery(in url.Values) url.Values {
	out := url.Values{}
	for _, k := range append(auditFilters, "cursor") {
		if v := in.Get(k); v != "" {
			out.Set(k, v)
		}
	}
	return out
}

// audit pages the operator audit log, newest first, by its filters.
func (h *Handler) audit(q *req) {
	in := q.r.URL.Query()
	out := auditQuery(in)
	out.Set("limit", "50")
	list, next, ok := q.pageOf("/admin/v1/audit", "audit", out, nil)
	if !ok {
		return
	}
	filters := auditQuery(in)
	filters.Del("cursor")
	q.render(http.StatusOK, "audit", "audit", q.l.T("Audit log"), struct {
		Items  []map[string]any
		Filter map[string]string
		Next   string
		Export string
	}{list.Items, map[string]string{"staff_id": in.Get("staff_id"), "action": in.Get("action"), "object_id": in.Get("object_id"),
		"merchant_id": in.Get("merchant_id")}, next, Prefix + "audit.csv?" + filters.Encode()})
}

// auditCSV hands the API's export of the filtered log to the browser as
// a download.
func (h *Handler) auditCSV(q *req) {
	out := auditQuery(q.r.URL.Query())
	out.Del("cursor")
	q.download("/admin/v1/audit.csv?" + out.Encode())
}
