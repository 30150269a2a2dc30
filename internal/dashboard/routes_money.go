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
		{get, "refunds/{id}", payd.PermRead, h.refundPage},
		{get, "disputes", payd.PermRead, h.disputes},
		{get, "disputes/{id}", payd.PermRead, h.dispute},
		{get, "disputes/{id}/evidence/{file}", payd.PermRead, h.evidenceFile},
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

// moneyLabels are the words of the kinds of these pages (label.go).
var moneyLabels = []labelKind{
	kindLabels(payd.DisputeStatusAll, map[payd.DisputeStatus]string{
		payd.DisputeOpened: "Opened", payd.DisputeEvidenceRequired: "Evidence required", payd.DisputeSubmitted: "Submitted",
		payd.DisputeWon: "Won", payd.DisputeLost: "Lost", payd.DisputeExpired: "Expired",
	}),
	kindLabels(payd.DisputeKindAll, map[payd.DisputeKind]string{
		payd.DisputeChargeback: "Chargeback", payd.DisputeRetrieval: "Retrieval request", payd.DisputeComplaint: "Complaint",
	}),
	kindLabels(payd.LinkStatusAll, map[payd.LinkStatus]string{
		payd.LinkActive: "Active", payd.LinkPaid: "Paid", payd.LinkExpired: "Expired", payd.LinkDeactivated: "Deactivated",
	}),
	kindLabels(payd.PayoutStatusAll, map[payd.PayoutStatus]string{
		payd.PayoutPending: "Pending", payd.PayoutProcessing: "Processing", payd.PayoutSucceeded: "Succeeded",
		payd.PayoutCanceled: "Canceled",
	}),
	kindLabels(payd.DestinationTypeAll, map[payd.DestinationType]string{
		payd.DestinationCard: "Card", payd.DestinationSBP: "SBP (Faster Payments)", payd.DestinationBankAccount: "Bank account",
	}),
}
