package payd

import (
	"slices"
	"time"
)

// The operator's staff: the people of the company that runs payd who work
// in the operator API and its back office. Their accounts are package
// account's second kind (beside the merchants' dashboard users); what
// stays here is what the store speaks and the one table of who may do
// what (staffRolePerms), which every adapter of the operator asks.

// Prefixes of the operator's own records: staff, their API tokens, and
// the operator audit log's entries.
const (
	PrefixStaff         = "stf_"
	PrefixStaffToken    = "stt_"
	PrefixOperatorAudit = "oad_"
)

// StaffRole is a staff member's role.
type StaffRole string

// The staff roles (docs/operator.md, "Staff and roles").
const (
	// StaffSupport reads everything and answers merchants: opens the
	// disputes a bank reported.
	StaffSupport StaffRole = "support"
	// StaffRisk blocks and suspends shops, freezes and unfreezes payouts,
	// decides disputes and sets the chargeback rules.
	StaffRisk StaffRole = "risk"
	// StaffFinance forms, approves, sends, pays and fails settlement
	// registers, holds deposits and sets merchants' settlement terms.
	StaffFinance StaffRole = "finance"
	// StaffAdmin keeps staff, merchants and shops (activation, settings
	// and tariffs), API keys, provider routes and the calendar, and reads
	// the operator audit log.
	StaffAdmin StaffRole = "admin"
)

// StaffRoleAll returns every staff role.
func StaffRoleAll() []StaffRole {
	return []StaffRole{StaffAdmin, StaffFinance, StaffRisk, StaffSupport}
}

// ParseStaffRole reads a staff role's name.
func ParseStaffRole(s string) (StaffRole, error) {
	r := StaffRole(s)
	if _, ok := staffRolePerms[r]; !ok {
		return "", Invalid("role", "must be admin, finance, risk or support")
	}
	return r, nil
}

// StaffPermission is what a staff role may do in the operator API and the
// back office.
type StaffPermission string

// The staff permissions.
const (
	// StaffRead: read merchants, shops, payments, registers, disputes,
	// discrepancies, routes, the ledger check and trial balances.
	StaffRead StaffPermission = "read"
	// StaffOpenDisputes: open a dispute a bank reported outside its
	// notifications.
	StaffOpenDisputes StaffPermission = "open_disputes"
	// StaffResendEvents: deliver a merchant's event again to its
	// endpoints.
	StaffResendEvents StaffPermission = "resend_events"
	// StaffShopState: block, unblock, suspend and resume shops.
	StaffShopState StaffPermission = "shop_state"
	// StaffFreezes: freeze and unfreeze a merchant's payouts.
	StaffFreezes StaffPermission = "freezes"
	// StaffDisputes: win, lose or otherwise decide a dispute.
	StaffDisputes StaffPermission = "disputes"
	// StaffChargebackRules: a merchant's chargeback-ratio rule.
	StaffChargebackRules StaffPermission = "chargeback_rules"
	// StaffSettlements: form, approve, send, pay and fail registers.
	StaffSettlements StaffPermission = "settlements"
	// StaffMoneyTerms: a merchant's settlement delay and automatic path,
	// security deposits.
	StaffMoneyTerms StaffPermission = "money_terms"
	// StaffMerchants: create merchants and shops, activate shops, change
	// shops' settings and tariffs, manage merchants' dashboard users and
	// their second-factor policy.
	StaffMerchants StaffPermission = "merchants"
	// StaffKeys: issue and revoke shops' API keys.
	StaffKeys StaffPermission = "keys"
	// StaffRoutes: provider routes of live traffic.
	StaffRoutes StaffPermission = "routes"
	// StaffCalendar: the regions' holidays and the test clock.
	StaffCalendar StaffPermission = "calendar"
	// StaffManageStaff: staff accounts and their roles, others' tokens.
	StaffManageStaff StaffPermission = "staff"
	// StaffAudit: read and export the operator audit log and merchants'
	// audit logs.
	StaffAudit StaffPermission = "audit"
)

// StaffPermissionAll returns every staff permission.
func StaffPermissionAll() []StaffPermission {
	return []StaffPermission{StaffRead, StaffOpenDisputes, StaffResendEvents, StaffShopState, StaffFreezes, StaffDisputes,
		StaffChargebackRules, StaffSettlements, StaffMoneyTerms, StaffMerchants, StaffKeys, StaffRoutes,
		StaffCalendar, StaffManageStaff, StaffAudit}
}

// staffRolePerms is the one table of what each staff role may do. Least
// privilege: no role holds everything, so that the money's way out
// (registers, unfreezing) is never in the hands of the role that keeps
// staff, and the break-glass token (BreakGlass) is the only holder of
// all.
var staffRolePerms = map[StaffRole][]StaffPermission{
	StaffSupport: {StaffRead, StaffOpenDisputes, StaffResendEvents},
	StaffRisk:    {StaffRead, StaffOpenDisputes, StaffResendEvents, StaffShopState, StaffFreezes, StaffDisputes, StaffChargebackRules},
	StaffFinance: {StaffRead, StaffSettlements, StaffMoneyTerms},
	StaffAdmin:   {StaffRead, StaffResendEvents, StaffMerchants, StaffKeys, StaffRoutes, StaffCalendar, StaffManageStaff, StaffAudit},
}

// Can reports whether role r allows p. An unknown role allows nothing.
func (r StaffRole) Can(p StaffPermission) bool { return slices.Contains(staffRolePerms[r], p) }

// Permissions returns what r allows, in the table's order.
func (r StaffRole) Permissions() []StaffPermission { return slices.Clone(staffRolePerms[r]) }

// Staff is a person of the operator. Its secrets (password hash, second
// factor, setup token) are a UserCredentials of its id, kept apart like a
// dashboard user's.
type Staff struct {
	ID    string    `json:"id"`
	Email string    `json:"email"`
	Role  StaffRole `json:"role"`
	// HasPassword is false until the person has used a setup link;
	// TOTPEnabled until the second factor, mandatory for staff, is
	// enrolled.
	HasPassword bool       `json:"has_password"`
	TOTPEnabled bool       `json:"totp_enabled"`
	CreatedAt   time.Time  `json:"created_at"`
	DisabledAt  *time.Time `json:"disabled_at,omitempty"`
}

// StaffToken is a staff member's API token for the operator API: issued
// to one person, acting with that person's role as it is at each request,
// revocable, its last use recorded. Only the SHA-256 of its secret is
// stored.
type StaffToken struct {
	ID      string `json:"id"`
	StaffID string `json:"staff_id"`
	// Name says what the token is for ("reconciliation script").
	Name       string     `json:"name"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
}

// StaffActor is who acts in the operator API or the back office: a staff
// member (by token or session) or the break-glass token, and the address
// the request came from.
type StaffActor struct {
	// StaffID and Email are the person's, both "" for the break-glass
	// token.
	StaffID, Email string
	// Role is the person's role as read for this request.
	Role StaffRole
	// Via says how the actor signed in: "token" (TokenID names it),
	// "session" or "break_glass".
	Via     string
	TokenID string
	Addr    string
}

// How a StaffActor came in.
const (
	StaffViaToken      = "token"
	StaffViaSession    = "session"
	StaffViaBreakGlass = "break_glass"
	// StaffViaProposal: the proposer of a four-eyes change, acting
	// through its confirmation.
	StaffViaProposal = "proposal"
)

// BreakGlass is the actor of the single operator token: it may do
// everything, and the audit log names it as such.
func BreakGlass(addr string) *StaffActor {
	return &StaffActor{Via: StaffViaBreakGlass, Addr: addr}
}

// Can reports whether the actor may do p: the break-glass token always,
// a person when its role allows it.
func (a *StaffActor) Can(p StaffPermission) bool {
	return a != nil && (a.Via == StaffViaBreakGlass || a.Role.Can(p))
}

// Name is how the actor is named to people: the email, or "break-glass
// token".
func (a *StaffActor) Name() string {
	if a.Via == StaffViaBreakGlass {
		return "break-glass token"
	}
	return a.Email
}

// ErrStaffForbidden answers an operator request the actor's role does not
// allow.
var ErrStaffForbidden = &Error{Code: CodeForbidden, Message: "your staff role does not allow this"}

// Allow answers ErrStaffForbidden unless the actor may do every one of
// perms.
func (a *StaffActor) Allow(perms ...StaffPermission) error {
	for _, p := range perms {
		if !a.Can(p) {
			return ErrStaffForbidden
		}
	}
	return nil
}
