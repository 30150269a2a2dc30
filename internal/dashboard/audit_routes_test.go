package dashboard

import (
	"net/http"
	"testing"

	"github.com/paydhq/payd"
)

// postAudit names the audit entry each signed-in post writes (docs/
// dashboard.md, "The audit log"); each entry names its object, checked by
// the post's own test. A new post fails TestEveryPostIsAudited until its
// entry is named here: every change made through the dashboard is in the
// log.
var postAudit = map[string][]payd.AuditAction{
	"payments/{id}/capture": {"capture payment"},
	"payments/{id}/cancel":  {"cancel payment"},
	"payments/{id}/refunds": {"create refund"},
	// The refund's confirmation step changes nothing; the refund is in
	// the log once confirmed.
	"payments/{id}/refunds/review":    nil,
	"events/{id}/resend":              {"resend event"},
	"disputes/{id}/evidence":          {"create evidence upload", "attach evidence"},
	"links":                           {"create payment link"},
	"links/{id}/deactivate":           {"deactivate payment link"},
	"payouts":                         {"create payout"},
	"developers/keys/rotate":          {payd.AuditRotateKey},
	"developers/keys/{id}/expire":     {payd.AuditExpireKey},
	"developers/webhooks":             {"create webhook endpoint"},
	"developers/webhooks/{id}":        {"update webhook endpoint"},
	"developers/webhooks/{id}/rotate": {payd.AuditRotateWebhookSecret},
	"developers/webhooks/{id}/test":   {"send test event"},
	"developers/embedding":            {payd.AuditSetEmbedOrigins},
	"sandbox/simulate":                {"simulate outcome"},
	"sandbox/clock":                   {payd.AuditAdvanceTestClock},
	"users":                           {payd.AuditInviteUser},
	"users/policy":                    {payd.AuditSecondFactorPolicy},
	"users/{id}/role":                 {payd.AuditChangeRole},
	"users/{id}/disable":              {payd.AuditDisableUser},
	"users/{id}/setup-link":           {payd.AuditSetupLink},
	// Enrolment's first step keeps a pending secret only; the second
	// factor is on, and in the log, once confirmed.
	"account/second-factor":         nil,
	"account/second-factor/confirm": {payd.AuditEnableTOTP},
	"account/second-factor/disable": {payd.AuditDisableTOTP},
}

func TestEveryPostIsAudited(t *testing.T) {
	posts := map[string]bool{}
	for _, p := range pages(&Handler{}) {
		if p.method != http.MethodPost {
			continue
		}
		posts[p.path] = true
		if _, ok := postAudit[p.path]; !ok {
			t.Errorf("POST %s names no audit entry in postAudit: does it write one, naming its object?", p.path)
		}
	}
	for path := range postAudit {
		if !posts[path] {
			t.Errorf("postAudit names %s, which is no signed-in post", path)
		}
	}
}
