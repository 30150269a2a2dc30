package office

import (
	"net/http"
	"net/url"

	"github.com/paydhq/payd"
)

// merchantPages are the pages of merchants and their shops.
func merchantPages(h *Handler) []page {
	return []page{
		{method: get, path: "merchants", fn: h.merchants},
		{method: get, path: "merchants/{id}", fn: h.merchant},
		{method: post, path: "merchants/{id}/settings", fn: h.updateMerchant},
		{method: post, path: "merchants/{id}/freeze", fn: h.freezeMerchant},
		{method: post, path: "merchants/{id}/unfreeze", fn: h.freezeMerchant},
		{method: post, path: "merchants/{id}/users", fn: h.createMerchantUser},
		{method: post, path: "merchants/{id}/users/{user}/setup-link", fn: h.merchantUserSetupLink},
		{method: get, path: "shops/{id}", fn: h.shop},
		{method: post, path: "shops/{id}/settings", fn: h.updateShop},
		{method: post, path: "shops/{id}/keys", fn: h.issueKey},
		{method: post, path: "shops/{id}/keys/{key}/revoke", fn: h.revokeKey},
		{method: post, path: "shops/{id}/{action}", fn: h.changeShopState},
	}
}

// merchants pages the merchants, newest first.
func (h *Handler) merchants(q *req) {
	out := url.Values{"limit": {"50"}}
	if c := q.r.URL.Query().Get("cursor"); c != "" {
		out.Set("cursor", c)
	}
	list, next, ok := q.pageOf("/admin/v1/merchants", "merchants", out, nil)
	if !ok {
		return
	}
	q.render(http.StatusOK, "merchants", "merchants", q.l.T("Merchants"), struct {
		Items []map[string]any
		Next  string
	}{list.Items, next})
}

// merchantForms are the merchant's settings forms, one per permission
// that governs its part (the API's merchantUpdatePerms): the chargeback
// rule is the risk team's, the settlement terms finance's, the
// second-factor policy the admins'.
var merchantForms = map[string]settingsForm{
	"chargeback": {name: "chargeback", fields: []field{
		{name: "chargeback.ratio_bps", kind: numberField}, {name: "chargeback.window_days", kind: numberField},
		{name: "chargeback.min_count", kind: numberField}}},
	"terms": {name: "terms", fields: []field{
		{name: "settlement_delay_days", kind: numberField}, {name: "auto_settle", kind: flagField}}},
	"second_factor": {name: "second_factor", fields: []field{{name: "require_second_factor", kind: flagField}}},
}

// merchantView is the merchant's page.
type merchantView struct {
	M         map[string]any
	Shops     []map[string]any
	MoreShops bool
	// Balances are the trial balances of the live and the test contour.
	Balances        []contourBalance
	Users           []map[string]any
	Audit           []map[string]any
	AuditNext       string
	Form            formState
	Has             map[string]map[string]bool
	Reasons         []payd.FreezeReason
	Roles           []payd.Role
	Link, LinkEmail string
}

// contourBalance is a contour's trial balance: by currency, each
// bucket's sum.
type contourBalance struct {
	Mode payd.Mode
	Sums map[string]map[string]any
}

func (h *Handler) merchant(q *req) {
	h.renderMerchant(q, http.StatusOK, formState{}, "", "")
}

// renderMerchant shows the merchant's page: its facts and forms, shops,
// trial balances, dashboard users and (to the audit's role) its audit
// log; link is a setup link just issued to email, shown this once.
func (h *Handler) renderMerchant(q *req, status int, st formState, link, email string) {
	id := url.PathEscape(q.r.PathValue("id"))
	base := "/admin/v1/merchants/" + id
	v := merchantView{Reasons: payd.FreezeReasonAll(), Roles: payd.RoleAll(), Link: link, LinkEmail: email,
		Has: map[string]map[string]bool{}}
	var shops listPage
	var users struct {
		Items []map[string]any `json:"items"`
	}
	v.Balances = []contourBalance{{Mode: payd.ModeLive}, {Mode: payd.ModeTest}}
	if !q.get(base, &v.M) || !q.get("/admin/v1/shops?"+url.Values{"merchant_id": {q.r.PathValue("id")}, "limit": {"100"}}.Encode(), &shops) ||
		!q.get(base+"/balance", &v.Balances[0].Sums) || !q.get(base+"/balance?test=true", &v.Balances[1].Sums) || !q.get(base+"/users", &users) {
		return
	}
	v.Shops, v.MoreShops, v.Users = shops.Items, shops.NextCursor != nil, users.Items
	if q.can(payd.StaffAudit) {
		in := url.Values{"limit": {"20"}}
		if c := q.r.URL.Query().Get("audit_cursor"); c != "" {
			in.Set("cursor", c)
		}
		var audit listPage
		if !q.get(base+"/audit?"+in.Encode(), &audit) {
			return
		}
		v.Audit = audit.Items
		if audit.NextCursor != nil {
			v.AuditNext = Prefix + "merchants/" + id + "?audit_cursor=" + url.QueryEscape(*audit.NextCursor) + "#audit"
		}
	}
	v.Form = st.of(v.M)
	for name, f := range merchantForms {
		v.Has[name] = inputNames(f, 0)
	}
	title, _ := v.M["name"].(string)
	q.render(status, "merchant", "merchants", title, v)
}

// updateMerchant changes the part of the merchant's settings one form
// holds.
func (h *Handler) updateMerchant(q *req) {
	id := url.PathEscape(q.r.PathValue("id"))
	q.submit(merchantForms, http.MethodPatch, "/admin/v1/merchants/"+id, Prefix+"merchants/"+id, func(status int, st formState) {
		h.renderMerchant(q, status, st, "", "")
	})
}

// freezeMerchant freezes or unfreezes the merchant's payouts in one
// contour; unfreezing is proposed for a second person's confirmation.
func (h *Handler) freezeMerchant(q *req) {
	id := url.PathEscape(q.r.PathValue("id"))
	action := "freeze"
	body := map[string]any{"test": q.r.PostForm.Get("test") == "true"}
	if q.r.URL.Path == Prefix+"merchants/"+q.r.PathValue("id")+"/unfreeze" {
		action = "unfreeze"
	} else {
		body["reason"] = q.r.PostForm.Get("reason")
	}
	q.change(http.MethodPost, "/admin/v1/merchants/"+id+"/"+action, body, Prefix+"merchants/"+id)
}

// createMerchantUser adds a dashboard user of the merchant and shows its
// setup link once.
func (h *Handler) createMerchantUser(q *req) {
	body := map[string]string{"email": q.r.PostForm.Get("email"), "role": q.r.PostForm.Get("role")}
	h.withUserLink(q, "/admin/v1/merchants/"+url.PathEscape(q.r.PathValue("id"))+"/users", body)
}

// merchantUserSetupLink issues a new setup link of a dashboard user; the
// previous one stops working.
func (h *Handler) merchantUserSetupLink(q *req) {
	h.withUserLink(q, "/admin/v1/merchants/"+url.PathEscape(q.r.PathValue("id"))+"/users/"+
		url.PathEscape(q.r.PathValue("user"))+"/setup_link", nil)
}

func (h *Handler) withUserLink(q *req, path string, body any) {
	a := q.call(http.MethodPost, path, body)
	if !a.ok() {
		q.refused(a)
		return
	}
	var u struct {
		Email    string `json:"email"`
		SetupURL string `json:"setup_url"`
	}
	if err := a.decode(&u); err != nil {
		q.problem(http.StatusBadGateway, q.l.T("Something went wrong; try again."))
		return
	}
	h.renderMerchant(q, http.StatusOK, formState{}, u.SetupURL, u.Email)
}
