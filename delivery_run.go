package payd

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/paydhq/payd/webhook"
)

// DeliverWebhook makes one attempt of a delivery: it posts the stored event
// bytes, signed, to the endpoint, records the attempt, and on failure
// schedules the next retry or, after the last, marks the delivery failed and
// the endpoint failing. The POST happens outside any transaction so a slow
// receiver holds no lock.
func (s *Service) DeliverWebhook(ctx context.Context, deliveryID string) error {
	var d *WebhookDelivery
	var ev *Event
	var ep *WebhookEndpoint
	err := s.store.View(ctx, func(tx Tx) (err error) {
		if d, err = tx.WebhookDeliveryGet(ctx, deliveryID); err != nil {
			return err
		}
		if d.State != DeliveryStatePending {
			return errDeliveryDone
		}
		if ev, err = tx.EventGet(ctx, d.ShopID, d.Test, d.EventID); err != nil {
			return err
		}
		ep, err = tx.WebhookEndpointGet(ctx, d.ShopID, d.Test, d.EndpointID)
		return err
	})
	if errors.Is(err, errDeliveryDone) {
		return nil
	}
	if errors.Is(err, ErrNoRows) || (err == nil && ep.Status != WebhookActive) {
		// Events for a disabled, failing or deleted endpoint are kept, not
		// sent; resend delivers them after the endpoint is active again.
		return s.store.Tx(ctx, func(tx Tx) error {
			return s.finishDelivery(ctx, tx, deliveryID, func(d *WebhookDelivery) { d.State = DeliveryStateSkipped })
		})
	}
	if err != nil {
		return err
	}
	now := s.clock.Now()
	headers := map[string]string{
		"Content-Type":          "application/json",
		"User-Agent":            webhook.UserAgent,
		webhook.EventIDHeader:   ev.ID,
		webhook.SignatureHeader: webhook.Header(now, ev.Body, ep.signingSecrets(now)...),
	}
	res, sendErr := s.sender.Send(ctx, ep.URL, headers, ev.Body, DeliveryTimeout)
	attempt := &DeliveryAttempt{ID: s.ids.New("att_", now), DeliveryID: d.ID, EventID: ev.ID, EndpointID: ep.ID, URL: ep.URL, At: now}
	ok := false
	if sendErr != nil {
		attempt.Error = sendErr.Error()
	} else {
		attempt.StatusCode, attempt.DurationMS = res.StatusCode, res.Duration.Milliseconds()
		attempt.ResponseBody = truncateUTF8(res.Body, MaxLoggedResponse)
		ok = res.StatusCode >= 200 && res.StatusCode < 300
		if !ok {
			attempt.Error = "answer " + strconv.Itoa(res.StatusCode) + " " + http.StatusText(res.StatusCode) + " is not 2xx"
		}
	}
	return s.store.Tx(ctx, func(tx Tx) error {
		if err := tx.DeliveryAttemptInsert(ctx, attempt); err != nil {
			return err
		}
		var failedFinally bool
		err := s.finishDelivery(ctx, tx, deliveryID, func(d *WebhookDelivery) {
			d.Attempts++
			d.LastAttemptAt = &attempt.At
			if attempt.StatusCode != 0 {
				code := attempt.StatusCode
				d.LastResponseCode = &code
			}
			d.NextAttemptAt = nil
			switch {
			case ok:
				d.State = DeliveryStateSucceeded
			case d.Attempts <= len(RetrySchedule):
				next := s.clock.Now().Add(RetrySchedule[d.Attempts-1])
				d.NextAttemptAt = &next
			default:
				d.State, failedFinally = DeliveryStateFailed, true
			}
		})
		if err != nil {
			return err
		}
		cur, err := tx.WebhookDeliveryGet(ctx, deliveryID)
		if err != nil {
			return err
		}
		if cur.NextAttemptAt != nil {
			if err := s.jobs.Enqueue(ctx, tx, WebhookDeliverArgs{DeliveryID: deliveryID}, *cur.NextAttemptAt); err != nil {
				return err
			}
		}
		return s.endpointOutcome(ctx, tx, cur, ok, failedFinally)
	})
}

// endpointOutcome keeps the endpoint's failure count: a success resets it;
// a delivery that spent every retry turns the endpoint failing
// (States: Webhook endpoint).
func (s *Service) endpointOutcome(ctx context.Context, tx Tx, d *WebhookDelivery, ok, failedFinally bool) error {
	if ok {
		// The common case: a success on an endpoint without failures
		// changes nothing, so it neither locks nor writes the row that
		// every delivery to the endpoint would otherwise queue on.
		ep, err := tx.WebhookEndpointGet(ctx, d.ShopID, d.Test, d.EndpointID)
		if errors.Is(err, ErrNoRows) || (err == nil && ep.ConsecutiveFailures == 0) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	ep, err := tx.WebhookEndpointGetForUpdate(ctx, d.ShopID, d.Test, d.EndpointID)
	if errors.Is(err, ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	switch {
	case ok:
		ep.ConsecutiveFailures = 0
	default:
		ep.ConsecutiveFailures++
		if failedFinally && ep.Status == WebhookActive {
			ep.Status = WebhookFailing
			s.log.Warn("webhook endpoint failing", "endpoint", ep.ID, "shop", ep.ShopID)
		}
	}
	return tx.WebhookEndpointUpdate(ctx, ep)
}

func (s *Service) finishDelivery(ctx context.Context, tx Tx, id string, change func(*WebhookDelivery)) error {
	d, err := tx.WebhookDeliveryGetForUpdate(ctx, id)
	if err != nil {
		return err
	}
	if d.State != DeliveryStatePending {
		return nil
	}
	change(d)
	if err := tx.WebhookDeliveryUpdate(ctx, d); err != nil {
		return err
	}
	return s.refreshSummary(ctx, tx, d.EventID)
}

func truncateUTF8(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	b = b[:n]
	for len(b) > 0 && !utf8.Valid(b) {
		b = b[:len(b)-1]
	}
	return string(b)
}

// ResendEvent delivers an event again, now, to every active endpoint of
// its shop and mode subscribed to its type. The event itself never
// changes; the answer is the event with its delivery summary.
func (s *Service) ResendEvent(ctx context.Context, p *Principal, idem Idempotency, id string) (*Response, error) {
	return s.idempotent(ctx, p, idem, func(tx Tx) (int, any, error) {
		ev, err := tx.EventGet(ctx, p.Shop.ID, p.Test(), id)
		if err != nil {
			return 0, nil, notFoundAs(err, "event")
		}
		if _, err := s.fanOut(ctx, tx, ev); err != nil {
			return 0, nil, err
		}
		if err := s.refreshSummary(ctx, tx, ev.ID); err != nil {
			return 0, nil, err
		}
		if ev, err = tx.EventGet(ctx, p.Shop.ID, p.Test(), id); err != nil {
			return 0, nil, err
		}
		return http.StatusAccepted, ev.WithDelivery(), nil
	})
}

// EventAttempts returns the attempt log of an event, for operators.
func (s *Service) EventAttempts(ctx context.Context, eventID string) (list []*DeliveryAttempt, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		list, err = tx.DeliveryAttemptListByEvent(ctx, eventID)
		return err
	})
	return list, err
}
