package payd

import (
	"context"
	"errors"
)

// Role is a dashboard user's role within its merchant.
type Role string

// The roles of the dashboard (docs/dashboard.md, "Users, roles and
// sessions").
const (
	RoleAdmin     Role = "admin"
	RoleSupport   Role = "support"
	RoleDeveloper Role = "developer"
	RoleViewer    Role = "viewer"
)

// RoleAll returns every role, from the one that may do most.
func RoleAll() []Role { return []Role{RoleAdmin, RoleSupport, RoleDeveloper, RoleViewer} }

// ParseRole reads a role's name.
func ParseRole(s string) (Role, error) {
	r := Role(s)
	if _, ok := rolePerms[r]; !ok {
		return "", Invalid("role", "must be admin, support, developer or viewer")
	}
	return r, nil
}

// Permission is what a role may do.
type Permission string

// The permissions, each naming the actions it allows (actionPerms).
const (
	// PermRead: see everything of the merchant's shops; every role.
	PermRead Permission = "read"
	// PermPayments: capture, cancel, refund.
	PermPayments Permission = "payments"
	// PermDisputes: answer disputes, upload evidence.
	PermDisputes Permission = "disputes"
	// PermLinks: payment links.
	PermLinks Permission = "links"
	// PermPayouts: create payouts.
	PermPayouts Permission = "payouts"
	// PermDevelopers: API keys, webhook endpoints, resend events, sandbox
	// tools.
	PermDevelopers Permission = "developers"
	// PermUsers: users, the second-factor policy, the audit log.
	PermUsers Permission = "users"
)

// PermissionAll returns every permission.
func PermissionAll() []Permission {
	return []Permission{PermRead, PermPayments, PermDisputes, PermLinks, PermPayouts, PermDevelopers, PermUsers}
}

// rolePerms is the one table of what each role may do.
var rolePerms = map[Role][]Permission{
	RoleAdmin:     {PermRead, PermPayments, PermDisputes, PermLinks, PermPayouts, PermDevelopers, PermUsers},
	RoleSupport:   {PermRead, PermPayments, PermDisputes, PermLinks},
	RoleDeveloper: {PermRead, PermDevelopers},
	RoleViewer:    {PermRead},
}

// Can reports whether role r allows p. An unknown role allows nothing.
func (r Role) Can(p Permission) bool {
	for _, q := range rolePerms[r] {
		if q == p {
			return true
		}
	}
	return false
}

// actionPerms is the one table of the permission each change of a shop's
// data needs when a dashboard user makes it. The domain checks it in the
// change's own transaction (permit), so every adapter that acts for a
// user — the dashboard, a back office, a command line — gets the same
// answer; the dashboard's route table takes its permissions from it
// (Action.Permission). An API key or the operator acts for the whole
// shop and is not checked here.
var actionPerms = map[AuditAction]Permission{
	AuditCreatePayment:       PermPayments,
	AuditCapturePayment:      PermPayments,
	AuditCancelPayment:       PermPayments,
	AuditCreateRefund:        PermPayments,
	AuditCreateEvidence:      PermDisputes,
	AuditAttachEvidence:      PermDisputes,
	AuditCreatePaymentLink:   PermLinks,
	AuditDeactivateLink:      PermLinks,
	AuditCreatePayout:        PermPayouts,
	AuditCreateWebhook:       PermDevelopers,
	AuditUpdateWebhook:       PermDevelopers,
	AuditRotateWebhookSecret: PermDevelopers,
	AuditDeleteWebhook:       PermDevelopers,
	AuditSendTestEvent:       PermDevelopers,
	AuditResendEvent:         PermDevelopers,
	AuditRotateKey:           PermDevelopers,
	AuditExpireKey:           PermDevelopers,
	AuditSetEmbedOrigins:     PermDevelopers,
	AuditSimulateOutcome:     PermDevelopers,
	AuditCreateTestDispute:   PermDevelopers,
	AuditSimulateDispute:     PermDevelopers,
	AuditAdvanceTestClock:    PermDevelopers,
	AuditResetSandbox:        PermDevelopers,
	AuditInviteUser:          PermUsers,
	AuditSetupLink:           PermUsers,
	AuditChangeRole:          PermUsers,
	AuditDisableUser:         PermUsers,
	AuditSecondFactorPolicy:  PermUsers,
	// A user may do these two to itself whatever its role (AllowActor's
	// self).
	AuditSignOutEverywhere: PermUsers,
	AuditDisableTOTP:       PermUsers,
}

// Permission is what a user's role must allow to do a. An action missing
// from the table needs PermUsers, the most guarded permission, so that a
// change added without its line is refused to all but admins rather than
// allowed to all (TestEveryActionHasAPermission lists them).
func (a AuditAction) Permission() Permission {
	if p, ok := actionPerms[a]; ok {
		return p
	}
	return PermUsers
}

// ErrForbidden answers a change the actor's role does not allow, or an
// actor that may not act on the merchant at all.
var ErrForbidden = &Error{Code: CodeForbidden, Message: "your role does not allow this"}

// permit lets p do action in p's shop: an API key or the operator always,
// a dashboard user when its role allows the action now (AllowActor).
func (s *Service) permit(ctx context.Context, tx Tx, p *Principal, action AuditAction) error {
	if p.Actor == nil {
		return nil
	}
	return AllowActor(ctx, tx, p.Actor, p.Shop.MerchantID, "", action.Permission())
}

// AllowActor lets actor act on merchantID when its role has perm, or when
// it acts on itself (self is its own user id), and answers ErrForbidden
// otherwise. A nil actor is the operator, who may do everything. The
// actor is read afresh in tx, the change's own transaction, so a role
// changed or a user disabled a moment ago no longer counts. Service.permit
// and the account service's management of users both ask it.
func AllowActor(ctx context.Context, tx Tx, actor *Actor, merchantID, self string, perm Permission) error {
	if actor == nil {
		return nil
	}
	a, err := tx.UserGet(ctx, actor.UserID)
	if errors.Is(err, ErrNoRows) || (err == nil && (a.MerchantID != merchantID || a.DisabledAt != nil)) {
		return ErrForbidden
	}
	if err != nil {
		return err
	}
	if self != "" && a.ID == self || a.Role.Can(perm) {
		return nil
	}
	return ErrForbidden
}
