package operator_test

import (
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// auditItems reads the operator audit log with query q as admin.
func auditItems(t *testing.T, env *staffEnv, q string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, it := range env.as(payd.StaffAdmin, "GET", "/admin/v1/audit"+q, nil).Expect(t, 200).JSON(t)["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

// TestOperatorActionsAudited: each change names who made it (the staff
// member and token, or the break-glass token), from where, the object,
// and for settings what they were and became; a refused change leaves
// no entry; the log filters and exports, to the roles that may read it.
func TestOperatorActionsAudited(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := startStaff(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")

		env.as(payd.StaffAdmin, "PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"display_name": "Книги"}).Expect(t, 200)
		env.as(payd.StaffRisk, "POST", "/admin/v1/shops/"+shop.ID+"/block", nil).Expect(t, 200)
		// Refused: by the role, and by the service's validation.
		env.as(payd.StaffSupport, "POST", "/admin/v1/shops/"+shop.ID+"/unblock", nil).ExpectError(t, 403, payd.CodeForbidden, "")
		env.as(payd.StaffAdmin, "PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"payments_per_minute": -1}).Expect(t, 400)
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/unblock", nil).Expect(t, 200)

		entries := auditItems(t, env, "?object_id="+shop.ID)
		if len(entries) != 3 {
			t.Fatalf("entries of the shop = %d, want 3 (the refused changes leave none): %v", len(entries), entries)
		}
		unblock, block, update := entries[0], entries[1], entries[2]
		for _, c := range []struct {
			e             map[string]any
			action, staff string
			via           string
		}{
			{update, "shops.update", env.ids[payd.StaffAdmin], payd.StaffViaToken},
			{block, "shops.block", env.ids[payd.StaffRisk], payd.StaffViaToken},
			{unblock, "shops.unblock", "", payd.StaffViaBreakGlass},
		} {
			if c.e["action"] != c.action || c.e["via"] != c.via || c.e["merchant_id"] != shop.MerchantID || c.e["addr"] == "" {
				t.Errorf("entry = %v, want %s via %s for merchant %s with an address", c.e, c.action, c.via, shop.MerchantID)
			}
			if got, _ := c.e["staff_id"].(string); got != c.staff {
				t.Errorf("%s: staff_id %q, want %q", c.action, got, c.staff)
			}
		}
		if !strings.Contains(update["after"].(string), `"display_name":"Книги"`) || strings.Contains(update["before"].(string), "Книги") {
			t.Errorf("settings before %s after %s: want the display name only after", update["before"], update["after"])
		}
		if update["token_id"] == "" || update["staff_email"] != "admin@operator.test" {
			t.Errorf("the change's entry names token %v, email %v", update["token_id"], update["staff_email"])
		}

		// Filters: by the person, by the action.
		if got := auditItems(t, env, "?staff_id="+env.ids[payd.StaffRisk]); len(got) != 1 || got[0]["action"] != "shops.block" {
			t.Errorf("entries of the risk member = %v", got)
		}
		if got := auditItems(t, env, "?action=shops.update"); len(got) != 1 {
			t.Errorf("entries of shops.update = %v", got)
		}
		// Only the roles that may read the log read or export it.
		for _, role := range []payd.StaffRole{payd.StaffSupport, payd.StaffRisk, payd.StaffFinance} {
			env.as(role, "GET", "/admin/v1/audit", nil).ExpectError(t, 403, payd.CodeForbidden, "")
			env.as(role, "GET", "/admin/v1/audit.csv", nil).ExpectError(t, 403, payd.CodeForbidden, "")
		}
		r := env.as(payd.StaffAdmin, "GET", "/admin/v1/audit.csv?object_id="+shop.ID, nil).Expect(t, 200)
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
			t.Errorf("export Content-Type %q", ct)
		}
		rows, err := csv.NewReader(strings.NewReader(string(r.Body))).ReadAll()
		if err != nil || len(rows) != 4 || rows[0][0] != "id" || rows[1][7] != "shops.unblock" {
			t.Errorf("export = %v, %v; want a header and the three entries, newest first", rows, err)
		}
	})
}

// TestStaffTokens: a token acts with its person's role as it is now,
// records its last use, and stops with its revocation or the person's
// disabling; tokens are personal.
func TestStaffTokens(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := startStaff(t, b, nil)
		finance, risk := env.ids[payd.StaffFinance], env.ids[payd.StaffRisk]
		me := env.as(payd.StaffFinance, "GET", "/admin/v1/staff/me", nil).Expect(t, 200).JSON(t)
		if me["staff_id"] != finance || me["role"] != "finance" || me["via"] != "token" {
			t.Errorf("me = %v", me)
		}
		tokens := env.as(payd.StaffFinance, "GET", "/admin/v1/staff/"+finance+"/tokens", nil).Expect(t, 200).JSON(t)["items"].([]any)
		if len(tokens) != 1 || tokens[0].(map[string]any)["last_used_at"] == nil {
			t.Fatalf("tokens = %v, want one with its last use recorded", tokens)
		}
		tokenID := tokens[0].(map[string]any)["id"].(string)

		// Personal: not even a staff admin issues one for another.
		env.as(payd.StaffAdmin, "POST", "/admin/v1/staff/"+finance+"/tokens", map[string]any{"name": "x"}).ExpectError(t, 403, payd.CodeForbidden, "")
		own := env.as(payd.StaffFinance, "POST", "/admin/v1/staff/"+finance+"/tokens", map[string]any{"name": "second"}).Expect(t, 201).JSON(t)
		env.as(payd.StaffFinance, "GET", "/admin/v1/staff/"+risk+"/tokens", nil).ExpectError(t, 403, payd.CodeForbidden, "")
		env.as(payd.StaffRisk, "POST", "/admin/v1/staff-tokens/"+tokenID+"/revoke", nil).ExpectError(t, 403, payd.CodeForbidden, "")

		// The role is read at each request.
		env.as(payd.StaffAdmin, "PATCH", "/admin/v1/staff/"+finance, map[string]any{"role": "support"}).Expect(t, 200)
		if got := env.as(payd.StaffFinance, "GET", "/admin/v1/staff/me", nil).Expect(t, 200).JSON(t)["role"]; got != "support" {
			t.Errorf("role after the change = %v", got)
		}
		env.as(payd.StaffFinance, "POST", "/admin/v1/staff-tokens/"+tokenID+"/revoke", nil).Expect(t, 200)
		env.as(payd.StaffFinance, "GET", "/admin/v1/staff/me", nil).ExpectError(t, 401, payd.CodeInvalidCredentials, "")
		second := http.Header{"Authorization": {"Bearer " + own["secret"].(string)}}
		env.Do("GET", env.Admin.URL, "/admin/v1/staff/me", nil, second).Expect(t, 200)
		env.as(payd.StaffAdmin, "PATCH", "/admin/v1/staff/"+finance, map[string]any{"disabled": true}).Expect(t, 200)
		env.Do("GET", env.Admin.URL, "/admin/v1/staff/me", nil, second).ExpectError(t, 401, payd.CodeInvalidCredentials, "")

		// The last staff admin stays one.
		env.as(payd.StaffAdmin, "PATCH", "/admin/v1/staff/"+env.ids[payd.StaffAdmin], map[string]any{"role": "risk"}).
			ExpectError(t, 422, payd.CodeInvalidState, "")
		env.as(payd.StaffAdmin, "POST", "/admin/v1/staff", map[string]any{"email": "risk@operator.test", "role": "risk"}).
			ExpectError(t, 409, payd.CodeEmailTaken, "email")
	})
}
