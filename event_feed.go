package payd

import (
	"context"
	"time"
)

// EventFeedItem is one place in a shop's sandbox event feed: an event, by
// the number it got when it was created or last resent (migration 0019).
// A resend gives the event a new, higher number, so it appears again at
// the end of the feed while its body and created_at stay as they were.
type EventFeedItem struct {
	Seq       int64
	ID        string
	Type      EventType
	CreatedAt time.Time
}

// EventFeedParams asks for the feed of one shop's test events after a
// number, in number order, at most Limit.
type EventFeedParams struct {
	ShopID string
	After  int64
	Limit  int
}

// EventFeed is the sandbox feed `payd listen` reads: the shop's test
// events numbered after after, lowest first, and the highest number the
// feed has. A live key gets forbidden, as on every test endpoint.
func (s *Service) EventFeed(ctx context.Context, p *Principal, after int64, limit int) (items []EventFeedItem, last int64, err error) {
	if !p.Test() {
		return nil, 0, Errorf(CodeForbidden, "the event feed is of test events and answers test keys only")
	}
	err = s.store.View(ctx, func(tx Tx) error {
		// The highest number first: an event committed between the two
		// reads is then in the page or after last, never skipped by a
		// reader that goes on from last.
		if last, err = tx.EventFeedLast(ctx, p.Shop.ID); err != nil {
			return err
		}
		items, err = tx.EventFeed(ctx, &EventFeedParams{ShopID: p.Shop.ID, After: after, Limit: limit})
		return err
	})
	if err != nil {
		return nil, 0, withOp("event feed", err)
	}
	for _, it := range items {
		last = max(last, it.Seq)
	}
	return items, last, nil
}
