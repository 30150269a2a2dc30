package dashboard

import (
	"net/http"

	"github.com/paydhq/payd"
)

// moneyPages are the routes of refunds, disputes, payment links, payouts.
// Disputes exist from stage M2, links and payouts from M5: their pages
// answer 404 before, as the API's routes do.
func moneyPages(h *Handler) []page {
	get, post := http.MethodGet, http.MethodPost
	return []page{
		{get, "refunds", payd.PermRead, h.refunds},
		{get, "disputes", payd.PermRead, h.disputes},
		{get, "disputes/{id}", payd.PermRead, h.dispute},
		{post, "disputes/{id}/evidence", payd.AuditAttachEvidence.Permission(), h.evidence},
		{get, "links", payd.PermRead, h.links},
		{post, "links", payd.AuditCreatePaymentLink.Permission(), h.createLink},
		{get, "links/{id}", payd.PermRead, h.link},
		{post, "links/{id}/deactivate", payd.AuditDeactivateLink.Permission(), h.deactivateLink},
		{get, "payouts", payd.PermRead, h.payouts},
		{post, "payouts", payd.AuditCreatePayout.Permission(), h.createPayout},
	}
}

// moneyNotices are the words shown after those pages' posts, by the code
// their redirects carry.
var moneyNotices = map[string]string{
	"evidence_attached": "The file was uploaded and attached to the dispute.",
	"link_created":      "The payment link was created.",
	"link_deactivated":  "The payment link was deactivated.",
	"payout_created":    "The payout was created.",
}

// moneyLabels are the words for the enums of these pages (label.go).
var moneyLabels = map[string]map[string]string{
	"dispute": {
		"opened": "Opened", "evidence_required": "Evidence required", "submitted": "Submitted",
		"won": "Won", "lost": "Lost", "expired": "Expired",
	},
	"dispute_kind": {"chargeback": "Chargeback", "retrieval": "Retrieval request", "complaint": "Complaint"},
	"link":         {"active": "Active", "paid": "Paid", "expired": "Expired", "deactivated": "Deactivated"},
	"payout":       {"pending": "Pending", "processing": "Processing", "succeeded": "Succeeded", "canceled": "Canceled"},
	"destination":  {"card": "Card", "sbp": "SBP (Faster Payments)", "bank_account": "Bank account"},
}
