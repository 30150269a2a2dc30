package office

import "net/http"

const (
	get  = http.MethodGet
	post = http.MethodPost
)

// pages is the back office's one table of signed-in routes. A page holds
// no permission of its own: the operator API it calls checks the
// member's role on every read and change (operator's routeAccess).
func pages(h *Handler) []page {
	out := []page{
		{method: get, path: "second-factor", enroll: true, fn: h.secondFactor},
		{method: post, path: "second-factor", enroll: true, fn: h.beginSecondFactor},
		{method: post, path: "second-factor/confirm", enroll: true, fn: h.confirmSecondFactor},
		{method: get, path: "", fn: h.home},
		{method: post, path: "proposals/{id}/{decision}", fn: h.decide},
		{method: get, path: "settlements", fn: h.settlements},
		{method: post, path: "settlements/{id}/{action}", fn: h.advanceSettlement},
		{method: get, path: "staff", fn: h.staffList},
		{method: post, path: "staff", fn: h.createStaff},
		{method: post, path: "staff/{id}", fn: h.updateStaff},
		{method: post, path: "staff/{id}/setup-link", fn: h.staffSetupLink},
		{method: get, path: "audit", fn: h.audit},
		{method: get, path: "audit.csv", fn: h.auditCSV},
	}
	out = append(out, merchantPages(h)...)
	out = append(out, operationsPages(h)...)
	return out
}
