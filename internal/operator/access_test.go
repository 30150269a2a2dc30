package operator_test

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/operator"
	"github.com/paydhq/payd/internal/paydtest"
)

// staffEnv is a service with one staff member of each role, each with an
// API token.
type staffEnv struct {
	*paydtest.Env
	tokens map[payd.StaffRole]string
	ids    map[payd.StaffRole]string
}

func startStaff(t *testing.T, b paydtest.Backend, opts *paydtest.Options) *staffEnv {
	t.Helper()
	env := &staffEnv{Env: paydtest.Start(t, b, opts), tokens: map[payd.StaffRole]string{}, ids: map[payd.StaffRole]string{}}
	for _, role := range payd.StaffRoleAll() {
		st := env.AdminDo("POST", "/admin/v1/staff", map[string]any{"email": string(role) + "@operator.test", "role": role}).Expect(t, 201).JSON(t)
		id := st["id"].(string)
		k := env.AdminDo("POST", "/admin/v1/staff/"+id+"/tokens", map[string]any{"name": "tests"}).Expect(t, 201).JSON(t)
		env.tokens[role], env.ids[role] = k["secret"].(string), id
	}
	return env
}

// as sends a request with the staff token of role.
func (e *staffEnv) as(role payd.StaffRole, method, path string, body any) *paydtest.Response {
	e.T.Helper()
	return e.Do(method, e.Admin.URL, path, body, http.Header{"Authorization": {"Bearer " + e.tokens[role]}})
}

// everyone are the roles that may read.
var everyone = []payd.StaffRole{payd.StaffAdmin, payd.StaffFinance, payd.StaffRisk, payd.StaffSupport}

// roleCase is a request to a route and the roles allowed to make it.
type roleCase struct {
	path  string
	body  any
	roles []payd.StaffRole
}

// wantRoles is, for every route, who may call it: written out here apart
// from the route table it checks, so that a line changed there by mistake
// fails here.
func wantRoles() map[string][]roleCase {
	admin, finance, risk := []payd.StaffRole{payd.StaffAdmin}, []payd.StaffRole{payd.StaffFinance}, []payd.StaffRole{payd.StaffRisk}
	riskSupport := []payd.StaffRole{payd.StaffRisk, payd.StaffSupport}
	notFinance := []payd.StaffRole{payd.StaffAdmin, payd.StaffRisk, payd.StaffSupport}
	one := func(roles []payd.StaffRole) []roleCase { return []roleCase{{roles: roles}} }
	return map[string][]roleCase{
		"POST /admin/v1/merchants":     one(admin),
		"GET /admin/v1/merchants":      one(everyone),
		"GET /admin/v1/merchants/{id}": one(everyone),
		"PATCH /admin/v1/merchants/{id}": {
			{body: map[string]any{"chargeback": map[string]any{}}, roles: risk},
			{body: map[string]any{"auto_settle": true}, roles: finance},
			{body: map[string]any{"settlement_delay_days": 2}, roles: finance},
			{body: map[string]any{"require_second_factor": true}, roles: admin},
			{body: map[string]any{"chargeback": map[string]any{}, "auto_settle": true}, roles: nil},
		},
		"GET /admin/v1/calendar/{region}/holidays":                      one(everyone),
		"PUT /admin/v1/calendar/{region}/holidays/{day}":                one(admin),
		"DELETE /admin/v1/calendar/{region}/holidays/{day}":             one(admin),
		"POST /admin/v1/shops":                                          one(admin),
		"GET /admin/v1/shops":                                           one(everyone),
		"GET /admin/v1/shops/{id}":                                      one(everyone),
		"PATCH /admin/v1/shops/{id}":                                    one(admin),
		"POST /admin/v1/shops/{id}/keys":                                one(admin),
		"GET /admin/v1/shops/{id}/keys":                                 one(everyone),
		"POST /admin/v1/keys/{id}/revoke":                               one(admin),
		"GET /admin/v1/payments/{id}":                                   one(everyone),
		"GET /admin/v1/payments/{id}/events":                            one(everyone),
		"GET /admin/v1/providers":                                       one(everyone),
		"GET /admin/v1/provider-routes":                                 one(everyone),
		"PUT /admin/v1/provider-routes":                                 one(admin),
		"DELETE /admin/v1/provider-routes/{region}/{method}/{currency}": one(admin),
		"GET /admin/v1/discrepancies":                                   one(everyone),
		"GET /admin/v1/events/{id}/attempts":                            one(everyone),
		"POST /admin/v1/events/{id}/resend":                             one(notFinance),
		"POST /admin/v1/merchants/{id}/settlements":                     one(finance),
		"GET /admin/v1/settlements":                                     one(everyone),
		"GET /admin/v1/ledger/check":                                    one(everyone),
		"GET /admin/v1/jobs":                                            one(everyone),
		"GET /admin/v1/merchants/{id}/balance":                          one(everyone),
		"GET /admin/v1/merchants/{id}/entries":                          one(everyone),
		"POST /admin/v1/merchants/{id}/freeze":                          one(risk),
		"POST /admin/v1/merchants/{id}/unfreeze":                        one(risk),
		"POST /admin/v1/payments/{id}/disputes":                         one(riskSupport),
		"GET /admin/v1/disputes":                                        one(everyone),
		"GET /admin/v1/disputes/{id}":                                   one(everyone),
		"GET /admin/v1/disputes/{id}/evidence/{file_id}":                one(everyone),
		"POST /admin/v1/merchants/{id}/users":                           one(admin),
		"GET /admin/v1/merchants/{id}/users":                            one(everyone),
		"POST /admin/v1/merchants/{id}/users/{user_id}/setup_link":      one(admin),
		"GET /admin/v1/merchants/{id}/audit":                            one(admin),
		"POST /admin/v1/clock/advance":                                  one(admin),
		"GET /admin/v1/clock":                                           one(everyone),
		"GET /admin/v1/staff":                                           one(admin),
		"POST /admin/v1/staff":                                          one(admin),
		"GET /admin/v1/staff/me":                                        one(everyone),
		"GET /admin/v1/staff/{id}":                                      one(admin),
		"PATCH /admin/v1/staff/{id}":                                    one(admin),
		"POST /admin/v1/staff/{id}/setup_link":                          one(admin),
		// Another's tokens: the path names a staff member none of the
		// roles is.
		"GET /admin/v1/staff/{id}/tokens":         one(admin),
		"POST /admin/v1/staff/{id}/tokens":        {{body: map[string]any{"name": "another's"}}},
		"POST /admin/v1/staff-tokens/{id}/revoke": one(everyone), // an unknown token: not_found before the owner is known
		"GET /admin/v1/audit":                     one(admin),
		"GET /admin/v1/audit.csv":                 one(admin),
		"/":                                       one(everyone),
		"GET /admin/v1/proposals":                 one(everyone),
		"POST /admin/v1/proposals/{id}/confirm":   one(everyone), // an unknown proposal: not_found
		"POST /admin/v1/proposals/{id}/reject":    one(everyone),
		"POST /admin/v1/shops/{id}/{action}": {
			{path: "/admin/v1/shops/sh_00000000000000000000000000/activate", roles: admin},
			{path: "/admin/v1/shops/sh_00000000000000000000000000/block", roles: risk},
			{path: "/admin/v1/shops/sh_00000000000000000000000000/unblock", roles: risk},
			{path: "/admin/v1/shops/sh_00000000000000000000000000/suspend", roles: risk},
			{path: "/admin/v1/shops/sh_00000000000000000000000000/resume", roles: risk},
		},
		"POST /admin/v1/settlements/{id}/{action}": {
			{path: "/admin/v1/settlements/set_00000000000000000000000000/approve", roles: finance},
			{path: "/admin/v1/settlements/set_00000000000000000000000000/pay", roles: finance},
		},
		"POST /admin/v1/merchants/{id}/deposit/{action}": {
			{path: "/admin/v1/merchants/mer_00000000000000000000000000/deposit/hold", roles: finance},
		},
		"POST /admin/v1/disputes/{id}/{action}": {
			{path: "/admin/v1/disputes/dsp_00000000000000000000000000/win", roles: risk},
		},
	}
}

var placeholder = regexp.MustCompile(`\{[a-z_]+\}`)

// TestEveryRouteChecksTheRole calls every route of the operator API with
// the token of each staff role: a role the route is not for is refused
// 403 forbidden before anything is read or changed, a role it is for
// gets past the check (its answer is then the route's own: not_found
// for the made-up identifiers, invalid_request for an empty body). Every
// registered route must have its line here.
func TestEveryRouteChecksTheRole(t *testing.T) {
	t.Parallel()
	b := paydtest.Backends(t)[0]
	env := startStaff(t, b, &paydtest.Options{Stage: payd.StageM2})
	want := wantRoles()
	patterns := operator.Patterns(operator.Config{Service: env.Service, TestClock: env.Clock})
	for _, p := range patterns {
		if p == "GET /metrics" {
			continue
		}
		cases, ok := want[p]
		if !ok {
			t.Errorf("route %s has no line in wantRoles", p)
			continue
		}
		method, path, _ := strings.Cut(p, " ")
		if p == "/" {
			method, path = "GET", "/admin/v1/nothing"
		}
		for _, c := range cases {
			target := c.path
			if target == "" {
				target = placeholder.ReplaceAllStringFunc(path, func(ph string) string {
					switch ph {
					case "{region}":
						return "ru"
					case "{day}":
						return "2030-01-01"
					case "{method}":
						return "card"
					case "{currency}":
						return "RUB"
					}
					return "stf_00000000000000000000000000"
				})
			}
			for _, role := range everyone {
				r := env.as(role, method, target, c.body)
				allowed := slices.Contains(c.roles, role)
				switch {
				case !allowed && r.Status != http.StatusForbidden:
					t.Errorf("%s %s %v as %s: %d, want 403 forbidden", method, target, c.body, role, r.Status)
				case !allowed:
					r.ExpectError(t, 403, payd.CodeForbidden, "")
				case r.Status == http.StatusForbidden || r.Status == http.StatusUnauthorized:
					t.Errorf("%s %s %v as %s: %d %s, want past the role check", method, target, c.body, role, r.Status, r.Body)
				}
			}
		}
	}
	for p := range want {
		if p != "/" && !slices.Contains(patterns, p) {
			t.Errorf("wantRoles names %s, which is not a route", p)
		}
	}
}
