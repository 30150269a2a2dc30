package api

import (
	"net/http"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
)

// payoutRoutes registers the stage M5 payout operations; laterStages
// leaves them alone.
func (s *Server) payoutRoutes() {
	s.handleStage(map[string]handler{
		"POST /v1/payouts":            s.createPayout,
		"GET /v1/payouts":             s.listPayouts,
		"GET /v1/payouts/{payout_id}": s.getPayout,
	})
}

// destinationIn is PayoutDestination as sent: every field of every kind,
// so that the service can refuse one that does not belong to the kind.
type destinationIn struct {
	Type          *payd.DestinationType `json:"type"`
	CardToken     *string               `json:"card_token"`
	Phone         *string               `json:"phone"`
	BankID        *string               `json:"bank_id"`
	AccountNumber *string               `json:"account_number"`
	BIC           *string               `json:"bic"`
}

func (d *destinationIn) read() (payd.PayoutDestination, error) {
	if d == nil {
		return payd.PayoutDestination{}, payd.Invalid("destination", "destination is required")
	}
	var out payd.PayoutDestination
	if d.Type != nil {
		out.Type = *d.Type
		if out.Type == "" {
			return out, payd.Invalid("destination.type", "destination.type must be card, sbp or bank_account")
		}
	}
	for _, f := range []struct {
		name string
		in   *string
		dst  *string
	}{{"card_token", d.CardToken, &out.CardToken}, {"phone", d.Phone, &out.Phone}, {"bank_id", d.BankID, &out.BankID},
		{"account_number", d.AccountNumber, &out.AccountNumber}, {"bic", d.BIC, &out.BIC}} {
		if f.in != nil {
			*f.dst = *f.in
			out.Given = append(out.Given, f.name)
		}
	}
	return out, nil
}

type payoutCreateIn struct {
	Amount      *httpapi.AmountIn `json:"amount"`
	Destination *destinationIn    `json:"destination"`
	Description string            `json:"description"`
	OrderID     *string           `json:"order_id"`
	Metadata    map[string]string `json:"metadata"`
}

func (s *Server) createPayout(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	var in payoutCreateIn
	idem, err := httpapi.ReadIdempotent(w, r, &in)
	if err != nil {
		return err
	}
	amt, err := in.Amount.Parse("amount")
	if err != nil {
		return err
	}
	dest, err := in.Destination.read()
	if err != nil {
		return err
	}
	orderID := ""
	if in.OrderID != nil {
		if *in.OrderID == "" {
			return payd.Invalid("order_id", "order_id must be 1..128 characters")
		}
		orderID = *in.OrderID
	}
	resp, err := s.svc.CreatePayout(r.Context(), p, idem, payd.PayoutCreate{Amount: amt, Destination: dest,
		Description: in.Description, OrderID: orderID, Metadata: in.Metadata})
	if err != nil {
		return err
	}
	writeResponse(w, resp)
	return nil
}

func (s *Server) getPayout(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	po, err := s.svc.GetPayout(r.Context(), p, r.PathValue("payout_id"))
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, po.View())
	return nil
}

func (s *Server) listPayouts(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	q := r.URL.Query()
	lp, print, err := httpapi.ParseList(q, "status", "order_id", "created_at_gte", "created_at_lt")
	if err != nil {
		return err
	}
	params := &payd.PayoutListParams{ListParams: lp, OrderID: q.Get("order_id")}
	if len(params.OrderID) > 128 {
		return payd.Invalid("order_id", "order_id is at most 128 characters")
	}
	if st := q.Get("status"); st != "" {
		if !payd.PayoutStatus(st).Valid() {
			return payd.Invalid("status", "status must be pending, processing, succeeded or canceled")
		}
		params.Status = payd.PayoutStatus(st)
	}
	if params.Created, err = httpapi.ParseTimeRange(q); err != nil {
		return err
	}
	page, err := s.svc.ListPayouts(r.Context(), p, params)
	if err != nil {
		return err
	}
	items := make([]*payd.PayoutJSON, 0, len(page.Items))
	for _, po := range page.Items {
		items = append(items, po.View())
	}
	httpapi.WriteJSON(w, http.StatusOK, listBody{Items: items, NextCursor: httpapi.EncodeCursor(page.Next, print)})
	return nil
}
