package api

import (
	"net/http"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/money"
)

func (s *Server) getShop(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	v, err := s.svc.ShopForPrincipal(r.Context(), p)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, v)
	return nil
}

func (s *Server) listPaymentMethods(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	c := money.Currency(r.URL.Query().Get("currency"))
	if c != "" && !c.Valid() {
		return payd.Invalid("currency", "currency must be one of RUB, KZT, USD, EUR")
	}
	items, err := s.svc.PaymentMethods(r.Context(), p, c)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"items": items})
	return nil
}
