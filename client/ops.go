package client

import (
	"context"
	"fmt"
	"iter"
)

// Each method below is one operation of the contract, with the generated
// request and object types. Per-call options (WithIdempotencyKey, or any
// RequestEditorFn) go last. A method returns an *Error for every answer of
// the service that is not 2xx.

// body picks the object of a 2xx answer: the first of the contract's
// answers (200 replay, 201 created, ...) that the answer was.
func body[T any](status int, vals ...*T) (*T, error) {
	for _, v := range vals {
		if v != nil {
			return v, nil
		}
	}
	return nil, fmt.Errorf("client: status %d without the object the contract describes", status)
}

// CreatePayment creates a payment (201), or returns the one an earlier
// call with the same idempotency key created (200).
func (c *Client) CreatePayment(ctx context.Context, p PaymentCreate, opts ...RequestEditorFn) (*Payment, error) {
	r, err := c.raw.CreatePaymentWithResponse(ctx, &CreatePaymentParams{}, p, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON201, r.JSON200)
}

// GetPayment reads a payment.
func (c *Client) GetPayment(ctx context.Context, id string, opts ...RequestEditorFn) (*Payment, error) {
	r, err := c.raw.GetPaymentWithResponse(ctx, id, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON200)
}

// CapturePayment captures a payment in waiting_for_capture: all of it with
// a zero PaymentCapture, or Amount of it.
func (c *Client) CapturePayment(ctx context.Context, id string, p PaymentCapture, opts ...RequestEditorFn) (*Payment, error) {
	r, err := c.raw.CapturePaymentWithResponse(ctx, id, &CapturePaymentParams{}, p, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON200)
}

// CancelPayment cancels a payment that has not succeeded.
func (c *Client) CancelPayment(ctx context.Context, id string, opts ...RequestEditorFn) (*Payment, error) {
	r, err := c.raw.CancelPaymentWithResponse(ctx, id, &CancelPaymentParams{}, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON200)
}

// ListPayments yields every payment that matches p, newest first, across
// as many pages as there are (p.Limit sizes a page).
func (c *Client) ListPayments(ctx context.Context, p ListPaymentsParams, opts ...RequestEditorFn) iter.Seq2[Payment, error] {
	return pages(p.Cursor, func(cursor *string) ([]Payment, *string, error) {
		q := p
		q.Cursor = cursor
		r, err := c.raw.ListPaymentsWithResponse(ctx, &q, opts...)
		if err != nil {
			return nil, nil, err
		}
		l, err := body(r.StatusCode(), r.JSON200)
		if err != nil {
			return nil, nil, err
		}
		return l.Items, l.NextCursor, nil
	})
}

// CreateRefund refunds part or all of a succeeded payment.
func (c *Client) CreateRefund(ctx context.Context, p RefundCreate, opts ...RequestEditorFn) (*Refund, error) {
	r, err := c.raw.CreateRefundWithResponse(ctx, &CreateRefundParams{}, p, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON201, r.JSON200)
}

// GetRefund reads a refund.
func (c *Client) GetRefund(ctx context.Context, id string, opts ...RequestEditorFn) (*Refund, error) {
	r, err := c.raw.GetRefundWithResponse(ctx, id, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON200)
}

// ListRefunds yields every refund that matches p, across all pages.
func (c *Client) ListRefunds(ctx context.Context, p ListRefundsParams, opts ...RequestEditorFn) iter.Seq2[Refund, error] {
	return pages(p.Cursor, func(cursor *string) ([]Refund, *string, error) {
		q := p
		q.Cursor = cursor
		r, err := c.raw.ListRefundsWithResponse(ctx, &q, opts...)
		if err != nil {
			return nil, nil, err
		}
		l, err := body(r.StatusCode(), r.JSON200)
		if err != nil {
			return nil, nil, err
		}
		return l.Items, l.NextCursor, nil
	})
}

// GetDispute reads a dispute (stage M2).
func (c *Client) GetDispute(ctx context.Context, id string, opts ...RequestEditorFn) (*Dispute, error) {
	r, err := c.raw.GetDisputeWithResponse(ctx, id, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON200)
}

// ListDisputes yields every dispute that matches p, across all pages
// (stage M2).
func (c *Client) ListDisputes(ctx context.Context, p ListDisputesParams, opts ...RequestEditorFn) iter.Seq2[Dispute, error] {
	return pages(p.Cursor, func(cursor *string) ([]Dispute, *string, error) {
		q := p
		q.Cursor = cursor
		r, err := c.raw.ListDisputesWithResponse(ctx, &q, opts...)
		if err != nil {
			return nil, nil, err
		}
		l, err := body(r.StatusCode(), r.JSON200)
		if err != nil {
			return nil, nil, err
		}
		return l.Items, l.NextCursor, nil
	})
}

// CreateDisputeEvidenceUpload opens an upload of one evidence file for a
// dispute (stage M2).
func (c *Client) CreateDisputeEvidenceUpload(ctx context.Context, disputeID string, p DisputeEvidenceUploadCreate, opts ...RequestEditorFn) (*DisputeEvidenceUpload, error) {
	r, err := c.raw.CreateDisputeEvidenceUploadWithResponse(ctx, disputeID, &CreateDisputeEvidenceUploadParams{}, p, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON201, r.JSON200)
}

// SubmitDisputeEvidence submits the evidence of a dispute (stage M2).
func (c *Client) SubmitDisputeEvidence(ctx context.Context, disputeID string, p DisputeEvidenceCreate, opts ...RequestEditorFn) (*Dispute, error) {
	r, err := c.raw.SubmitDisputeEvidenceWithResponse(ctx, disputeID, &SubmitDisputeEvidenceParams{}, p, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON200)
}

// CreatePaymentLink creates a payment link (stage M5).
func (c *Client) CreatePaymentLink(ctx context.Context, p PaymentLinkCreate, opts ...RequestEditorFn) (*PaymentLink, error) {
	r, err := c.raw.CreatePaymentLinkWithResponse(ctx, &CreatePaymentLinkParams{}, p, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON201, r.JSON200)
}

// GetPaymentLink reads a payment link (stage M5).
func (c *Client) GetPaymentLink(ctx context.Context, id string, opts ...RequestEditorFn) (*PaymentLink, error) {
	r, err := c.raw.GetPaymentLinkWithResponse(ctx, id, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON200)
}

// DeactivatePaymentLink closes a payment link to new payments (stage M5).
func (c *Client) DeactivatePaymentLink(ctx context.Context, id string, opts ...RequestEditorFn) (*PaymentLink, error) {
	r, err := c.raw.DeactivatePaymentLinkWithResponse(ctx, id, &DeactivatePaymentLinkParams{}, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON200)
}

// ListPaymentLinks yields every payment link, across all pages (stage M5).
func (c *Client) ListPaymentLinks(ctx context.Context, p ListPaymentLinksParams, opts ...RequestEditorFn) iter.Seq2[PaymentLink, error] {
	return pages(p.Cursor, func(cursor *string) ([]PaymentLink, *string, error) {
		q := p
		q.Cursor = cursor
		r, err := c.raw.ListPaymentLinksWithResponse(ctx, &q, opts...)
		if err != nil {
			return nil, nil, err
		}
		l, err := body(r.StatusCode(), r.JSON200)
		if err != nil {
			return nil, nil, err
		}
		return l.Items, l.NextCursor, nil
	})
}

// ListPaymentMethods returns the payment methods the shop may offer.
func (c *Client) ListPaymentMethods(ctx context.Context, p ListPaymentMethodsParams, opts ...RequestEditorFn) ([]PaymentMethodInfo, error) {
	r, err := c.raw.ListPaymentMethodsWithResponse(ctx, &p, opts...)
	if err != nil {
		return nil, err
	}
	l, err := body(r.StatusCode(), r.JSON200)
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

// CreateWebhookEndpoint registers a webhook endpoint; the answer carries
// its signing secret, shown only here (and on rotation).
func (c *Client) CreateWebhookEndpoint(ctx context.Context, p WebhookEndpointCreate, opts ...RequestEditorFn) (*WebhookEndpointWithSecret, error) {
	r, err := c.raw.CreateWebhookEndpointWithResponse(ctx, &CreateWebhookEndpointParams{}, p, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON201, r.JSON200)
}

// GetWebhookEndpoint reads a webhook endpoint.
func (c *Client) GetWebhookEndpoint(ctx context.Context, id string, opts ...RequestEditorFn) (*WebhookEndpoint, error) {
	r, err := c.raw.GetWebhookEndpointWithResponse(ctx, id, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON200)
}

// UpdateWebhookEndpoint changes a webhook endpoint (URL, events, status)
// or rotates its secret.
func (c *Client) UpdateWebhookEndpoint(ctx context.Context, id string, p WebhookEndpointUpdate, opts ...RequestEditorFn) (*WebhookEndpoint, error) {
	r, err := c.raw.UpdateWebhookEndpointWithResponse(ctx, id, &UpdateWebhookEndpointParams{}, p, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON200)
}

// DeleteWebhookEndpoint deletes a webhook endpoint.
func (c *Client) DeleteWebhookEndpoint(ctx context.Context, id string, opts ...RequestEditorFn) error {
	_, err := c.raw.DeleteWebhookEndpointWithResponse(ctx, id, opts...)
	return err
}

// ListWebhookEndpoints returns every webhook endpoint of the shop.
func (c *Client) ListWebhookEndpoints(ctx context.Context, opts ...RequestEditorFn) ([]WebhookEndpoint, error) {
	r, err := c.raw.ListWebhookEndpointsWithResponse(ctx, opts...)
	if err != nil {
		return nil, err
	}
	l, err := body(r.StatusCode(), r.JSON200)
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

// GetSettlement reads a settlement.
func (c *Client) GetSettlement(ctx context.Context, id string, opts ...RequestEditorFn) (*Settlement, error) {
	r, err := c.raw.GetSettlementWithResponse(ctx, id, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON200)
}

// ListSettlements yields every settlement that matches p, across all
// pages.
func (c *Client) ListSettlements(ctx context.Context, p ListSettlementsParams, opts ...RequestEditorFn) iter.Seq2[Settlement, error] {
	return pages(p.Cursor, func(cursor *string) ([]Settlement, *string, error) {
		q := p
		q.Cursor = cursor
		r, err := c.raw.ListSettlementsWithResponse(ctx, &q, opts...)
		if err != nil {
			return nil, nil, err
		}
		l, err := body(r.StatusCode(), r.JSON200)
		if err != nil {
			return nil, nil, err
		}
		return l.Items, l.NextCursor, nil
	})
}

// GetBalance returns the shop's balance, one entry per currency.
func (c *Client) GetBalance(ctx context.Context, opts ...RequestEditorFn) ([]Balance, error) {
	r, err := c.raw.GetBalanceWithResponse(ctx, opts...)
	if err != nil {
		return nil, err
	}
	l, err := body(r.StatusCode(), r.JSON200)
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

// GetShop reads the shop the client acts as.
func (c *Client) GetShop(ctx context.Context, opts ...RequestEditorFn) (*Shop, error) {
	r, err := c.raw.GetShopWithResponse(ctx, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON200)
}

// CreatePayout sends money from the shop's balance (stage M5).
func (c *Client) CreatePayout(ctx context.Context, p PayoutCreate, opts ...RequestEditorFn) (*Payout, error) {
	r, err := c.raw.CreatePayoutWithResponse(ctx, &CreatePayoutParams{}, p, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON201, r.JSON200)
}

// GetPayout reads a payout (stage M5).
func (c *Client) GetPayout(ctx context.Context, id string, opts ...RequestEditorFn) (*Payout, error) {
	r, err := c.raw.GetPayoutWithResponse(ctx, id, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON200)
}

// ListPayouts yields every payout that matches p, across all pages (stage
// M5).
func (c *Client) ListPayouts(ctx context.Context, p ListPayoutsParams, opts ...RequestEditorFn) iter.Seq2[Payout, error] {
	return pages(p.Cursor, func(cursor *string) ([]Payout, *string, error) {
		q := p
		q.Cursor = cursor
		r, err := c.raw.ListPayoutsWithResponse(ctx, &q, opts...)
		if err != nil {
			return nil, nil, err
		}
		l, err := body(r.StatusCode(), r.JSON200)
		if err != nil {
			return nil, nil, err
		}
		return l.Items, l.NextCursor, nil
	})
}

// SimulatePayment asks the sandbox for an outcome of a test payment; the
// outcome arrives a little later, as an event and in GetPayment.
func (c *Client) SimulatePayment(ctx context.Context, paymentID string, p SimulateRequest, opts ...RequestEditorFn) error {
	_, err := c.raw.SimulatePaymentWithResponse(ctx, paymentID, &SimulatePaymentParams{}, p, opts...)
	return err
}

// ListEventFeed reads the shop's sandbox event feed (test keys only): the
// test events numbered after afterSequence, lowest first, and the feed's
// last number. A resent event appears again with a new, higher number
// (docs/sandbox.md, "payd listen").
func (c *Client) ListEventFeed(ctx context.Context, afterSequence int64, limit int, opts ...RequestEditorFn) (*EventFeed, error) {
	p := &ListEventFeedParams{AfterSequence: &afterSequence}
	if limit > 0 {
		l := Limit(limit)
		p.Limit = &l
	}
	r, err := c.raw.ListEventFeedWithResponse(ctx, p, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON200)
}

// ResetSandbox deletes the shop's test data and keeps its keys, webhook
// endpoints and settings (test keys only; docs/sandbox.md). A reset of
// many test payments can take minutes, so this call waits up to
// SandboxResetTimeout whatever shorter timeout the HTTP client has; ctx
// still bounds it.
func (c *Client) ResetSandbox(ctx context.Context, opts ...RequestEditorFn) (*SandboxReset, error) {
	ctx = context.WithValue(ctx, callTimeout{}, SandboxResetTimeout)
	r, err := c.raw.ResetSandboxWithResponse(ctx, &ResetSandboxParams{}, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON200)
}

// CreateTestDispute opens a dispute on a test payment (stage M2).
func (c *Client) CreateTestDispute(ctx context.Context, paymentID string, p TestDisputeCreate, opts ...RequestEditorFn) (*Dispute, error) {
	r, err := c.raw.CreateTestDisputeWithResponse(ctx, paymentID, &CreateTestDisputeParams{}, p, opts...)
	if err != nil {
		return nil, err
	}
	return body(r.StatusCode(), r.JSON201, r.JSON200)
}

// SimulateDispute asks the sandbox for an outcome of a test dispute
// (stage M2).
func (c *Client) SimulateDispute(ctx context.Context, disputeID string, p DisputeSimulateRequest, opts ...RequestEditorFn) error {
	_, err := c.raw.SimulateDisputeWithResponse(ctx, disputeID, &SimulateDisputeParams{}, p, opts...)
	return err
}

// pages walks a cursor list: fetch returns one page and the cursor of the
// next (nil or empty on the last). The walk stops at the first error, which
// it yields, or when the caller stops ranging.
func pages[T any](start *string, fetch func(cursor *string) ([]T, *string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		cursor := start
		for {
			items, next, err := fetch(cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if next == nil || *next == "" {
				return
			}
			cursor = next
		}
	}
}

// GetOpenAPIDocument returns the contract's document as the service serves
// it (JSON).
func (c *Client) GetOpenAPIDocument(ctx context.Context, opts ...RequestEditorFn) ([]byte, error) {
	r, err := c.raw.GetOpenAPIDocumentWithResponse(ctx, opts...)
	if err != nil {
		return nil, err
	}
	return r.Body, nil
}
