package payd

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/paydhq/payd/webhook"
)

// DeliveryOutcome is what became of one claimed delivery: an attempt, or
// none when the delivery was skipped.
type DeliveryOutcome struct {
	work    *DeliveryWork
	attempt *DeliveryAttempt
	ok      bool
}

// Work is the claimed delivery the outcome is of.
func (o *DeliveryOutcome) Work() *DeliveryWork { return o.work }

// Quick reports an attempt answered with 2xx in under a second: the
// dispatcher gives such an endpoint more deliveries at once.
func (o *DeliveryOutcome) Quick() bool {
	return o.attempt != nil && o.ok && o.attempt.DurationMS < 1000
}

// Name is the outcome as metrics count it: succeeded, failed (an attempt
// without a 2xx) or skipped (the endpoint was no longer active).
func (o *DeliveryOutcome) Name() string {
	switch {
	case o.attempt == nil:
		return string(DeliveryStateSkipped)
	case o.ok:
		return string(DeliveryStateSucceeded)
	}
	return string(DeliveryStateFailed)
}

// DeliveryClaim asks for due deliveries (WebhookDeliveryClaimParams less
// the times, which the service clock gives): Lease is how long they stay
// out of other claims.
type DeliveryClaim struct {
	Lease                        time.Duration
	Limit                        int
	Exclude, Slow, Fast          []string
	PerEndpoint, PerFastEndpoint int
}

// ClaimDeliveries leases due deliveries on the service clock.
func (s *Service) ClaimDeliveries(ctx context.Context, c DeliveryClaim) (works []*DeliveryWork, err error) {
	at := s.clock.Now()
	err = s.store.Tx(ctx, func(tx Tx) (err error) {
		works, err = tx.WebhookDeliveryClaim(ctx, &WebhookDeliveryClaimParams{
			Now: at, LeaseUntil: at.Add(c.Lease), Limit: c.Limit, Exclude: c.Exclude, Slow: c.Slow,
			PerEndpoint: c.PerEndpoint, Fast: c.Fast, PerFastEndpoint: c.PerFastEndpoint,
		})
		return err
	})
	return works, err
}

// AttemptDelivery posts the stored event bytes, signed, to the endpoint.
// It runs outside any transaction, so a slow receiver holds no lock.
func (s *Service) AttemptDelivery(ctx context.Context, w *DeliveryWork) *DeliveryOutcome {
	ev, ep := w.Event, w.Endpoint
	if ev == nil || ep == nil || ep.Status != WebhookActive {
		// Events for a disabled, failing or deleted endpoint are kept, not
		// sent; resend delivers them after the endpoint is active again.
		return &DeliveryOutcome{work: w}
	}
	now := s.clock.Now()
	headers := map[string]string{
		"Content-Type":          "application/json",
		"User-Agent":            webhook.UserAgent,
		webhook.EventIDHeader:   ev.ID,
		webhook.SignatureHeader: webhook.Header(now, ev.Body, ep.signingSecrets(now)...),
	}
	res, sendErr := s.sender.Send(ctx, ep.URL, headers, ev.Body, DeliveryTimeout)
	attempt := &DeliveryAttempt{ID: s.ids.NewFor(PrefixAttempt, now, ev.MerchantID), DeliveryID: w.Delivery.ID, EventID: ev.ID,
		EndpointID: ep.ID, URL: ep.URL, At: now, RequestHeaders: headers}
	out := &DeliveryOutcome{work: w, attempt: attempt}
	if sendErr != nil {
		attempt.Error = sendErr.Error()
		return out
	}
	attempt.StatusCode, attempt.DurationMS = res.StatusCode, res.Duration.Milliseconds()
	attempt.ResponseBody = truncateUTF8(res.Body, MaxLoggedResponse)
	out.ok = res.StatusCode >= 200 && res.StatusCode < 300
	if !out.ok {
		attempt.Error = "answer " + strconv.Itoa(res.StatusCode) + " " + res.StatusText + " is not 2xx"
	}
	return out
}

// next is the delivery after the outcome: succeeded, skipped, due again
// after the retry schedule's wait, or failed after the last retry
// (Events: Delivery — Retries).
func (s *Service) next(o *DeliveryOutcome) (d *WebhookDelivery, failedFinally bool) {
	cp := *o.work.Delivery
	d = &cp
	if o.attempt == nil {
		d.State = DeliveryStateSkipped
		return d, false
	}
	d.Attempts++
	d.LastAttemptAt = &o.attempt.At
	if o.attempt.StatusCode != 0 {
		code := o.attempt.StatusCode
		d.LastResponseCode = &code
	}
	d.NextAttemptAt = nil
	switch {
	case o.ok:
		d.State = DeliveryStateSucceeded
	case d.Attempts <= len(retrySchedule):
		due := s.clock.Now().Add(retrySchedule[d.Attempts-1])
		d.NextAttemptAt, d.DueAt = &due, due
	default:
		d.State, failedFinally = DeliveryStateFailed, true
	}
	return d, failedFinally
}

// RecordDeliveries writes a batch of outcomes in one transaction: the
// attempts, the deliveries' new states, the events' summaries and the
// endpoints' failure counts. One transaction per batch rather than per
// attempt is what lets deliveries keep up with thousands of events a
// second on one database writer.
func (s *Service) RecordDeliveries(ctx context.Context, outs []*DeliveryOutcome) error {
	var attempts []*DeliveryAttempt
	deliveries := make([]*WebhookDelivery, len(outs))
	finally := make([]bool, len(outs))
	for i, o := range outs {
		if o.attempt != nil {
			attempts = append(attempts, o.attempt)
		}
		deliveries[i], finally[i] = s.next(o)
	}
	return s.store.Tx(ctx, func(tx Tx) error {
		if err := tx.DeliveryAttemptInsert(ctx, attempts...); err != nil {
			return err
		}
		saved, err := tx.WebhookDeliverySave(ctx, deliveries)
		if err != nil {
			return err
		}
		isSaved := make(map[string]bool, len(saved))
		for _, id := range saved {
			isSaved[id] = true
		}
		// One change per delivery: the store adds up those of one event.
		var changes []EventDeliveryChange
		byEndpoint := map[string][]int{}
		var endpoints []string
		for i, d := range deliveries {
			if !isSaved[d.ID] {
				continue // another sender recorded it first
			}
			c := EventDeliveryChange{EventID: d.EventID}
			if d.State != DeliveryStatePending {
				c.Finished = 1
			}
			if d.State == DeliveryStateFailed || d.State == DeliveryStateSkipped {
				c.Failed = 1
			}
			if a := outs[i].attempt; a != nil {
				c.Attempts, c.LastAttemptAt = 1, &a.At
				if a.StatusCode != 0 {
					c.LastResponseCode = &a.StatusCode
				}
				if ep := outs[i].work.Endpoint; !outs[i].ok || ep.ConsecutiveFailures > 0 {
					if byEndpoint[d.EndpointID] == nil {
						endpoints = append(endpoints, d.EndpointID)
					}
					byEndpoint[d.EndpointID] = append(byEndpoint[d.EndpointID], i)
				}
			}
			changes = append(changes, c)
		}
		if err := tx.EventDeliveryCount(ctx, changes); err != nil {
			return err
		}
		// One order of endpoint row locks for every batch: two senders
		// recording at once never wait on each other in a cycle.
		slices.Sort(endpoints)
		for _, id := range endpoints {
			idx := byEndpoint[id]
			if err := s.endpointOutcome(ctx, tx, outs, finally, idx); err != nil {
				return err
			}
		}
		return nil
	})
}

// endpointOutcome keeps an endpoint's failure count over the attempts of
// one batch, in order: a success resets it; a delivery that spent every
// retry turns the endpoint failing (States: Webhook endpoint). Successes on
// an endpoint without failures never come here, so the common case neither
// locks nor writes the row every delivery to the endpoint would queue on.
func (s *Service) endpointOutcome(ctx context.Context, tx Tx, outs []*DeliveryOutcome, finally []bool, idx []int) error {
	d := outs[idx[0]].work.Delivery
	ep, err := tx.WebhookEndpointGetForUpdate(ctx, d.ShopID, d.Test, d.EndpointID)
	if errors.Is(err, ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, i := range idx {
		if outs[i].ok {
			ep.ConsecutiveFailures = 0
			continue
		}
		ep.ConsecutiveFailures++
		if finally[i] && ep.Status == WebhookActive {
			ep.Status = WebhookFailing
			s.log.Warn("webhook endpoint failing", "endpoint", ep.ID, "shop", ep.ShopID)
		}
	}
	return tx.WebhookEndpointUpdate(ctx, ep)
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
