//go:build linux

package deploy

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/paydhq/payd/client"
)

// walkPayment takes a sandbox payment through its whole path, from one
// instance to the other at each step (a and b may be the same): created,
// paid through the sandbox bank, refunded in part, and its events read.
func walkPayment(t *testing.T, a, b *container, shop, key string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ca, err := client.New(a.api+"/v1", shop, key)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := client.New(b.api+"/v1", shop, key)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ca.CreatePayment(ctx, client.PaymentCreate{
		Amount:       client.Amt("1500.00", client.RUB),
		OrderID:      "image-" + random(6),
		Description:  client.Ptr("Two books"),
		Confirmation: client.QR(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := cb.SimulatePayment(ctx, p.ID, client.SimulateRequest{Outcome: client.SimulateRequestOutcomeSucceed}); err != nil {
		t.Fatal(err)
	}
	if p, err = ca.WaitPayment(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if p.Status != client.PaymentStatusSucceeded {
		t.Fatalf("payment %s is %s after the sandbox paid it", p.ID, p.Status)
	}
	r, err := cb.CreateRefund(ctx, client.RefundCreate{PaymentID: p.ID, Amount: client.Amt("500.00", client.RUB)})
	if err != nil {
		t.Fatal(err)
	}
	// The sandbox bank confirms the refund a moment later.
	eventually(t, ctx, "refund "+r.ID+" succeeded", func() error {
		got, err := ca.GetRefund(ctx, r.ID)
		if err == nil && got.Status != client.RefundStatusSucceeded {
			err = fmt.Errorf("status %s", got.Status)
		}
		return err
	})
	for obj, want := range map[string]client.EventType{p.ID: client.PaymentSucceeded, r.ID: client.RefundSucceeded} {
		eventually(t, ctx, "event "+string(want)+" of "+obj, func() error {
			for ev, err := range cb.ListEvents(ctx, client.ListEventsParams{ObjectID: &obj}) {
				if err != nil {
					return err
				}
				if ev.Type == want {
					return nil
				}
			}
			return fmt.Errorf("not listed")
		})
	}
}

// eventually retries check until it passes or ctx ends.
func eventually(t *testing.T, ctx context.Context, what string, check func() error) {
	t.Helper()
	for {
		err := check()
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
