package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/money"
)

type paymentCreateIn struct {
	Amount        *httpapi.AmountIn `json:"amount"`
	OrderID       *string           `json:"order_id"`
	Description   string            `json:"description"`
	Capture       *bool             `json:"capture"`
	PaymentMethod *struct {
		Type string `json:"type"`
	} `json:"payment_method"`
	Confirmation *struct {
		Type      string `json:"type"`
		ReturnURL string `json:"return_url"`
		Locale    string `json:"locale"`
	} `json:"confirmation"`
	Customer  *payd.Customer    `json:"customer"`
	Receipt   json.RawMessage   `json:"receipt"`
	ExpiresAt *time.Time        `json:"expires_at"`
	Metadata  map[string]string `json:"metadata"`
	ClientIP  string            `json:"client_ip"`
}

// receiptGiven reports a non-empty receipt: fiscalization is off in this
// build, so any receipt is refused (Stage availability).
func receiptGiven(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && !bytes.Equal(t, []byte("null")) && !bytes.Equal(t, []byte("{}"))
}

var errReceipt = &payd.Error{Code: payd.CodeReceiptInvalid, Param: "receipt",
	Message: "receipts are not accepted: the fiscalization module is not enabled in this build"}

func (s *Server) createPayment(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	var in paymentCreateIn
	idem, err := httpapi.ReadIdempotent(w, r, &in, "statement_descriptor", "merchant_display_name")
	if err != nil {
		return err
	}
	amt, err := in.Amount.Parse("amount")
	if err != nil {
		return err
	}
	if in.OrderID == nil {
		return payd.Invalid("order_id", "order_id is required")
	}
	if in.Confirmation == nil {
		return payd.Invalid("confirmation", "confirmation is required")
	}
	if in.Confirmation.Type == "" {
		in.Confirmation.Type = payd.ConfirmationRedirect
	}
	if receiptGiven(in.Receipt) {
		return errReceipt
	}
	if err := s.allow(r, "pay:"+p.KeyID, p.Shop.Settings.PaymentLimit(), "payment creation rate of this key exceeded"); err != nil {
		return err
	}
	create := payd.PaymentCreate{
		Amount: amt, OrderID: *in.OrderID, Description: in.Description, Capture: in.Capture,
		ConfirmationType: in.Confirmation.Type, ReturnURL: in.Confirmation.ReturnURL, Locale: in.Confirmation.Locale,
		Customer: in.Customer, ExpiresAt: in.ExpiresAt, Metadata: in.Metadata, ClientIP: in.ClientIP,
	}
	if in.PaymentMethod != nil {
		if in.PaymentMethod.Type == "" {
			return payd.Invalid("payment_method.type", "payment_method.type is required")
		}
		create.MethodType = in.PaymentMethod.Type
	}
	resp, err := s.svc.CreatePayment(r.Context(), p, idem, create)
	if err != nil {
		return err
	}
	writeResponse(w, resp)
	return nil
}

func (s *Server) getPayment(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	v, err := s.svc.GetPaymentView(r.Context(), p, r.PathValue("payment_id"))
	if err != nil {
		return err
	}
	httpapi.WriteRaw(w, http.StatusOK, []byte(v.JSON))
	return nil
}

func (s *Server) listPayments(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	q := r.URL.Query()
	lp, print, err := httpapi.ParseList(q, "order_id", "status", "created_at_gte", "created_at_lt")
	if err != nil {
		return err
	}
	params := &payd.PaymentListParams{ListParams: lp, OrderID: q.Get("order_id")}
	if len(params.OrderID) > 128 {
		return payd.Invalid("order_id", "order_id must be at most 128 characters")
	}
	if st := q.Get("status"); st != "" {
		if !payd.PaymentStatus(st).Valid() {
			return payd.Invalid("status", "status must be pending, waiting_for_capture, succeeded or canceled")
		}
		params.Status = payd.PaymentStatus(st)
	}
	if params.Created, err = httpapi.ParseTimeRange(q); err != nil {
		return err
	}
	page, err := s.svc.ListPayments(r.Context(), p, params)
	if err != nil {
		return err
	}
	writeRawList(w, page.Items, func(b []byte, v *payd.PaymentView) []byte { return append(b, v.JSON...) }, httpapi.EncodeCursor(page.Next, print))
	return nil
}

func (s *Server) capturePayment(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	var in struct {
		Amount  *httpapi.AmountIn `json:"amount"`
		Receipt json.RawMessage   `json:"receipt"`
	}
	idem, err := httpapi.ReadIdempotent(w, r, &in)
	if err != nil {
		return err
	}
	if receiptGiven(in.Receipt) {
		return errReceipt
	}
	var amt *money.Amount
	if in.Amount != nil {
		a, err := in.Amount.Parse("amount")
		if err != nil {
			return err
		}
		amt = &a
	}
	resp, err := s.svc.CapturePayment(r.Context(), p, idem, r.PathValue("payment_id"), amt)
	if err != nil {
		return err
	}
	writeResponse(w, resp)
	return nil
}

func (s *Server) cancelPayment(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	idem, err := httpapi.ReadIdempotent(w, r, nil)
	if err != nil {
		return err
	}
	resp, err := s.svc.CancelPayment(r.Context(), p, idem, r.PathValue("payment_id"))
	if err != nil {
		return err
	}
	writeResponse(w, resp)
	return nil
}

// simulateFunc applies a sandbox outcome, of the kind O the object's
// simulate takes, to the object named id.
type simulateFunc[O ~string] func(ctx context.Context, p *payd.Principal, idem payd.Idempotency, id string, outcome O, delay time.Duration) (*payd.Response, error)

// simulated is the handler of a sandbox simulate route (test keys only):
// it reads {outcome, delay_seconds (0..300)} and answers 202 with no body,
// or 200 for a replay, while the outcome is applied later. run checks the
// outcome against its kind's list.
func simulated[O ~string](pathParam string, run simulateFunc[O]) handler {
	return func(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
		if !p.Test() {
			return &payd.Error{Code: payd.CodeForbidden, Message: "simulate works with test keys only"}
		}
		var in struct {
			Outcome      *string `json:"outcome"`
			DelaySeconds *int    `json:"delay_seconds"`
		}
		idem, err := httpapi.ReadIdempotent(w, r, &in)
		if err != nil {
			return err
		}
		if in.Outcome == nil || *in.Outcome == "" {
			return payd.Invalid("outcome", "outcome is required")
		}
		delay := 0
		if in.DelaySeconds != nil {
			if *in.DelaySeconds < 0 || *in.DelaySeconds > 300 {
				return payd.Invalid("delay_seconds", "delay_seconds must be 0..300")
			}
			delay = *in.DelaySeconds
		}
		resp, err := run(r.Context(), p, idem, r.PathValue(pathParam), O(*in.Outcome), time.Duration(delay)*time.Second)
		if err != nil {
			return err
		}
		if resp.Replayed {
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(http.StatusOK)
			return nil
		}
		w.WriteHeader(http.StatusAccepted)
		return nil
	}
}
