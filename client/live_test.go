package client_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/client"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/webhook"
)

// receiver is a merchant's webhook endpoint: a TLS server that keeps what
// it was sent.
type receiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []delivery
}

type delivery struct {
	signature string
	body      []byte
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{}
	rc.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, delivery{r.Header.Get(webhook.SignatureHeader), body})
		rc.mu.Unlock()
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivery(nil), rc.got...)
}

// start runs payd at stage M5 with the receiver's loopback host allowed
// and its certificate trusted, and returns a client of a new shop.
func start(t *testing.T, b paydtest.Backend, rc *receiver, stage payd.Stage, opts ...client.Option) (*paydtest.Env, *paydtest.Shop, *client.Client) {
	o := &paydtest.Options{Stage: stage}
	if rc != nil {
		pool := x509.NewCertPool()
		pool.AddCert(rc.srv.Certificate())
		o.WebhookAllowHosts, o.WebhookRootCAs = []string{"127.0.0.1"}, pool
	}
	env := paydtest.Start(t, b, o)
	shop := env.NewShop(payd.RegionRU, "")
	c, err := client.New(env.API.URL+"/v1", shop.ID, shop.TestKey, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return env, shop, c
}

var orderSeq struct {
	sync.Mutex
	n int
}

func orderID() string {
	orderSeq.Lock()
	defer orderSeq.Unlock()
	orderSeq.n++
	return fmt.Sprintf("order-%d-%d", time.Now().UnixNano(), orderSeq.n)
}

func newPayment(value string, conf client.ConfirmationRequest) client.PaymentCreate {
	return client.PaymentCreate{
		Amount: client.Amt(value, client.RUB), OrderID: orderID(),
		Description: client.Ptr("Order with two books"), Confirmation: conf,
	}
}

// waitPayment polls until the payment reaches status (outcomes arrive
// through jobs, a little after the call that caused them).
func waitPayment(t *testing.T, c *client.Client, id string, status client.PaymentStatus) *client.Payment {
	t.Helper()
	var last *client.Payment
	paydtest.Eventually(t, "payment "+id+" to be "+string(status), func() bool {
		p, err := c.GetPayment(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		last = p
		return p.Status == status
	})
	return last
}

// TestMerchantWalk is what a merchant's integration does, through the
// client, against a real payd: payments of both confirmations, the
// sandbox, a two-stage capture, a refund, every payment across pages, the
// balance, a signed webhook delivery and a validation error.
func TestMerchantWalk(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := context.Background()
		rc := newReceiver(t)
		_, _, c := start(t, b, rc, payd.StageM5)

		ep, err := c.CreateWebhookEndpoint(ctx, client.WebhookEndpointCreate{
			URL: rc.srv.URL + "/hook", Events: []client.EventType{"payment.succeeded"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if ep.Secret == "" || ep.Status != "active" {
			t.Fatalf("endpoint = %+v", ep)
		}

		// A redirect payment: pending with a hosted page. The same key
		// again is a replay of the same payment, not a second one.
		body := newPayment("100.00", client.Redirect("https://shop.example.com/return"))
		redirect, err := c.CreatePayment(ctx, body, client.WithIdempotencyKey("redirect-0001"))
		if err != nil {
			t.Fatal(err)
		}
		if redirect.Status != client.PaymentStatusPending || redirect.Confirmation == nil ||
			redirect.Confirmation.Type != client.ConfirmationTypeRedirect || redirect.Confirmation.ConfirmationURL == nil {
			t.Fatalf("redirect payment = %+v", redirect)
		}
		again, err := c.CreatePayment(ctx, body, client.WithIdempotencyKey("redirect-0001"))
		if err != nil || again.ID != redirect.ID {
			t.Fatalf("replay = %+v, %v; want payment %s", again, err, redirect.ID)
		}

		// A QR payment paid in the sandbox.
		qr, err := c.CreatePayment(ctx, newPayment("1000.00", client.QR()))
		if err != nil {
			t.Fatal(err)
		}
		if qr.Confirmation == nil || qr.Confirmation.Type != client.ConfirmationTypeQr ||
			qr.Confirmation.ConfirmationData == nil || *qr.Confirmation.ConfirmationData == "" {
			t.Fatalf("qr payment = %+v", qr)
		}
		if err := c.SimulatePayment(ctx, qr.ID, client.SimulateRequest{Outcome: client.SimulateRequestOutcomeSucceed}); err != nil {
			t.Fatal(err)
		}
		paid := waitPayment(t, c, qr.ID, client.PaymentStatusSucceeded)
		if !paid.Paid || paid.CapturedAmount.Value != "1000.00" {
			t.Fatalf("paid = %+v", paid)
		}

		// Two stages: authorized, then part of it captured.
		twoStage := newPayment("100.00", client.QR())
		twoStage.Capture = client.Ptr(false)
		auth, err := c.CreatePayment(ctx, twoStage)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SimulatePayment(ctx, auth.ID, client.SimulateRequest{Outcome: client.SimulateRequestOutcomeAuthorize}); err != nil {
			t.Fatal(err)
		}
		waitPayment(t, c, auth.ID, client.PaymentStatusWaitingForCapture)
		amount := client.Amt("60.00", client.RUB)
		captured, err := c.CapturePayment(ctx, auth.ID, client.PaymentCapture{Amount: &amount})
		if err != nil {
			t.Fatal(err)
		}
		if captured.Status != client.PaymentStatusSucceeded || captured.CapturedAmount.Value != "60.00" {
			t.Fatalf("captured = %+v", captured)
		}

		// A refund of part of the QR payment.
		ref, err := c.CreateRefund(ctx, client.RefundCreate{PaymentID: qr.ID, Amount: client.Amt("100.00", client.RUB)})
		if err != nil {
			t.Fatal(err)
		}
		if ref.PaymentID != qr.ID || ref.Amount.Value != "100.00" {
			t.Fatalf("refund = %+v", ref)
		}
		paydtest.Eventually(t, "the refund to succeed", func() bool {
			r, err := c.GetRefund(ctx, ref.ID)
			if err != nil {
				t.Fatal(err)
			}
			return r.Status == client.RefundStatusSucceeded
		})

		// Every payment of the shop, two a page, and a filter kept on
		// every page.
		var ids []string
		for p, err := range c.ListPayments(ctx, client.ListPaymentsParams{Limit: client.Ptr(2)}) {
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		want := []string{auth.ID, qr.ID, redirect.ID} // newest first
		if fmt.Sprint(ids) != fmt.Sprint(want) {
			t.Fatalf("listed %v, want %v", ids, want)
		}
		var succeeded []string
		for p, err := range c.ListPayments(ctx, client.ListPaymentsParams{Limit: client.Ptr(1), Status: client.Ptr(client.PaymentStatusSucceeded)}) {
			if err != nil {
				t.Fatal(err)
			}
			succeeded = append(succeeded, p.ID)
		}
		if fmt.Sprint(succeeded) != fmt.Sprint([]string{auth.ID, qr.ID}) {
			t.Fatalf("succeeded payments listed one a page = %v", succeeded)
		}
		// Stopping the loop stops the walk.
		n := 0
		for range c.ListPayments(ctx, client.ListPaymentsParams{Limit: client.Ptr(1)}) {
			n++
			break
		}
		if n != 1 {
			t.Fatalf("a loop broken at once ran %d times", n)
		}

		// The balance after 1000.00 and 60.00 paid and 100.00 refunded.
		bal, err := c.GetBalance(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(bal) != 1 || bal[0].Currency != client.RUB {
			t.Fatalf("balance = %+v", bal)
		}
		// Pending: 1000.00 − 7.00 fee + 60.00 − 0.42 fee − 100.00
		// refunded; available: the refunded share of the QR fee (0.7%).
		if bal[0].Pending.Value != "952.58" || bal[0].Available.Value != "0.70" {
			t.Fatalf("balance = %+v", bal[0])
		}

		// The webhook of the QR payment's success, verified and decoded.
		var ev *client.Event
		paydtest.Eventually(t, "the payment.succeeded delivery of "+qr.ID, func() bool {
			for _, d := range rc.deliveries() {
				got, err := client.ConstructEvent(d.body, d.signature, ep.Secret)
				if err != nil {
					t.Fatalf("a real delivery does not verify: %v", err)
				}
				if p, ok := got.Data.Object.(*client.Payment); ok && p.ID == qr.ID {
					ev = got
					return true
				}
			}
			return false
		})
		if ev.Type != "payment.succeeded" || ev.Data.ObjectType != "payment" || ev.Data.Object.(*client.Payment).Status != client.PaymentStatusSucceeded {
			t.Fatalf("event = %+v", ev)
		}
		d := rc.deliveries()[0]
		if _, err := client.ConstructEvent(d.body, d.signature, "whsec_not_the_secret"); !errors.Is(err, webhook.ErrNoMatch) {
			t.Fatalf("a wrong secret: %v", err)
		}
		// The same event read back through the API decodes alike.
		read, err := c.GetEvent(ctx, ev.ID)
		if err != nil {
			t.Fatal(err)
		}
		if p, ok := read.Data.Object.(*client.Payment); !ok || p.ID != qr.ID {
			t.Fatalf("GET event = %+v", read)
		}
		var events int
		for e, err := range c.ListEvents(ctx, client.ListEventsParams{Limit: client.Ptr(1), ObjectID: &qr.ID}) {
			if err != nil {
				t.Fatal(err)
			}
			if p, ok := e.Data.Object.(*client.Payment); !ok || p.ID != qr.ID {
				t.Fatalf("listed for object_id %s: %+v", qr.ID, e)
			}
			if e.ID == ev.ID {
				events++
			}
		}
		if events != 1 {
			t.Fatalf("the delivered event listed %d times", events)
		}

		// A validation error names its parameter.
		_, err = c.CreatePayment(ctx, newPayment("1.001", client.QR()))
		var apiErr *client.Error
		if !errors.As(err, &apiErr) {
			t.Fatalf("bad amount: %v", err)
		}
		if apiErr.HTTPStatus != 400 || apiErr.Code != client.ErrorCodeInvalidRequest || apiErr.Parameter != "amount.value" || apiErr.RequestID == "" {
			t.Fatalf("bad amount = %+v", apiErr)
		}
		_, err = c.GetPayment(ctx, "pay_missing")
		if !errors.As(err, &apiErr) || apiErr.HTTPStatus != 404 || apiErr.Code != client.ErrorCodeNotFound {
			t.Fatalf("missing payment: %v", err)
		}
	})
}

// TestLaterStageNamed: at stage v1, an operation of M2 or M5 is a typed
// error that names the stage it needs.
func TestLaterStageNamed(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := context.Background()
		_, _, c := start(t, b, nil, 0)
		_, err := c.GetDispute(ctx, "dp_1")
		var apiErr *client.Error
		if !errors.Is(err, client.ErrNotImplemented) || !errors.As(err, &apiErr) || apiErr.HTTPStatus != 501 || apiErr.Stage != "M2" {
			t.Fatalf("dispute at v1: %v (%+v)", err, apiErr)
		}
		for _, err := range c.ListPayouts(ctx, client.ListPayoutsParams{}) {
			if !errors.Is(err, client.ErrNotImplemented) || !errors.As(err, &apiErr) || apiErr.Stage != "M5" {
				t.Fatalf("payouts at v1: %v", err)
			}
		}
		// A 501 is not retried: the answer will not change.
		if _, err := c.GetShop(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// TestSurvivesRateLimit: with a request limit of 3 a minute, six calls all
// succeed, each 429 waited out for the Retry-After the service gave.
func TestSurvivesRateLimit(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := context.Background()
		env, shop, c := start(t, b, nil, payd.StageM5)
		env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"requests_per_minute": 3}).Expect(t, 200)
		var waits []time.Duration
		// The limiter runs on the service's clock: waiting is moving it.
		client.SetSleep(c, func(_ context.Context, d time.Duration) error {
			waits = append(waits, d)
			env.Clock.Advance(d)
			return nil
		})
		for i := range 6 {
			if _, err := c.GetShop(ctx); err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
		}
		if len(waits) == 0 {
			t.Fatal("six calls within a limit of three never waited")
		}
		for _, d := range waits {
			if d < time.Second || d > 60*time.Second || d%time.Second != 0 {
				t.Fatalf("waited %v: not a Retry-After of the service", d)
			}
		}
		// Without retries the 429 comes back typed, with its advice.
		strict, err := client.New(env.API.URL+"/v1", shop.ID, shop.TestKey, client.MaxRetries(0))
		if err != nil {
			t.Fatal(err)
		}
		var apiErr *client.Error
		for range 4 {
			_, err = strict.GetShop(ctx)
		}
		if !errors.As(err, &apiErr) || apiErr.HTTPStatus != 429 || apiErr.Code != client.ErrorCodeTooManyRequests || apiErr.RetryAfter < time.Second {
			t.Fatalf("fourth call of a strict client: %v", err)
		}
	})
}

// TestLaterStageOperations: at stage M5 the operations of M2 and M5 work
// through the same client: a payment link, a test dispute, payouts.
func TestLaterStageOperations(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := context.Background()
		_, _, c := start(t, b, nil, payd.StageM5)

		floor := client.Amt("100.00", client.RUB)
		link, err := c.CreatePaymentLink(ctx, client.PaymentLinkCreate{Description: "Donation", MinAmount: &floor})
		if err != nil {
			t.Fatal(err)
		}
		if link.URL == "" || link.Status != "active" {
			t.Fatalf("link = %+v", link)
		}
		var links []string
		for l, err := range c.ListPaymentLinks(ctx, client.ListPaymentLinksParams{}) {
			if err != nil {
				t.Fatal(err)
			}
			links = append(links, l.ID)
		}
		if fmt.Sprint(links) != fmt.Sprint([]string{link.ID}) {
			t.Fatalf("links = %v", links)
		}
		off, err := c.DeactivatePaymentLink(ctx, link.ID)
		if err != nil || off.Status != "deactivated" {
			t.Fatalf("deactivated = %+v, %v", off, err)
		}

		pay, err := c.CreatePayment(ctx, newPayment("500.00", client.QR()))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SimulatePayment(ctx, pay.ID, client.SimulateRequest{Outcome: client.SimulateRequestOutcomeSucceed}); err != nil {
			t.Fatal(err)
		}
		waitPayment(t, c, pay.ID, client.PaymentStatusSucceeded)
		dp, err := c.CreateTestDispute(ctx, pay.ID, client.TestDisputeCreate{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.GetDispute(ctx, dp.ID)
		if err != nil || got.PaymentID != pay.ID {
			t.Fatalf("dispute = %+v, %v", got, err)
		}
		n := 0
		for d, err := range c.ListDisputes(ctx, client.ListDisputesParams{PaymentID: &pay.ID}) {
			if err != nil || d.ID != dp.ID {
				t.Fatalf("listed dispute %+v, %v", d, err)
			}
			n++
		}
		if n != 1 {
			t.Fatalf("%d disputes listed", n)
		}
		for _, err := range c.ListPayouts(ctx, client.ListPayoutsParams{}) {
			t.Fatalf("a new shop lists a payout (%v)", err)
		}
		doc, err := c.GetOpenAPIDocument(ctx)
		if err != nil || !json.Valid(doc) {
			t.Fatalf("document: %v", err)
		}
	})
}

// TestSimulateThenWait is the README's walk: SimulatePayment answers at
// once with the payment still pending, WaitPayment returns it decided,
// and the refund that follows is accepted. A payment that stays pending
// ends the wait with the context's error and the payment as last read.
func TestSimulateThenWait(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_, _, c := start(t, b, nil, 0)

		p, err := c.CreatePayment(ctx, newPayment("1500.00", client.QR()))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SimulatePayment(ctx, p.ID, client.SimulateRequest{Outcome: client.SimulateRequestOutcomeSucceed}); err != nil {
			t.Fatal(err)
		}
		paid, err := c.WaitPayment(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if paid.Status != client.PaymentStatusSucceeded || !paid.Paid {
			t.Fatalf("after the wait: %+v", paid)
		}
		ref, err := c.CreateRefund(ctx, client.RefundCreate{PaymentID: p.ID, Amount: client.Amt("500.00", client.RUB)})
		if err != nil {
			t.Fatalf("refund after the wait: %v", err)
		}
		if ref.PaymentID != p.ID || ref.Amount.Value != "500.00" {
			t.Fatalf("refund = %+v", ref)
		}

		// Two stages: the wait ends at waiting_for_capture.
		twoStage := newPayment("100.00", client.QR())
		twoStage.Capture = client.Ptr(false)
		auth, err := c.CreatePayment(ctx, twoStage)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SimulatePayment(ctx, auth.ID, client.SimulateRequest{Outcome: client.SimulateRequestOutcomeAuthorize}); err != nil {
			t.Fatal(err)
		}
		if got, err := c.WaitPayment(ctx, auth.ID); err != nil || got.Status != client.PaymentStatusWaitingForCapture {
			t.Fatalf("authorized payment after the wait: %+v, %v", got, err)
		}

		// Amount digits 07: the sandbox leaves it pending until it expires.
		stays, err := c.CreatePayment(ctx, newPayment("100.07", client.QR()))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SimulatePayment(ctx, stays.ID, client.SimulateRequest{Outcome: client.SimulateRequestOutcomeSucceed}); err != nil {
			t.Fatal(err)
		}
		short, stop := context.WithTimeout(ctx, 500*time.Millisecond)
		defer stop()
		last, err := c.WaitPayment(short, stays.ID)
		if !errors.Is(err, context.DeadlineExceeded) || last == nil || last.ID != stays.ID || last.Status != client.PaymentStatusPending {
			t.Fatalf("wait for a payment that stays pending: %+v, %v", last, err)
		}
	})
}

// TestEmbeddedConfirmation: an embedded payment's create answer carries
// the widget's one-time token, and a later read does not; below stage M5
// the same request is refused as not implemented, naming the stage.
func TestEmbeddedConfirmation(t *testing.T) {
	t.Parallel()
	b := paydtest.Backends(t)[0]
	ctx := context.Background()
	_, _, c := start(t, b, nil, payd.StageM5)
	p, err := c.CreatePayment(ctx, newPayment("100.00", client.Embedded("https://shop.example.com/return")))
	if err != nil {
		t.Fatal(err)
	}
	if p.Confirmation == nil || p.Confirmation.Type != client.ConfirmationTypeEmbedded ||
		p.Confirmation.ConfirmationToken == nil || !strings.HasPrefix(*p.Confirmation.ConfirmationToken, payd.EmbedTokenPrefix) ||
		p.Confirmation.ConfirmationURL != nil {
		t.Fatalf("embedded payment confirmation = %+v", p.Confirmation)
	}
	got, err := c.GetPayment(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Confirmation == nil || got.Confirmation.ConfirmationToken != nil {
		t.Fatalf("GET shows the confirmation token: %+v", got.Confirmation)
	}

	_, _, v1 := start(t, b, nil, payd.StageM1)
	_, err = v1.CreatePayment(ctx, newPayment("100.00", client.Embedded("")))
	var apiErr *client.Error
	if !errors.Is(err, client.ErrNotImplemented) || !errors.As(err, &apiErr) || apiErr.Stage != "M5" {
		t.Fatalf("below M5: %v, want not_implemented naming stage M5", err)
	}
}
