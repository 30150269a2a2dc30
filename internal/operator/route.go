package operator

import (
	"net/http"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// listProviders names the registered providers and whether live payments
// may be routed to them: {"items": [{"name", "live"}]}.
func (s *server) listProviders(r *http.Request) (int, any, error) {
	return http.StatusOK, items[providerJSON]{views(s.svc.Providers(), providerView)}, nil
}

// listProviderRoutes is the live routing table: {"items": [route...]}.
func (s *server) listProviderRoutes(r *http.Request) (int, any, error) {
	routes, err := s.svc.ProviderRoutes(r.Context())
	return http.StatusOK, items[routeJSON]{views(routes, routeView)}, err
}

// putProviderRoute creates or replaces the live route of a region, method
// and currency: {"region", "method", "currency", "providers": [names in
// cascade order]}.
func (s *server) putProviderRoute(r *http.Request) (int, any, error) {
	var in payd.ProviderRouteSet
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	route, err := s.svc.SetProviderRoute(r.Context(), in)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, routeView(route), nil
}

// deleteProviderRoute removes the live route named by the path.
func (s *server) deleteProviderRoute(r *http.Request) (int, any, error) {
	region, method, currency := payd.Region(r.PathValue("region")), r.PathValue("method"), money.Currency(r.PathValue("currency"))
	err := s.svc.DeleteProviderRoute(r.Context(), region, method, currency)
	return http.StatusOK, struct {
		Region   payd.Region    `json:"region"`
		Method   string         `json:"method"`
		Currency money.Currency `json:"currency"`
		Deleted  bool           `json:"deleted"`
	}{region, method, currency, true}, err
}
