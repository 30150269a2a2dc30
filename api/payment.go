package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// amountIn is an Amount as a request carries it, checked field by field so
// that errors name amount.value or amount.currency.
type amountIn struct {
	Value    *string `json:"value"`
	Currency *string `json:"currency"`
}

func (a *amountIn) parse(param string) (money.Amount, error) {
	if a == nil {
		return money.Amount{}, invalidf(param, "%s is required", param)
	}
	if a.Value == nil {
		return money.Amount{}, invalidf(param+".value", "%s.value is required", param)
	}
	v, err := money.ParseValue(*a.Value)
	if err != nil {
		return money.Amount{}, invalidf(param+".value", "%s.value %v", param, err)
	}
	if a.Currency == nil || !money.Currency(*a.Currency).Valid() {
		return money.Amount{}, invalidf(param+".currency", "%s.currency must be one of RUB, KZT, USD, EUR", param)
	}
	return money.New(v, money.Currency(*a.Currency)), nil
}

type paymentCreateIn struct {
	Amount        *amountIn `json:"amount"`
	OrderID       *string   `json:"order_id"`
	Description   string    `json:"description"`
	Capture       *bool     `json:"capture"`
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
	idem, err := readIdempotent(w, r, &in, "statement_descriptor", "merchant_display_name")
	if err != nil {
		return err
	}
	amt, err := in.Amount.parse("amount")
	if err != nil {
		return err
	}
	if in.OrderID == nil {
		return invalidf("order_id", "order_id is required")
	}
	if in.Confirmation == nil {
		return invalidf("confirmation", "confirmation is required")
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
			return invalidf("payment_method.type", "payment_method.type is required")
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
	pay, err := s.svc.GetPayment(r.Context(), p, r.PathValue("payment_id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, pay.View(""))
	return nil
}

func (s *Server) listPayments(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	q := r.URL.Query()
	lp, print, err := parseList(q, "order_id", "status", "created_at_gte", "created_at_lt")
	if err != nil {
		return err
	}
	params := &payd.PaymentListParams{ListParams: lp, OrderID: q.Get("order_id")}
	if len(params.OrderID) > 128 {
		return invalidf("order_id", "order_id must be at most 128 characters")
	}
	if st := q.Get("status"); st != "" {
		if !payd.PaymentStatus(st).Valid() {
			return invalidf("status", "status must be pending, waiting_for_capture, succeeded or canceled")
		}
		params.Status = payd.PaymentStatus(st)
	}
	if params.Created, err = parseTimeRange(q); err != nil {
		return err
	}
	page, err := s.svc.ListPayments(r.Context(), p, params)
	if err != nil {
		return err
	}
	writeRawList(w, page.Items, func(v *payd.PaymentView) []byte { return v.JSON }, encodeCursor(page.Next, print))
	return nil
}

func (s *Server) capturePayment(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	var in struct {
		Amount  *amountIn       `json:"amount"`
		Receipt json.RawMessage `json:"receipt"`
	}
	idem, err := readIdempotent(w, r, &in)
	if err != nil {
		return err
	}
	if receiptGiven(in.Receipt) {
		return errReceipt
	}
	var amt *money.Amount
	if in.Amount != nil {
		a, err := in.Amount.parse("amount")
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
	idem, err := readIdempotent(w, r, nil)
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

// simulateFunc applies a sandbox outcome to the object named id.
type simulateFunc func(ctx context.Context, p *payd.Principal, idem payd.Idempotency, id, outcome string, delay time.Duration) (*payd.Response, error)

// simulated is the handler of a sandbox simulate route (test keys only):
// it reads {outcome, delay_seconds (0..300)} and answers 202 with no body,
// or 200 for a replay, while the outcome is applied later.
func simulated(pathParam string, run simulateFunc) handler {
	return func(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
		if !p.Test() {
			return &payd.Error{Code: payd.CodeForbidden, Message: "simulate works with test keys only"}
		}
		var in struct {
			Outcome      *string `json:"outcome"`
			DelaySeconds *int    `json:"delay_seconds"`
		}
		idem, err := readIdempotent(w, r, &in)
		if err != nil {
			return err
		}
		if in.Outcome == nil || *in.Outcome == "" {
			return invalidf("outcome", "outcome is required")
		}
		delay := 0
		if in.DelaySeconds != nil {
			if *in.DelaySeconds < 0 || *in.DelaySeconds > 300 {
				return invalidf("delay_seconds", "delay_seconds must be 0..300")
			}
			delay = *in.DelaySeconds
		}
		resp, err := run(r.Context(), p, idem, r.PathValue(pathParam), *in.Outcome, time.Duration(delay)*time.Second)
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
