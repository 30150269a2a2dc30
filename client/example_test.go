package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/client"
	"github.com/paydhq/payd/internal/serve"
	"github.com/paydhq/payd/webhook"
)

// sandbox is a payd on SQLite in a temporary folder with one shop, for the
// examples: what `make run` gives a developer, in-process.
type sandbox struct {
	baseURL, shopID, secretKey string
	stop                       func()
}

func startSandbox(stage payd.Stage) *sandbox {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "payd-example-")
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	in, err := serve.New(ctx, serve.Config{
		DataDir: dir, AdminToken: "adm_example_xxxxxxxxxxxx", TestClock: true, Stage: stage,
		PublicURL: "http://" + ln.Addr().String(), JobPollInterval: 50 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		panic(err)
	}
	if err := in.Start(ctx); err != nil {
		panic(err)
	}
	api := &httptest.Server{Listener: ln, Config: &http.Server{Handler: in.API}}
	api.Start()
	admin := httptest.NewServer(in.Admin)
	operator := func(path string, body any) map[string]any {
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", admin.URL+path, bytes.NewReader(raw))
		req.Header.Set("Authorization", "Bearer adm_example_xxxxxxxxxxxx")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return out
	}
	merchant := operator("/admin/v1/merchants", map[string]any{"name": "Book Shop"})
	shop := operator("/admin/v1/shops", map[string]any{"merchant_id": merchant["id"], "region": "ru", "name": "Books"})
	key := operator("/admin/v1/shops/"+shop["id"].(string)+"/keys", map[string]any{"mode": "test"})
	return &sandbox{
		baseURL: api.URL + "/v1", shopID: shop["id"].(string), secretKey: key["secret"].(string),
		stop: func() {
			api.Close()
			admin.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			in.Close(ctx)
			os.RemoveAll(dir)
		},
	}
}

// A QR payment, paid in the sandbox, then part of it refunded.
func Example() {
	sb := startSandbox(0)
	defer sb.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	c, err := client.New(sb.baseURL, sb.shopID, sb.secretKey)
	if err != nil {
		panic(err)
	}
	p, err := c.CreatePayment(ctx, client.PaymentCreate{
		Amount:       client.Amt("1500.00", client.RUB),
		OrderID:      "order-1001",
		Description:  client.Ptr("Two books"),
		Confirmation: client.QR(),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Status, p.Confirmation.Type)

	// In the sandbox, the payer's bank answers when asked to. The answer
	// is 202: the outcome arrives a moment later, so wait for it before
	// the next step.
	if err := c.SimulatePayment(ctx, p.ID, client.SimulateRequest{Outcome: client.SimulateRequestOutcomeSucceed}); err != nil {
		panic(err)
	}
	if p, err = c.WaitPayment(ctx, p.ID); err != nil {
		panic(err)
	}
	fmt.Println(p.Status, p.CapturedAmount.Value)

	r, err := c.CreateRefund(ctx, client.RefundCreate{PaymentID: p.ID, Amount: client.Amt("500.00", client.RUB)})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Status, r.Amount.Value)
	// Output:
	// pending qr
	// succeeded 1500.00
	// pending 500.00
}

// A two-stage payment: the wait ends when the sandbox bank has authorized
// it, and the capture follows.
func ExampleClient_WaitPayment() {
	sb := startSandbox(0)
	defer sb.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _ := client.New(sb.baseURL, sb.shopID, sb.secretKey)
	p, err := c.CreatePayment(ctx, client.PaymentCreate{
		Amount: client.Amt("990.00", client.RUB), OrderID: "order-78", Confirmation: client.QR(),
		Capture: client.Ptr(false),
	})
	if err != nil {
		panic(err)
	}
	if err := c.SimulatePayment(ctx, p.ID, client.SimulateRequest{Outcome: client.SimulateRequestOutcomeAuthorize}); err != nil {
		panic(err)
	}
	p, err = c.WaitPayment(ctx, p.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Status)
	p, err = c.CapturePayment(ctx, p.ID, client.PaymentCapture{})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Status, p.CapturedAmount.Value)
	// Output:
	// waiting_for_capture
	// succeeded 990.00
}

// Every payment of the shop, across pages of two.
func ExampleClient_ListPayments() {
	sb := startSandbox(0)
	defer sb.stop()
	ctx := context.Background()
	c, _ := client.New(sb.baseURL, sb.shopID, sb.secretKey)
	for i := range 3 {
		c.CreatePayment(ctx, client.PaymentCreate{
			Amount: client.Amt("100.00", client.RUB), OrderID: fmt.Sprintf("order-%d", i), Confirmation: client.QR(),
		})
	}

	for p, err := range c.ListPayments(ctx, client.ListPaymentsParams{Limit: client.Ptr(2)}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(p.OrderID, p.Amount.Value)
	}
	// Output:
	// order-2 100.00
	// order-1 100.00
	// order-0 100.00
}

// A retried call is a replay: with the caller's own key, the second call
// returns the payment the first one created.
func ExampleWithIdempotencyKey() {
	sb := startSandbox(0)
	defer sb.stop()
	ctx := context.Background()
	c, _ := client.New(sb.baseURL, sb.shopID, sb.secretKey)
	order := client.PaymentCreate{
		Amount: client.Amt("990.00", client.RUB), OrderID: "order-77",
		Confirmation: client.Redirect("https://books.example.com/orders/77"),
	}

	first, _ := c.CreatePayment(ctx, order, client.WithIdempotencyKey("order-77-payment"))
	again, _ := c.CreatePayment(ctx, order, client.WithIdempotencyKey("order-77-payment"))
	fmt.Println(first.ID == again.ID)
	// Output: true
}

// The service's errors are *client.Error, with the field at fault.
func ExampleError() {
	sb := startSandbox(0)
	defer sb.stop()
	c, _ := client.New(sb.baseURL, sb.shopID, sb.secretKey)

	_, err := c.CreatePayment(context.Background(), client.PaymentCreate{
		Amount: client.Amt("10.001", client.RUB), OrderID: "order-5", Confirmation: client.QR(),
	})
	var apiErr *client.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.HTTPStatus, apiErr.Code, apiErr.Parameter)
	}
	// Output: 400 invalid_request amount.value
}

// An operation of a later stage than the service's names the stage.
func ExampleErrNotImplemented() {
	sb := startSandbox(0) // stage v1: no payouts yet
	defer sb.stop()
	c, _ := client.New(sb.baseURL, sb.shopID, sb.secretKey)

	_, err := c.GetPayout(context.Background(), "po_01")
	var apiErr *client.Error
	if errors.Is(err, client.ErrNotImplemented) && errors.As(err, &apiErr) {
		fmt.Println("needs stage", apiErr.Stage)
	}
	// Output: needs stage M5
}

// A webhook handler: verify, decode, acknowledge.
func ExampleConstructEvent() {
	secret := "whsec_example" // from CreateWebhookEndpoint
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		ev, err := client.ConstructEvent(body, r.Header.Get(webhook.SignatureHeader), secret)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		switch obj := ev.Data.Object.(type) {
		case *client.Payment:
			fmt.Println(ev.Type, obj.ID, obj.Status)
		case *client.Refund:
			fmt.Println(ev.Type, obj.ID, obj.Status)
		default:
			// Unknown kinds are acknowledged and skipped.
		}
		w.WriteHeader(http.StatusOK)
	})

	// A delivery as payd sends it.
	body := []byte(`{"id":"evt_1","type":"payment.succeeded","created_at":"2026-11-25T10:00:00Z","test":true,` +
		`"data":{"object_type":"payment","object":{"id":"pay_1","status":"succeeded"}}}`)
	req := httptest.NewRequest("POST", "/hook", bytes.NewReader(body))
	req.Header.Set(webhook.SignatureHeader, webhook.Header(time.Now(), body, secret))
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	fmt.Println(rec.Code)
	// Output:
	// payment.succeeded pay_1 succeeded
	// 200
}
