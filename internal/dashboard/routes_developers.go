package dashboard

import (
	"net/http"

	"github.com/paydhq/payd"
)

// developerPages are the routes of API keys, webhook endpoints, the events log, balance and settlements, the sandbox.
func developerPages(h *Handler) []page {
	get, post := http.MethodGet, http.MethodPost
	return []page{
		{get, "developers", payd.PermRead, h.developers},
		{get, "developers/keys", payd.PermRead, h.keys},
		{post, "developers/keys/rotate", payd.AuditRotateKey.Permission(), h.rotateKey},
		{post, "developers/keys/{id}/expire", payd.AuditExpireKey.Permission(), h.expireKey},
		{get, "developers/webhooks", payd.PermRead, h.webhooks},
		{post, "developers/webhooks", payd.AuditCreateWebhook.Permission(), h.createWebhook},
		{get, "developers/webhooks/{id}", payd.PermRead, h.webhook},
		{post, "developers/webhooks/{id}", payd.AuditUpdateWebhook.Permission(), h.updateWebhook},
		{post, "developers/webhooks/{id}/rotate", payd.AuditRotateWebhookSecret.Permission(), h.rotateWebhookSecret},
		{post, "developers/webhooks/{id}/test", payd.AuditSendTestEvent.Permission(), h.testWebhook},
		{get, "developers/events", payd.PermRead, h.events},
		{get, "developers/embedding", payd.PermRead, h.embedding},
		{post, "developers/embedding", payd.AuditSetEmbedOrigins.Permission(), h.setEmbedding},
		{get, "balance", payd.PermRead, h.balance},
		// The mode switch of a register's page leads to its section.
		{get, "settlements", payd.PermRead, func(q *req) { http.Redirect(q.w, q.r, q.base()+"balance", http.StatusSeeOther) }},
		// settlements/{id} and settlements/{id}.csv: one pattern, since a
		// wildcard is a whole segment.
		{get, "settlements/{file}", payd.PermRead, h.settlement},
		{get, "sandbox", payd.PermDevelopers, h.sandbox},
		{post, "sandbox/simulate", payd.AuditSimulateOutcome.Permission(), h.simulate},
		{post, "sandbox/clock", payd.AuditAdvanceTestClock.Permission(), h.advanceClock},
	}
}

// developersNotices are the words shown after those pages' posts, by the code
// their redirects carry.
var developersNotices = map[string]string{
	"webhook_saved":   "The webhook endpoint was saved.",
	"embedding_saved": "The origins that may embed the payment form were saved.",
	"webhook_tested":  "A test event was sent to the endpoint.",
	"simulated":       "The outcome will be applied to the payment in a moment.",
	"clock_advanced":  "The test clock was moved forward.",
	"key_expired":     "The key was expired: requests made with it are refused from now on.",
	"already_rotated": "A newer key was issued after that form was shown, so no other key was issued. Its secret was shown once, on the page that answered the rotation.",

	// A second submit of a form that rotated an endpoint's signing secret.
	"webhook_already_rotated": "That form had already rotated the signing secret, so it was not rotated again. The new secret was shown once, on the page that answered the rotation; if it was not kept, rotate again.",
}
