package payd

import (
	"context"
	"slices"
	"strings"
	"time"
)

// PaymentStory is everything a merchant's staff look at to answer "did it
// get paid, and did our server hear of it": the payment, its refunds and
// disputes, and every event of them with each webhook delivery and every
// attempt of it.
type PaymentStory struct {
	Payment  *Payment
	Refunds  []*Refund
	Disputes []*Dispute
	// Events are oldest first: the order in which things happened.
	Events []*EventStory
}

// EventStory is one event with its deliveries and their attempts.
type EventStory struct {
	Event      *Event
	Deliveries []*WebhookDelivery
	Attempts   []*DeliveryAttempt
}

// storyLimit bounds each part of a story: a payment with more refunds or
// events than this is shown with its newest ones.
const storyLimit = MaxPageSize

// PaymentStory returns the story of a payment of the principal's shop and
// mode, read from one consistent state of the data.
func (s *Service) PaymentStory(ctx context.Context, p *Principal, id string) (st *PaymentStory, err error) {
	err = s.store.Snapshot(ctx, func(tx Tx) error {
		pay, err := inScope(ctx, p, PrefixPayment, "payment", id, tx.PaymentGet)
		if err != nil {
			return err
		}
		st = &PaymentStory{Payment: pay}
		refunds, err := tx.RefundList(ctx, &RefundListParams{ListParams: ListParams{Limit: storyLimit},
			ShopID: p.Shop.ID, Test: p.Test(), PaymentID: id})
		if err != nil {
			return err
		}
		st.Refunds = refunds.Items
		if s.stage >= StageM2 {
			disputes, err := tx.DisputeList(ctx, &DisputeListParams{ListParams: ListParams{Limit: storyLimit},
				ShopID: p.Shop.ID, Test: p.Test(), PaymentID: id})
			if err != nil {
				return err
			}
			st.Disputes = disputes.Items
		}
		objects := []string{id}
		for _, r := range st.Refunds {
			objects = append(objects, r.ID)
		}
		for _, d := range st.Disputes {
			objects = append(objects, d.ID)
		}
		for _, obj := range objects {
			events, err := tx.EventList(ctx, &EventListParams{ListParams: ListParams{Limit: storyLimit},
				ShopID: p.Shop.ID, Test: p.Test(), ObjectID: obj})
			if err != nil {
				return err
			}
			for _, e := range events.Items {
				es := &EventStory{Event: e}
				if es.Deliveries, err = tx.WebhookDeliveryListByEvent(ctx, e.ID); err != nil {
					return err
				}
				if es.Attempts, err = tx.DeliveryAttemptListByEvent(ctx, e.ID); err != nil {
					return err
				}
				st.Events = append(st.Events, es)
			}
		}
		slices.SortStableFunc(st.Events, func(a, b *EventStory) int {
			if c := a.Event.CreatedAt.Compare(b.Event.CreatedAt); c != 0 {
				return c
			}
			return strings.Compare(a.Event.ID, b.Event.ID)
		})
		return nil
	})
	return st, err
}

// PaymentTotal is the count and sum of a shop's payments of one status
// and currency in a period.
type PaymentTotal struct {
	Status   PaymentStatus
	Currency string
	Count    int64
	Sum      int64
}

// PaymentTotals counts and sums the principal's payments created in
// [from, to), by status and currency: the dashboard's home page shows a
// day of them.
func (s *Service) PaymentTotals(ctx context.Context, p *Principal, from, to time.Time) ([]PaymentTotal, error) {
	return read(ctx, s, "count payments", func(tx Tx) ([]PaymentTotal, error) { return tx.PaymentTotals(ctx, p.Shop.ID, p.Test(), from, to) })
}
