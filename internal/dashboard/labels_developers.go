package dashboard

// developerLabels are the words of the enum values the developers',
// balance and sandbox pages show (label.go).
var developerLabels = map[string]map[string]string{
	"key":        {"active": "In use", "expiring": "Works until its overlap ends", "expired": "Expired", "revoked": "Revoked"},
	"endpoint":   {"active": "Enabled", "disabled": "Disabled", "failing": "Failing"},
	"summary":    {"pending": "Pending", "succeeded": "Delivered", "failed": "Failed", "no_endpoints": "No endpoint"},
	"settlement": {"draft": "Draft", "approved": "Approved", "sent": "Sent", "paid": "Paid out", "failed": "Not paid"},
	"outcome": {
		"succeed": "Succeed", "authorize": "Authorize (two-stage)", "decline": "Decline", "expire": "Expire",
		"three_ds_fail": "Fail 3-D Secure", "provider_timeout": "Bank does not answer", "late_webhook": "Late success after cancel",
		"duplicate_webhook": "Duplicate bank notification",
	},
}
