package dashboard

import (
	"net/http"

	"github.com/paydhq/payd"
)

// userPages are the routes of users, the account (second factor), the
// audit log.
func userPages(h *Handler) []page {
	get, post := http.MethodGet, http.MethodPost
	return []page{
		{get, "users", payd.PermUsers, h.users},
		{post, "users", payd.AuditInviteUser.Permission(), h.invite},
		{post, "users/policy", payd.AuditSecondFactorPolicy.Permission(), h.policy},
		{post, "users/{id}/role", payd.AuditChangeRole.Permission(), h.changeRole},
		{post, "users/{id}/disable", payd.AuditDisableUser.Permission(), h.disableUser},
		{post, "users/{id}/setup-link", payd.AuditSetupLink.Permission(), h.setupLink},
		{get, "audit", payd.PermUsers, h.auditLog},
		{get, "account", payd.PermRead, h.account},
		{get, "account/second-factor", payd.PermRead, h.secondFactor},
		{post, "account/second-factor", payd.PermRead, h.beginSecondFactor},
		{post, "account/second-factor/confirm", payd.PermRead, h.confirmSecondFactor},
		{post, "account/second-factor/disable", payd.PermRead, h.disableSecondFactor},
	}
}

// usersNotices are the words shown after those pages' posts, by the code
// their redirects carry.
var usersNotices = map[string]string{
	"role":     "The role was changed.",
	"disabled": "The user was disabled and signed out everywhere.",
	"policy":   "The second-factor policy was saved.",
	"totp-on":  "The second factor is on.",
	"totp-off": "The second factor is off.",
}
