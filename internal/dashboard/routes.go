package dashboard

import (
	"net/http"
	"slices"

	"github.com/paydhq/payd"
)

// pages is every signed-in route: the permission each needs is in this one
// table, so a reader sees who may do what without opening the handlers.
func pages(h *Handler) []page {
	get, post := http.MethodGet, http.MethodPost
	own := []page{
		{get, "", payd.PermRead, h.home},
		{get, "payments", payd.PermRead, h.payments},
		{get, "payments.csv", payd.PermRead, h.paymentsCSV},
		{get, "payments/{id}", payd.PermRead, h.payment},
		{post, "payments/{id}/capture", payd.AuditCapturePayment.Permission(), h.capture},
		{post, "payments/{id}/cancel", payd.AuditCancelPayment.Permission(), h.cancel},
		{post, "payments/{id}/refunds/review", payd.AuditCreateRefund.Permission(), h.reviewRefund},
		{post, "payments/{id}/refunds", payd.AuditCreateRefund.Permission(), h.refund},
		{post, "events/{id}/resend", payd.AuditResendEvent.Permission(), h.resend},
	}
	return slices.Concat(own, moneyPages(h), developerPages(h), userPages(h))
}
