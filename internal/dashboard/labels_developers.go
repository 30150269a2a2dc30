package dashboard

// The words of the enum values the developers', balance and sandbox pages
// show, added to labels.
func init() {
	labels["key"] = map[string]string{"active": "In use", "expiring": "Works until its overlap ends", "expired": "Expired", "revoked": "Revoked"}
	labels["endpoint"] = map[string]string{"active": "Enabled", "disabled": "Disabled", "failing": "Failing"}
	labels["summary"] = map[string]string{"pending": "Pending", "succeeded": "Delivered", "failed": "Failed", "no_endpoints": "No endpoint"}
	labels["settlement"] = map[string]string{"draft": "Draft", "approved": "Approved", "sent": "Sent", "paid": "Paid out", "failed": "Not paid"}
	labels["outcome"] = map[string]string{
		"succeed": "Succeed", "authorize": "Authorize (two-stage)", "decline": "Decline", "expire": "Expire",
		"three_ds_fail": "Fail 3-D Secure", "provider_timeout": "Bank does not answer", "late_webhook": "Late success after cancel",
		"duplicate_webhook": "Duplicate bank notification",
	}
}
