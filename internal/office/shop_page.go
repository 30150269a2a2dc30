package office

import (
	"net/http"
	"net/url"
	"slices"

	"github.com/paydhq/payd"
)

// The shop's page: its facts and state, the state's actions, its
// settings and its API keys.

// shopForms are the shop's settings forms. Tariffs have a form of their
// own: a change of them waits for a second person (the API's
// refineAction names it shops.update_tariffs), and the other settings
// need not wait with it.
var shopForms = map[string]settingsForm{
	"general": {name: "general", fields: []field{
		{name: "display_name"}, {name: "statement_name"}, {name: "time_zone"},
		{name: "requests_per_minute", kind: numberField}, {name: "payments_per_minute", kind: numberField},
		{name: "payment_lifetime_seconds", kind: numberField},
		{name: "ip_allowlist", kind: linesField}, {name: "embed_origins", kind: linesField},
		{name: "methods_disabled", kind: linesField}}},
	"tariffs": {name: "tariffs", fields: []field{{name: "tariffs", kind: rowsField, rows: []field{
		{name: "method"}, {name: "currency"}, {name: "percent_bps", kind: numberField}, {name: "fixed", kind: numberField},
		{name: "min", kind: numberField}, {name: "hold_days", kind: numberField}, {name: "no_fee_return", kind: flagField}}}}},
}

// shopView is the shop's page.
type shopView struct {
	S       map[string]any
	Keys    []map[string]any
	Actions []shopAction
	Form    formState
	Has     map[string]map[string]bool
	// Rows are the tariff rows' indexes: the shop's tariffs and one empty
	// row to add one.
	Rows []int
	// Issued is a key just issued, with its secret, shown this once.
	Issued map[string]any
}

// shopAction is a change of the shop's state and the permission it
// asks (the API's shopActionPerms).
type shopAction struct{ Name, Perm string }

// shopActions are the state changes open to the shop s.
func shopActions(s map[string]any) []shopAction {
	var out []shopAction
	if s["activated_at"] == nil {
		out = append(out, shopAction{string(payd.ShopActivate), string(payd.StaffMerchants)})
	}
	state := func(on bool, set, unset payd.ShopAction) {
		a := set
		if on {
			a = unset
		}
		out = append(out, shopAction{string(a), string(payd.StaffShopState)})
	}
	state(s["blocked"] == true, payd.ShopBlock, payd.ShopUnblock)
	state(s["payments_suspended"] == true, payd.ShopSuspend, payd.ShopResume)
	return out
}

func (h *Handler) shop(q *req) {
	h.renderShop(q, http.StatusOK, formState{}, nil)
}

// renderShop shows the shop's page, with the forms' state st and a key
// just issued.
func (h *Handler) renderShop(q *req, status int, st formState, issued map[string]any) {
	base := "/admin/v1/shops/" + url.PathEscape(q.r.PathValue("id"))
	v := shopView{Issued: issued, Has: map[string]map[string]bool{}}
	var keys struct {
		Items []map[string]any `json:"items"`
	}
	if !q.get(base, &v.S) || !q.get(base+"/keys", &keys) {
		return
	}
	v.Keys, v.Actions = keys.Items, shopActions(v.S)
	v.Form = st.of(v.S["settings"])
	for i := range rowCount(v.Form.Vals, "tariffs") + 1 {
		v.Rows = append(v.Rows, i)
	}
	for name, f := range shopForms {
		v.Has[name] = inputNames(f, len(v.Rows))
	}
	title, _ := v.S["name"].(string)
	q.render(status, "shop", "merchants", title, v)
}

// changeShopState activates, blocks, unblocks, suspends or resumes the
// shop.
func (h *Handler) changeShopState(q *req) {
	action := q.r.PathValue("action")
	if !slices.Contains(payd.ShopActionAll(), payd.ShopAction(action)) {
		q.problem(http.StatusNotFound, q.l.T("There is no such object."))
		return
	}
	id := url.PathEscape(q.r.PathValue("id"))
	q.change(http.MethodPost, "/admin/v1/shops/"+id+"/"+action, nil, Prefix+"shops/"+id)
}

// updateShop changes the part of the shop's settings one form holds.
func (h *Handler) updateShop(q *req) {
	id := url.PathEscape(q.r.PathValue("id"))
	q.submit(shopForms, http.MethodPatch, "/admin/v1/shops/"+id, Prefix+"shops/"+id, func(status int, st formState) {
		h.renderShop(q, status, st, nil)
	})
}

// issueKey issues a key of the shop and shows its secret this once.
func (h *Handler) issueKey(q *req) {
	a := q.call(http.MethodPost, "/admin/v1/shops/"+url.PathEscape(q.r.PathValue("id"))+"/keys",
		map[string]string{"mode": q.r.PostForm.Get("mode")})
	if !a.ok() {
		q.refused(a)
		return
	}
	var key map[string]any
	if err := a.decode(&key); err != nil {
		q.problem(http.StatusBadGateway, q.l.T("Something went wrong; try again."))
		return
	}
	h.renderShop(q, http.StatusOK, formState{}, key)
}

// revokeKey revokes a key of the shop; it stops working at once.
func (h *Handler) revokeKey(q *req) {
	q.change(http.MethodPost, "/admin/v1/keys/"+url.PathEscape(q.r.PathValue("key"))+"/revoke", nil,
		Prefix+"shops/"+url.PathEscape(q.r.PathValue("id")))
}
