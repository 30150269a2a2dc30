package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/money"
)

// linkRoutes registers the payment-link operations of stage M5;
// laterStages leaves them alone.
func (s *Server) linkRoutes() {
	s.handleStage(map[string]handler{
		"POST /v1/payment-links":                      s.createLink,
		"GET /v1/payment-links":                       s.listLinks,
		"GET /v1/payment-links/{link_id}":             s.getLink,
		"POST /v1/payment-links/{link_id}/deactivate": s.deactivateLink,
	})
}

type linkCreateIn struct {
	Description *string           `json:"description"`
	Amount      *httpapi.AmountIn `json:"amount"`
	MinAmount   *httpapi.AmountIn `json:"min_amount"`
	MaxAmount   *httpapi.AmountIn `json:"max_amount"`
	OrderID     *string           `json:"order_id"`
	Capture     *bool             `json:"capture"`
	Reusable    *bool             `json:"reusable"`
	ExpiresAt   *time.Time        `json:"expires_at"`
	ReturnURL   *string           `json:"return_url"`
	Receipt     json.RawMessage   `json:"receipt"`
	Customer    *payd.Customer    `json:"customer"`
	Metadata    map[string]string `json:"metadata"`
}

func (s *Server) createLink(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	var in linkCreateIn
	idem, err := httpapi.ReadIdempotent(w, r, &in, "id", "url", "status", "created_at", "test", "payments")
	if err != nil {
		return err
	}
	if in.Description == nil {
		return payd.Invalid("description", "description is required")
	}
	create := payd.PaymentLinkCreate{Description: *in.Description, Capture: in.Capture, ExpiresAt: in.ExpiresAt,
		Customer: in.Customer, Metadata: in.Metadata}
	for _, f := range []struct {
		name string
		in   *httpapi.AmountIn
		dst  **money.Amount
	}{{"amount", in.Amount, &create.Amount}, {"min_amount", in.MinAmount, &create.MinAmount}, {"max_amount", in.MaxAmount, &create.MaxAmount}} {
		if f.in == nil {
			continue
		}
		a, err := f.in.Parse(f.name)
		if err != nil {
			return err
		}
		*f.dst = &a
	}
	if in.OrderID != nil {
		if *in.OrderID == "" {
			return payd.Invalid("order_id", "order_id must be 1..128 characters when given")
		}
		create.OrderID = *in.OrderID
	}
	if in.Reusable != nil {
		create.Reusable = *in.Reusable
	}
	if in.ReturnURL != nil {
		if *in.ReturnURL == "" {
			return payd.Invalid("return_url", "return_url must be an https:// address when given")
		}
		create.ReturnURL = *in.ReturnURL
	}
	if receiptGiven(in.Receipt) {
		return errReceipt
	}
	resp, err := s.svc.CreatePaymentLink(r.Context(), p, idem, create)
	if err != nil {
		return err
	}
	writeResponse(w, resp)
	return nil
}

func (s *Server) getLink(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	l, err := s.svc.GetPaymentLink(r.Context(), p, r.PathValue("link_id"))
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, l.View(s.svc.LinkURL(l.ID)))
	return nil
}

func (s *Server) listLinks(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	lp, print, err := httpapi.ParseList(r.URL.Query())
	if err != nil {
		return err
	}
	page, err := s.svc.ListPaymentLinks(r.Context(), p, &payd.PaymentLinkListParams{ListParams: lp})
	if err != nil {
		return err
	}
	items := make([]*payd.PaymentLinkJSON, 0, len(page.Items))
	for _, l := range page.Items {
		items = append(items, l.View(s.svc.LinkURL(l.ID)))
	}
	httpapi.WriteJSON(w, http.StatusOK, listBody{Items: items, NextCursor: httpapi.EncodeCursor(page.Next, print)})
	return nil
}

func (s *Server) deactivateLink(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	idem, err := httpapi.ReadIdempotent(w, r, nil)
	if err != nil {
		return err
	}
	resp, err := s.svc.DeactivatePaymentLink(r.Context(), p, idem, r.PathValue("link_id"))
	if err != nil {
		return err
	}
	writeResponse(w, resp)
	return nil
}
