package client

import (
	"context"
	"fmt"
	"time"
)

// The waits of WaitPayment between two reads of the payment: the first,
// doubled after each read up to the last.
const (
	waitFirst = 100 * time.Millisecond
	waitMax   = 2 * time.Second
)

// WaitPayment reads the payment until it leaves pending and returns it
// (succeeded, waiting_for_capture or canceled). An outcome arrives a
// moment after the call that caused it: SimulatePayment answers 202 while
// the sandbox bank's notification is still on its way, and a refund or a
// capture of the payment in the meantime is refused with 422
// invalid_state. So in the sandbox:
//
//	err = c.SimulatePayment(ctx, p.ID, client.SimulateRequest{Outcome: client.SimulateRequestOutcomeSucceed})
//	p, err = c.WaitPayment(ctx, p.ID) // now succeeded
//
// It reads at once, then after 100 ms, doubling the wait up to 2 s, so an
// outcome that is there at once is seen at once and a late one (the
// sandbox's late notification) costs few requests. ctx bounds the wait:
// give it a deadline, since a payment nobody confirms stays pending until
// it expires. When ctx ends first, WaitPayment returns the payment as last
// read together with ctx's error (errors.Is(err, context.DeadlineExceeded)).
func (c *Client) WaitPayment(ctx context.Context, id string, opts ...RequestEditorFn) (*Payment, error) {
	var last *Payment
	wait := waitFirst
	for {
		p, err := c.GetPayment(ctx, id, opts...)
		if err != nil {
			return last, err
		}
		if p.Status != PaymentStatusPending {
			return p, nil
		}
		last = p
		if err := c.sleep(ctx, wait); err != nil {
			return last, fmt.Errorf("client: payment %s is still pending: %w", id, err)
		}
		wait = min(2*wait, waitMax)
	}
}
