package operator_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// fourEyesRequests are a request of each four-eyes action and the role
// that may make it.
var fourEyesRequests = map[string]struct {
	role         payd.StaffRole
	method, path string
	body         any
}{
	"settlements.approve": {payd.StaffFinance, "POST", "/admin/v1/settlements/set_00000000000000000000000000/approve", nil},
	"settlements.pay":     {payd.StaffFinance, "POST", "/admin/v1/settlements/set_00000000000000000000000000/pay", nil},
	"payouts.unfreeze": {payd.StaffRisk, "POST", "/admin/v1/merchants/mer_00000000000000000000000000/unfreeze",
		map[string]any{"test": true, "reason": "manual_review"}},
	"shops.update_tariffs": {payd.StaffAdmin, "PATCH", "/admin/v1/shops/sh_00000000000000000000000000", map[string]any{"tariffs": []any{}}},
	"routes.put": {payd.StaffAdmin, "PUT", "/admin/v1/provider-routes",
		map[string]any{"region": "ru", "method": "bank_card", "currency": "RUB", "providers": []string{"acme_bank"}}},
	"routes.delete": {payd.StaffAdmin, "DELETE", "/admin/v1/provider-routes/ru/bank_card/RUB", nil},
}

// TestFourEyesRefuseOnePerson tries every four-eyes action with one
// person: the request becomes a proposal, and its own author cannot
// confirm it, nor can the break-glass token; a second person of the same
// role can, and another role cannot.
func TestFourEyesRefuseOnePerson(t *testing.T) {
	t.Parallel()
	env := startStaff(t, paydtest.Backends(t)[0], nil)
	for action := range payd.FourEyesActions() {
		if _, ok := fourEyesRequests[action]; !ok {
			t.Errorf("four-eyes action %s has no request in fourEyesRequests", action)
		}
	}
	for action, req := range fourEyesRequests {
		p := env.as(req.role, req.method, req.path, req.body).Expect(t, 202).JSON(t)
		if p["object"] != "proposal" || p["action"] != action || p["state"] != "pending" || p["proposed_by"] != env.ids[req.role] {
			t.Errorf("%s: proposal %v", action, p)
			continue
		}
		confirm := "/admin/v1/proposals/" + p["id"].(string) + "/confirm"
		env.as(req.role, "POST", confirm, nil).ExpectError(t, 403, payd.CodeForbidden, "")
		env.AdminDo("POST", confirm, nil).ExpectError(t, 403, payd.CodeForbidden, "")
		for _, other := range everyone {
			if other != req.role {
				env.as(other, "POST", confirm, nil).ExpectError(t, 403, payd.CodeForbidden, "")
			}
		}
		// Still pending: nothing was done.
		pending := env.as(req.role, "GET", "/admin/v1/proposals?state=pending", nil).Expect(t, 200).JSON(t)["items"].([]any)
		found := false
		for _, it := range pending {
			found = found || it.(map[string]any)["id"] == p["id"]
		}
		if !found {
			t.Errorf("%s: the proposal is no longer pending after refused confirmations", action)
		}
	}
}

// TestFourEyesUnfreeze: one risk member freezes (alone) and proposes to
// unfreeze; a second confirms, the payouts unfreeze, and the audit entry
// names both.
func TestFourEyesUnfreeze(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := startStaff(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		second := env.AdminDo("POST", "/admin/v1/staff", map[string]any{"email": "risk2@operator.test", "role": "risk"}).Expect(t, 201).JSON(t)
		tok := env.AdminDo("POST", "/admin/v1/staff/"+second["id"].(string)+"/tokens", map[string]any{"name": "t"}).Expect(t, 201).JSON(t)["secret"].(string)
		body := map[string]any{"test": true, "reason": "manual_review"}
		env.as(payd.StaffRisk, "POST", "/admin/v1/merchants/"+shop.MerchantID+"/freeze", body).Expect(t, 200)
		p := env.as(payd.StaffRisk, "POST", "/admin/v1/merchants/"+shop.MerchantID+"/unfreeze", body).Expect(t, 202).JSON(t)
		confirm := "/admin/v1/proposals/" + p["id"].(string) + "/confirm"
		st := env.Do("POST", env.Admin.URL, confirm, nil, http.Header{"Authorization": {"Bearer " + tok}}).Expect(t, 200).JSON(t)
		if st["payouts_frozen"] != false || st["unfrozen_at"] == nil {
			t.Errorf("after the confirmation: %v, want unfrozen", st)
		}
		// A confirmed proposal is done: not again.
		env.Do("POST", env.Admin.URL, confirm, nil, http.Header{"Authorization": {"Bearer " + tok}}).ExpectError(t, 422, payd.CodeInvalidState, "")
		entries := auditItems(t, env, "?action=payouts.unfreeze")
		if len(entries) != 1 || entries[0]["staff_id"] != env.ids[payd.StaffRisk] || entries[0]["confirmed_by_id"] != second["id"] {
			t.Errorf("unfreeze entries %v: want one by the proposer, confirmed by the second", entries)
		}
	})
}

// TestFourEyesProposalExpires: a proposal not confirmed within
// ProposalTTL can no longer be confirmed, and what it proposed is not done.
func TestFourEyesProposalExpires(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := startStaff(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		second := env.AdminDo("POST", "/admin/v1/staff", map[string]any{"email": "risk2@operator.test", "role": "risk"}).Expect(t, 201).JSON(t)
		tok := env.AdminDo("POST", "/admin/v1/staff/"+second["id"].(string)+"/tokens", map[string]any{"name": "t"}).Expect(t, 201).JSON(t)["secret"].(string)
		body := map[string]any{"test": true, "reason": "manual_review"}
		env.as(payd.StaffRisk, "POST", "/admin/v1/merchants/"+shop.MerchantID+"/freeze", body).Expect(t, 200)
		p := env.as(payd.StaffRisk, "POST", "/admin/v1/merchants/"+shop.MerchantID+"/unfreeze", body).Expect(t, 202).JSON(t)
		env.Clock.Advance(payd.ProposalTTL + time.Second)
		confirm := "/admin/v1/proposals/" + p["id"].(string) + "/confirm"
		env.Do("POST", env.Admin.URL, confirm, nil, http.Header{"Authorization": {"Bearer " + tok}}).ExpectError(t, 422, payd.CodeInvalidState, "")
		if entries := auditItems(t, env, "?action=payouts.unfreeze"); len(entries) != 0 {
			t.Errorf("an expired proposal was carried out: %v", entries)
		}
	})
}

// TestFourEyesProposerStillAllowed: a proposal is done in both names, so
// its author must still be allowed it when it is confirmed: after the
// author's role changes (or the author is disabled) the confirmation is
// refused and nothing is done.
func TestFourEyesProposerStillAllowed(t *testing.T) {
	t.Parallel()
	env := startStaff(t, paydtest.Backends(t)[0], nil)
	shop := env.NewShop(payd.RegionRU, "")
	second := env.AdminDo("POST", "/admin/v1/staff", map[string]any{"email": "risk2@operator.test", "role": "risk"}).Expect(t, 201).JSON(t)
	tok := env.AdminDo("POST", "/admin/v1/staff/"+second["id"].(string)+"/tokens", map[string]any{"name": "t"}).Expect(t, 201).JSON(t)["secret"].(string)
	body := map[string]any{"test": true, "reason": "manual_review"}
	env.as(payd.StaffRisk, "POST", "/admin/v1/merchants/"+shop.MerchantID+"/freeze", body).Expect(t, 200)
	p := env.as(payd.StaffRisk, "POST", "/admin/v1/merchants/"+shop.MerchantID+"/unfreeze", body).Expect(t, 202).JSON(t)
	env.AdminDo("PATCH", "/admin/v1/staff/"+env.ids[payd.StaffRisk], map[string]any{"role": "support"}).Expect(t, 200)
	confirm := "/admin/v1/proposals/" + p["id"].(string) + "/confirm"
	env.Do("POST", env.Admin.URL, confirm, nil, http.Header{"Authorization": {"Bearer " + tok}}).ExpectError(t, 403, payd.CodeForbidden, "")
	if entries := auditItems(t, env, "?action=payouts.unfreeze"); len(entries) != 0 {
		t.Errorf("a proposal of a member who may no longer do it was carried out: %v", entries)
	}
}
