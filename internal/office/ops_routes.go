package office

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// The provider routes: the live routing table by region, method and
// currency, and the providers it may name. Changing or removing a route
// steers live traffic, so the API keeps either as a proposal that a
// second admin confirms on the approvals page.

func (h *Handler) providerRoutes(q *req) {
	var providers, routes struct {
		Items []map[string]any `json:"items"`
	}
	if !q.get("/admin/v1/providers", &providers) || !q.get("/admin/v1/provider-routes", &routes) {
		return
	}
	regions := []payd.Region{payd.RegionRU, payd.RegionKZ}
	var methods []string
	for _, r := range regions {
		for _, m := range payd.OfferedMethods(r) {
			if !slices.Contains(methods, m) {
				methods = append(methods, m)
			}
		}
	}
	q.render(http.StatusOK, "routes", "routes", q.l.T("Provider routes"), struct {
		Providers, Routes []map[string]any
		Regions           []payd.Region
		Methods           []string
		Currencies        []money.Currency
	}{providers.Items, routes.Items, regions, methods, money.Currencies()})
}

// putRoute proposes a route: the providers in cascade order, separated
// by commas or spaces.
func (h *Handler) putRoute(q *req) {
	f := q.r.PostForm
	providers := strings.FieldsFunc(f.Get("providers"), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	body := map[string]any{"region": f.Get("region"), "method": strings.TrimSpace(f.Get("method")), "currency": f.Get("currency"),
		"providers": providers}
	q.change(http.MethodPut, "/admin/v1/provider-routes", body, Prefix+"routes")
}

// deleteRoute proposes removing the route of a region, method and
// currency.
func (h *Handler) deleteRoute(q *req) {
	f := q.r.PostForm
	path := "/admin/v1/provider-routes/" + url.PathEscape(f.Get("region")) + "/" + url.PathEscape(f.Get("method")) + "/" +
		url.PathEscape(f.Get("currency"))
	q.change(http.MethodDelete, path, nil, Prefix+"routes")
}
