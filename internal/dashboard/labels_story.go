package dashboard

import (
	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

// storyLabels are the kinds of a payment's story: the event types of its
// timeline.
var storyLabels = []labelKind{
	kindLabels(payd.EventTypeAll, map[payd.EventType]string{
		payd.EventPaymentWaitingForCapture: "Payment waiting for capture", payd.EventPaymentSucceeded: "Payment succeeded",
		payd.EventPaymentCanceled: "Payment canceled", payd.EventPaymentAuthorizeRequest: "Authorization request to the shop",
		payd.EventRefundSucceeded: "Refund succeeded", payd.EventRefundCanceled: "Refund canceled",
		payd.EventPaymentLinkPaid: "Payment link paid", payd.EventPayoutSucceeded: "Payout succeeded",
		payd.EventPayoutCanceled: "Payout canceled", payd.EventSettlementPaid: "Settlement paid",
		payd.EventSettlementFrozen: "Settlement frozen", payd.EventSettlementUnfrozen: "Settlement unfrozen",
		payd.EventDisputeOpened: "Dispute opened", payd.EventDisputeEvidenceRequired: "Dispute: evidence required",
		payd.EventDisputeSubmitted: "Dispute: evidence sent to the bank", payd.EventDisputeClosed: "Dispute closed",
	}),
}

// The contract's cancellation_details carry party and reason as plain
// strings (payd.PartyMerchant, payd.ReasonCardExpired...); these are their
// words, by value.
var (
	cancelParties = map[string]string{
		payd.PartyMerchant: "The shop", payd.PartyPaymentNetwork: "The bank", payd.PartyService: "The payd service",
	}
	cancelReasons = map[string]string{
		payd.ReasonExpiredOnConfirmation: "Not confirmed in time", payd.ReasonExpiredOnCapture: "Not captured in time",
		payd.ReasonInsufficientFunds: "Insufficient funds", payd.ReasonIssuerDeclined: "Declined by the card's bank",
		payd.ReasonGeneralDecline: "Declined by the bank", payd.ReasonThreeDSFailed: "3-D Secure not passed",
		payd.ReasonCanceledByCustomer: "Canceled by the customer", payd.ReasonCanceledByMerchant: "Canceled by the shop",
		payd.ReasonAuthorizeRequestDenied: "Refused by the shop's check", payd.ReasonLimitsExceeded: "Limits exceeded",
		payd.ReasonCardExpired: "Card expired",
	}
)

// cancellation says who canceled and why in the page's language; a party
// or reason of a newer version is shown as it is, never hidden.
func cancellation(l webpage.Locale, d payd.CancellationDetails) string {
	word := func(words map[string]string, v string) string {
		if w, ok := words[v]; ok {
			return l.T(w)
		}
		return v
	}
	return word(cancelParties, d.Party) + ": " + word(cancelReasons, d.Reason)
}

// auditLabels are the words of the audit log's actions.
var auditLabels = []labelKind{
	kindLabels(payd.AuditActionAll, map[payd.AuditAction]string{
		payd.AuditCreatePayment: "Create payment", payd.AuditCapturePayment: "Capture payment",
		payd.AuditCancelPayment: "Cancel payment", payd.AuditCreateRefund: "Create refund",
		payd.AuditCreateEvidence: "Create evidence upload", payd.AuditAttachEvidence: "Attach evidence",
		payd.AuditCreatePaymentLink: "Create payment link", payd.AuditDeactivateLink: "Deactivate payment link",
		payd.AuditCreatePayout: "Create payout", payd.AuditCreateWebhook: "Create webhook endpoint",
		payd.AuditUpdateWebhook: "Update webhook endpoint", payd.AuditRotateWebhookSecret: "Rotate webhook secret",
		payd.AuditDeleteWebhook: "Delete webhook endpoint", payd.AuditSendTestEvent: "Send test event",
		payd.AuditResendEvent: "Resend event", payd.AuditSimulateOutcome: "Simulate outcome",
		payd.AuditCreateTestDispute: "Create test dispute", payd.AuditSimulateDispute: "Simulate dispute",
		payd.AuditInviteUser: "Invite user", payd.AuditSetupLink: "Issue setup link",
		payd.AuditSetPassword: "Set password", payd.AuditChangeRole: "Change user role",
		payd.AuditDisableUser: "Disable user", payd.AuditEnableTOTP: "Enable second factor",
		payd.AuditDisableTOTP: "Disable second factor", payd.AuditSecondFactorPolicy: "Set second factor policy",
		payd.AuditSignIn: "Sign-in", payd.AuditSignInFailed: "Failed sign-in",
		payd.AuditSecondFactorFailed: "Failed second factor", payd.AuditSecondFactorEnded: "Sign-in ended after wrong codes",
		payd.AuditAccountLocked: "Account locked after failed sign-ins", payd.AuditSignOut: "Sign-out",
		payd.AuditSignOutEverywhere: "Sign-out everywhere", payd.AuditRotateKey: "Rotate key", payd.AuditExpireKey: "Expire key",
		payd.AuditSetEmbedOrigins: "Set embed origins", payd.AuditAdvanceTestClock: "Advance test clock",
		payd.AuditResetSandbox: "Reset sandbox",
	}),
}
