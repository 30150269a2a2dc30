package dashboard

import "github.com/paydhq/payd"

// developerLabels are the words of the kinds the developers', balance and
// sandbox pages show (label.go).
var developerLabels = []labelKind{
	kindLabels(payd.KeyStateAll, map[payd.KeyState]string{
		payd.KeyActive: "In use", payd.KeyExpiring: "Works until its overlap ends", payd.KeyExpired: "Expired",
		payd.KeyRevoked: "Revoked",
	}),
	kindLabels(payd.WebhookEndpointStatusAll, map[payd.WebhookEndpointStatus]string{
		payd.WebhookActive: "Enabled", payd.WebhookDisabled: "Disabled", payd.WebhookFailing: "Failing",
	}),
	kindLabels(payd.EventDeliveryStatusAll, map[payd.EventDeliveryStatus]string{
		payd.DeliveryPending: "Pending", payd.DeliverySucceeded: "Delivered", payd.DeliveryFailed: "Failed",
		payd.DeliveryNone: "No endpoint",
	}),
	kindLabels(payd.SettlementStateAll, map[payd.SettlementState]string{
		payd.SettlementDraft: "Draft", payd.SettlementApproved: "Approved", payd.SettlementSent: "Sent",
		payd.SettlementPaid: "Paid out", payd.SettlementFailed: "Not paid",
	}),
	kindLabels(payd.SandboxOutcomeAll, map[payd.SandboxOutcome]string{
		payd.SandboxSucceed: "Succeed", payd.SandboxAuthorize: "Authorize (two-stage)", payd.SandboxDecline: "Decline",
		payd.SandboxExpire: "Expire", payd.SandboxThreeDSFail: "Fail 3-D Secure",
		payd.SandboxProviderTimeout: "Bank does not answer", payd.SandboxLateWebhook: "Late success after cancel",
		payd.SandboxDuplicateWebhook: "Duplicate bank notification",
	}),
}
