package api

import (
	"encoding/json"
	"net/http"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
)

type refundCreateIn struct {
	PaymentID *string           `json:"payment_id"`
	Amount    *httpapi.AmountIn `json:"amount"`
	Reason    string            `json:"reason"`
	Receipt   json.RawMessage   `json:"receipt"`
	Metadata  map[string]string `json:"metadata"`
}

func (s *Server) createRefund(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	var in refundCreateIn
	// order_id of a refund is copied from its payment: a request cannot set it.
	idem, err := httpapi.ReadIdempotent(w, r, &in, "order_id")
	if err != nil {
		return err
	}
	if in.PaymentID == nil || *in.PaymentID == "" {
		return payd.Invalid("payment_id", "payment_id is required")
	}
	if !payd.ValidID(payd.PrefixPayment, *in.PaymentID) {
		return payd.Invalid("payment_id", "payment_id must be a pay_ id")
	}
	amt, err := in.Amount.Parse("amount")
	if err != nil {
		return err
	}
	resp, err := s.svc.CreateRefund(r.Context(), p, idem, payd.RefundCreate{
		PaymentID: *in.PaymentID, Amount: amt, Reason: in.Reason, Metadata: in.Metadata, Receipt: receiptGiven(in.Receipt),
	})
	if err != nil {
		return err
	}
	writeResponse(w, resp)
	return nil
}

func (s *Server) getRefund(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	ref, err := s.svc.GetRefund(r.Context(), p, r.PathValue("refund_id"))
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, ref.View())
	return nil
}

func (s *Server) listRefunds(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	q := r.URL.Query()
	lp, print, err := httpapi.ParseList(q, "payment_id", "status")
	if err != nil {
		return err
	}
	params := &payd.RefundListParams{ListParams: lp, PaymentID: q.Get("payment_id")}
	if st := q.Get("status"); st != "" {
		if !payd.RefundStatus(st).Valid() {
			return payd.Invalid("status", "status must be pending, succeeded or canceled")
		}
		params.Status = payd.RefundStatus(st)
	}
	page, err := s.svc.ListRefunds(r.Context(), p, params)
	if err != nil {
		return err
	}
	items := make([]*payd.RefundJSON, 0, len(page.Items))
	for _, ref := range page.Items {
		items = append(items, ref.View())
	}
	httpapi.WriteJSON(w, http.StatusOK, listBody{Items: items, NextCursor: httpapi.EncodeCursor(page.Next, print)})
	return nil
}

func (s *Server) getBalance(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	items, err := s.svc.Balance(r.Context(), p)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"items": items})
	return nil
}
