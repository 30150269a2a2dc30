package operator

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/paydhq/payd"
)

// access is what a route needs: the staff permissions it asks of the
// actor (from the request, for the routes whose action is in the path or
// the body), and for a change the name its audit entries carry ("" for a
// read). Who may do what is the domain's table (payd.StaffRole.Can); this
// is the operator API's map from its routes onto it.
type access struct {
	perms  func(r *http.Request, body []byte) []payd.StaffPermission
	action string
}

// need is an access of fixed permissions.
func need(action string, perms ...payd.StaffPermission) access {
	return access{action: action, perms: func(*http.Request, []byte) []payd.StaffPermission { return perms }}
}

// read is the access of a read every staff member may do.
var read = need("", payd.StaffRead)

// routeAccess is the one table of the operator API's routes: every route
// registered must have its line (newServer panics otherwise), so a route
// cannot be added that no permission guards. An action's "{action}" is
// the path's value of that name.
var routeAccess = map[string]access{
	"POST /admin/v1/merchants":                                      need("merchants.create", payd.StaffMerchants),
	"GET /admin/v1/merchants":                                       read,
	"GET /admin/v1/merchants/{id}":                                  read,
	"PATCH /admin/v1/merchants/{id}":                                {action: "merchants.update", perms: merchantUpdatePerms},
	"GET /admin/v1/calendar/{region}/holidays":                      read,
	"PUT /admin/v1/calendar/{region}/holidays/{day}":                need("calendar.holiday_add", payd.StaffCalendar),
	"DELETE /admin/v1/calendar/{region}/holidays/{day}":             need("calendar.holiday_remove", payd.StaffCalendar),
	"POST /admin/v1/shops":                                          need("shops.create", payd.StaffMerchants),
	"GET /admin/v1/shops":                                           read,
	"GET /admin/v1/shops/{id}":                                      read,
	"PATCH /admin/v1/shops/{id}":                                    need("shops.update", payd.StaffMerchants),
	"POST /admin/v1/shops/{id}/{action}":                            {action: "shops.{action}", perms: shopActionPerms},
	"POST /admin/v1/shops/{id}/keys":                                need("keys.issue", payd.StaffKeys),
	"GET /admin/v1/shops/{id}/keys":                                 read,
	"POST /admin/v1/keys/{id}/revoke":                               need("keys.revoke", payd.StaffKeys),
	"GET /admin/v1/payments/{id}":                                   read,
	"GET /admin/v1/payments/{id}/events":                            read,
	"GET /admin/v1/providers":                                       read,
	"GET /admin/v1/provider-routes":                                 read,
	"PUT /admin/v1/provider-routes":                                 need("routes.put", payd.StaffRoutes),
	"DELETE /admin/v1/provider-routes/{region}/{method}/{currency}": need("routes.delete", payd.StaffRoutes),
	"GET /admin/v1/discrepancies":                                   read,
	"GET /admin/v1/events/{id}/attempts":                            read,
	"POST /admin/v1/events/{id}/resend":                             need("events.resend", payd.StaffResendEvents),
	"POST /admin/v1/merchants/{id}/settlements":                     need("settlements.form", payd.StaffSettlements),
	"GET /admin/v1/settlements":                                     read,
	"POST /admin/v1/settlements/{id}/{action}":                      need("settlements.{action}", payd.StaffSettlements),
	"GET /admin/v1/ledger/check":                                    read,
	"GET /admin/v1/jobs":                                            read,
	"GET /admin/v1/merchants/{id}/balance":                          read,
	"GET /admin/v1/merchants/{id}/entries":                          read,
	"POST /admin/v1/merchants/{id}/deposit/{action}":                need("deposits.{action}", payd.StaffMoneyTerms),
	"POST /admin/v1/merchants/{id}/freeze":                          need("payouts.freeze", payd.StaffFreezes),
	"POST /admin/v1/merchants/{id}/unfreeze":                        need("payouts.unfreeze", payd.StaffFreezes),
	"POST /admin/v1/payments/{id}/disputes":                         need("disputes.open", payd.StaffOpenDisputes),
	"GET /admin/v1/disputes":                                        read,
	"GET /admin/v1/disputes/{id}":                                   read,
	"POST /admin/v1/disputes/{id}/{action}":                         need("disputes.{action}", payd.StaffDisputes),
	"GET /admin/v1/disputes/{id}/evidence/{file_id}":                read,
	"POST /admin/v1/merchants/{id}/users":                           need("users.create", payd.StaffMerchants),
	"GET /admin/v1/merchants/{id}/users":                            read,
	"POST /admin/v1/merchants/{id}/users/{user_id}/setup_link":      need("users.setup_link", payd.StaffMerchants),
	"GET /admin/v1/merchants/{id}/audit":                            need("", payd.StaffAudit),
	"POST /admin/v1/clock/advance":                                  need("clock.advance", payd.StaffCalendar),
	"GET /admin/v1/clock":                                           read,
	"GET /admin/v1/staff":                                           need("", payd.StaffManageStaff),
	"POST /admin/v1/staff":                                          need("staff.create", payd.StaffManageStaff),
	"GET /admin/v1/staff/me":                                        read,
	"GET /admin/v1/staff/{id}":                                      need("", payd.StaffManageStaff),
	"PATCH /admin/v1/staff/{id}":                                    need("staff.update", payd.StaffManageStaff),
	"POST /admin/v1/staff/{id}/setup_link":                          need("staff.setup_link", payd.StaffManageStaff),
	// A person's own tokens: the service lets the person (or whoever
	// manages staff) through.
	"GET /admin/v1/staff/{id}/tokens":         read,
	"POST /admin/v1/staff/{id}/tokens":        {action: "staff_tokens.issue", perms: read.perms},
	"POST /admin/v1/staff-tokens/{id}/revoke": {action: "staff_tokens.revoke", perms: read.perms},
	"GET /admin/v1/audit":                     need("", payd.StaffAudit),
	"GET /admin/v1/audit.csv":                 need("", payd.StaffAudit),
	// Four eyes: deciding asks, besides, what the proposal's route asks.
	"GET /admin/v1/proposals":               read,
	"POST /admin/v1/proposals/{id}/confirm": read,
	"POST /admin/v1/proposals/{id}/reject":  {action: "proposals.reject", perms: read.perms},
	// Unknown routes: answered not_found to whoever holds a token.
	"/": read,
}

// shopActionPerms: activation is the admins' (it lets a shop take
// money); blocking, suspending and their undoing are the risk team's.
func shopActionPerms(r *http.Request, _ []byte) []payd.StaffPermission {
	if r.PathValue("action") == string(payd.ShopActivate) {
		return []payd.StaffPermission{payd.StaffMerchants}
	}
	return []payd.StaffPermission{payd.StaffShopState}
}

// merchantUpdatePerms asks for each field the request sets the
// permission of what it governs: the chargeback rule is the risk team's,
// the settlement terms finance's, the second-factor policy the admins'.
// A body that cannot be read needs them all (and is refused by the
// handler anyway).
func merchantUpdatePerms(_ *http.Request, body []byte) []payd.StaffPermission {
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return []payd.StaffPermission{payd.StaffChargebackRules, payd.StaffMoneyTerms, payd.StaffMerchants}
	}
	var out []payd.StaffPermission
	for name := range fields {
		switch name {
		case "chargeback":
			out = append(out, payd.StaffChargebackRules)
		case "settlement_delay_days", "auto_settle":
			out = append(out, payd.StaffMoneyTerms)
		default:
			out = append(out, payd.StaffMerchants)
		}
	}
	if len(out) == 0 {
		out = append(out, payd.StaffMerchants)
	}
	return out
}

// actionOf is the audit name of a change on pattern, "" for a read.
func actionOf(a access, r *http.Request) string {
	if a.action == "" {
		return ""
	}
	return strings.ReplaceAll(a.action, "{action}", r.PathValue("action"))
}

// refineAction names a change more closely where four eyes depend on
// what it changes: a shop's settings that touch its tariffs.
func refineAction(action string, body []byte) string {
	if action != "shops.update" {
		return action
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) == nil {
		for _, f := range []string{"tariffs", "payout_fees"} {
			if _, ok := fields[f]; ok {
				return "shops.update_tariffs"
			}
		}
	}
	return action
}

// readBody reads a change's body (bounded as decode bounds it) and puts
// it back for the handler, so that the permissions that depend on it and
// the audit entry see what the handler sees.
func readBody(r *http.Request) []byte {
	if r.Body == nil {
		return nil
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body
}

// auditDetail is a request body as an audit entry keeps it: JSON bodies
// compacted, cut at 2,000 bytes.
func auditDetail(body []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, body) != nil {
		return ""
	}
	s := b.String()
	if len(s) > 2000 {
		s = s[:2000]
	}
	return s
}
