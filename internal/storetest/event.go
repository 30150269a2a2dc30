package storetest

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

func eventCursor(e *payd.Event) payd.Cursor { return payd.Cursor{CreatedAt: e.CreatedAt, ID: e.ID} }

func newEvent(shopID, merchantID string, test bool, typ payd.EventType, objectID string, created time.Time) *payd.Event {
	id := newID(payd.PrefixEvent, created)
	return &payd.Event{ID: id, ShopID: shopID, MerchantID: merchantID, Test: test, Type: typ, ObjectID: objectID,
		CreatedAt: created, Body: json.RawMessage(`{"id":"` + id + `","type":"` + string(typ) + `"}`),
		Delivery: payd.EventDelivery{Status: payd.DeliveryPending}}
}

func testEvent(t *testing.T, open func(t *testing.T) payd.Store) {
	getEvent := func(t *testing.T, s payd.Store, shopID string, test bool, id string) (e *payd.Event, err error) {
		err = s.View(t.Context(), func(tx payd.Tx) error {
			e, err = tx.EventGet(t.Context(), shopID, test, id)
			return err
		})
		return e, err
	}

	t.Run("InsertGet", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		shopID, otherShop, merchantID := newID(payd.PrefixShop, now), newID(payd.PrefixShop, now), newID(payd.PrefixMerchant, now)

		// The body is what every delivery and resend carries, so it must
		// survive byte for byte: no re-indenting, no key reordering, no
		// unescaping, as a JSON column type would do.
		e := newEvent(shopID, merchantID, true, payd.EventPaymentSucceeded, "pay_1", now)
		e.Body = json.RawMessage("{ \"z\" :1,\r\n\t\"a\":\"Ёлка — 😀 \\u00e9 é\\n\",  \"n\": 1.50e+2,\"dup\":1,\"dup\":2 ,\n" +
			"\"sep\":\"\u2028\u2029\", \"esc\":\"\\/\\\"\"}  \n")
		live := newEvent(shopID, merchantID, false, payd.EventPaymentSucceeded, "pay_1", now)
		delivered := newEvent(shopID, merchantID, true, payd.EventRefundSucceeded, "rf_1", now)
		delivered.Delivery = payd.EventDelivery{Status: payd.DeliveryNone, Attempts: 3}
		mustTx(t, s, func(tx payd.Tx) error {
			for _, ev := range []*payd.Event{e, live, delivered} {
				if err := tx.EventInsert(ctx, ev); err != nil {
					return err
				}
			}
			return nil
		})

		for _, want := range []*payd.Event{e, live, delivered} {
			got, err := getEvent(t, s, want.ShopID, want.Test, want.ID)
			if err != nil {
				t.Fatalf("EventGet: %v", err)
			}
			wantDiff(t, "EventGet", want, got)
			if string(got.Body) != string(want.Body) {
				t.Errorf("EventGet body = %q, want the inserted bytes %q", got.Body, want.Body)
			}
		}

		// Another shop's event, or the other mode's, is not found: the API
		// cannot tell it from a missing one.
		_, err := getEvent(t, s, otherShop, true, e.ID)
		wantErr(t, "EventGet with another shop", err, payd.ErrNoRows)
		_, err = getEvent(t, s, shopID, false, e.ID)
		wantErr(t, "EventGet in the other mode", err, payd.ErrNoRows)
		_, err = getEvent(t, s, shopID, true, newID(payd.PrefixEvent, now))
		wantErr(t, "EventGet of a missing id", err, payd.ErrNoRows)

		// The operator's read finds any shop's event, in either mode, by
		// its id alone.
		for _, want := range []*payd.Event{e, live} {
			var got *payd.Event
			mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.EventGetAny(ctx, want.ID); return err })
			wantDiff(t, "EventGetAny", want, got)
		}
		err = s.View(ctx, func(tx payd.Tx) error {
			_, err := tx.EventGetAny(ctx, newID(payd.PrefixEvent, now))
			return err
		})
		wantErr(t, "EventGetAny of a missing id", err, payd.ErrNoRows)

		dup := newEvent(shopID, merchantID, true, payd.EventPaymentCanceled, "pay_2", now)
		dup.ID = e.ID
		err = s.Tx(ctx, func(tx payd.Tx) error { return tx.EventInsert(ctx, dup) })
		wantErr(t, "EventInsert of a taken id", err, payd.ErrConflict)
	})

	t.Run("List", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		base := ts(time.Now())
		shopID, otherShop, merchantID := newID(payd.PrefixShop, base), newID(payd.PrefixShop, base), newID(payd.PrefixMerchant, base)

		types := []payd.EventType{payd.EventPaymentSucceeded, payd.EventPaymentCanceled, payd.EventRefundSucceeded}
		objects := []string{"pay_A", "pay_B"}
		var all, mine []*payd.Event
		for i, created := range tiedTimes(base, 30) {
			e := newEvent(shopID, merchantID, true, types[i%3], objects[i%2], created)
			// Noise that shares every other attribute: the other mode and
			// another shop.
			switch i % 5 {
			case 1:
				e.Test = false
			case 3:
				e.ShopID = otherShop
			default:
				mine = append(mine, e)
			}
			all = append(all, e)
		}
		mustTx(t, s, func(tx payd.Tx) error {
			for _, i := range rand.Perm(len(all)) {
				if err := tx.EventInsert(ctx, all[i]); err != nil {
					return err
				}
			}
			return nil
		})

		// The created bounds sit exactly on stored times, so inclusive and
		// exclusive ends are told apart.
		gte, lt := all[12].CreatedAt, all[3].CreatedAt
		cases := []struct {
			name   string
			params payd.EventListParams
			keep   func(e *payd.Event) bool
		}{
			{"all", payd.EventListParams{}, func(*payd.Event) bool { return true }},
			{"type", payd.EventListParams{Type: payd.EventPaymentCanceled},
				func(e *payd.Event) bool { return e.Type == payd.EventPaymentCanceled }},
			{"object", payd.EventListParams{ObjectID: "pay_B"},
				func(e *payd.Event) bool { return e.ObjectID == "pay_B" }},
			{"created.gte", payd.EventListParams{Created: payd.TimeRange{GTE: &gte}},
				func(e *payd.Event) bool { return !e.CreatedAt.Before(gte) }},
			{"created.lt", payd.EventListParams{Created: payd.TimeRange{LT: &lt}},
				func(e *payd.Event) bool { return e.CreatedAt.Before(lt) }},
			{"created range", payd.EventListParams{Created: payd.TimeRange{GTE: &gte, LT: &lt}},
				func(e *payd.Event) bool { return !e.CreatedAt.Before(gte) && e.CreatedAt.Before(lt) }},
			{"every filter", payd.EventListParams{Type: payd.EventPaymentSucceeded, ObjectID: "pay_A",
				Created: payd.TimeRange{GTE: &gte, LT: &lt}},
				func(e *payd.Event) bool {
					return e.Type == payd.EventPaymentSucceeded && e.ObjectID == "pay_A" &&
						!e.CreatedAt.Before(gte) && e.CreatedAt.Before(lt)
				}},
			{"no match", payd.EventListParams{Type: payd.EventDisputeOpened}, func(*payd.Event) bool { return false }},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				var want []*payd.Event
				for _, e := range mine {
					if c.keep(e) {
						want = append(want, e)
					}
				}
				want = newestFirst(want, eventCursor)
				if len(want) == 0 && c.name != "no match" {
					t.Fatalf("case %s selects nothing; the fixture is wrong", c.name)
				}
				for _, limit := range []int{0, 1, 2, 3, 7} {
					checkPaging(t, limit, want, eventCursor, func(lp payd.ListParams) (page payd.Page[*payd.Event], err error) {
						p := c.params
						p.ShopID, p.Test, p.ListParams = shopID, true, lp
						err = s.View(ctx, func(tx payd.Tx) error { page, err = tx.EventList(ctx, &p); return err })
						return page, err
					})
				}
			})
		}

		// The live list of the same shop holds exactly the live events.
		var live []*payd.Event
		for _, e := range all {
			if e.ShopID == shopID && !e.Test {
				live = append(live, e)
			}
		}
		checkPaging(t, 2, newestFirst(live, eventCursor), eventCursor, func(lp payd.ListParams) (page payd.Page[*payd.Event], err error) {
			p := payd.EventListParams{ListParams: lp, ShopID: shopID, Test: false}
			err = s.View(ctx, func(tx payd.Tx) error { page, err = tx.EventList(ctx, &p); return err })
			return page, err
		})
	})

	t.Run("DeleteBefore", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		cut := now.Add(-payd.EventRetention)
		shopA, shopB, merchantID := newID(payd.PrefixShop, now), newID(payd.PrefixShop, now), newID(payd.PrefixMerchant, now)
		old := []*payd.Event{
			newEvent(shopA, merchantID, true, payd.EventPaymentSucceeded, "pay_1", cut.Add(-time.Microsecond)),
			newEvent(shopB, merchantID, false, payd.EventPaymentSucceeded, "pay_2", cut.Add(-30*24*time.Hour)),
		}
		kept := []*payd.Event{
			// created_at == cut is not before cut.
			newEvent(shopA, merchantID, true, payd.EventPaymentSucceeded, "pay_3", cut),
			newEvent(shopB, merchantID, false, payd.EventPaymentSucceeded, "pay_4", now),
		}
		mustTx(t, s, func(tx payd.Tx) error {
			for _, e := range slices.Concat(old, kept) {
				if err := tx.EventInsert(ctx, e); err != nil {
					return err
				}
			}
			return nil
		})
		// A batch of one takes the oldest (old[1], a month before the
		// cut) and leaves the other for the next batch.
		var n int64
		mustTx(t, s, func(tx payd.Tx) (err error) { n, err = tx.EventDeleteBefore(ctx, cut, 1); return err })
		if n != 1 {
			t.Errorf("EventDeleteBefore of a batch of 1 = %d, want 1", n)
		}
		if _, err := getEvent(t, s, old[1].ShopID, old[1].Test, old[1].ID); !errors.Is(err, payd.ErrNoRows) {
			t.Errorf("after a batch of 1 the oldest event is still there (error %v)", err)
		}
		if _, err := getEvent(t, s, old[0].ShopID, old[0].Test, old[0].ID); err != nil {
			t.Errorf("a batch of 1 deleted more than the oldest event: %v", err)
		}
		mustTx(t, s, func(tx payd.Tx) (err error) { n, err = tx.EventDeleteBefore(ctx, cut, 100); return err })
		if n != int64(len(old))-1 {
			t.Errorf("EventDeleteBefore = %d, want %d", n, len(old)-1)
		}
		for _, e := range old {
			if _, err := getEvent(t, s, e.ShopID, e.Test, e.ID); !errors.Is(err, payd.ErrNoRows) {
				t.Errorf("EventGet of an event created %v, before the cut %v: error %v, want ErrNoRows", e.CreatedAt, cut, err)
			}
		}
		for _, e := range kept {
			got, err := getEvent(t, s, e.ShopID, e.Test, e.ID)
			if err != nil {
				t.Errorf("EventGet of an event created %v, not before the cut %v: %v", e.CreatedAt, cut, err)
				continue
			}
			wantDiff(t, "kept event", e, got)
		}
		mustTx(t, s, func(tx payd.Tx) (err error) { n, err = tx.EventDeleteBefore(ctx, cut, 100); return err })
		if n != 0 {
			t.Errorf("second EventDeleteBefore = %d, want 0", n)
		}
	})
}

// testEventFeed: the sandbox feed numbers test events in insert order and
// renumbers a resent one past every other, so a reader that goes on from
// the last number it saw gets the resent event again; live events and
// other shops' never show.
func testEventFeed(t *testing.T, open func(t *testing.T) payd.Store) {
	s := open(t)
	ctx := t.Context()
	now := ts(time.Now())
	shopID, otherShop, merchantID := newID(payd.PrefixShop, now), newID(payd.PrefixShop, now), newID(payd.PrefixMerchant, now)
	feed := func(after int64, limit int) (items []payd.EventFeedItem, last int64) {
		t.Helper()
		if err := s.View(ctx, func(tx payd.Tx) (err error) {
			if last, err = tx.EventFeedLast(ctx, shopID); err != nil {
				return err
			}
			items, err = tx.EventFeed(ctx, &payd.EventFeedParams{ShopID: shopID, After: after, Limit: limit})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return items, last
	}
	ids := func(items []payd.EventFeedItem) []string {
		var out []string
		for _, it := range items {
			out = append(out, it.ID)
		}
		return out
	}
	if items, last := feed(0, 10); len(items) != 0 || last != 0 {
		t.Fatalf("empty feed: %v, last %d", items, last)
	}

	var test []*payd.Event
	for i := range 3 {
		e := newEvent(shopID, merchantID, true, payd.EventPaymentSucceeded, "pay_1", now.Add(time.Duration(i)*time.Second))
		live := newEvent(shopID, merchantID, false, payd.EventPaymentSucceeded, "pay_1", now)
		other := newEvent(otherShop, merchantID, true, payd.EventPaymentSucceeded, "pay_2", now)
		mustTx(t, s, func(tx payd.Tx) error {
			for _, ev := range []*payd.Event{e, live, other} {
				if err := tx.EventInsert(ctx, ev); err != nil {
					return err
				}
			}
			return nil
		})
		test = append(test, e)
	}
	items, last := feed(0, 10)
	if got, want := ids(items), []string{test[0].ID, test[1].ID, test[2].ID}; !slices.Equal(got, want) {
		t.Fatalf("feed = %v, want %v", got, want)
	}
	for i := 1; i < len(items); i++ {
		if items[i].Seq <= items[i-1].Seq {
			t.Fatalf("numbers do not grow: %+v", items)
		}
	}
	if last != items[2].Seq || items[0].Type != payd.EventPaymentSucceeded || !items[0].CreatedAt.Equal(test[0].CreatedAt) {
		t.Fatalf("last %d, items %+v", last, items)
	}
	if page, _ := feed(items[0].Seq, 1); len(page) != 1 || page[0].ID != test[1].ID {
		t.Fatalf("page after the first: %+v", page)
	}

	// A resend moves the first event past the others; nothing else moves.
	mustTx(t, s, func(tx payd.Tx) error { return tx.EventResequence(ctx, shopID, test[0].ID) })
	again, newLast := feed(last, 10)
	if len(again) != 1 || again[0].ID != test[0].ID || again[0].Seq <= last || newLast != again[0].Seq {
		t.Fatalf("after the resend: %+v, last %d (was %d)", again, newLast, last)
	}
	if !again[0].CreatedAt.Equal(test[0].CreatedAt) {
		t.Fatalf("the resend changed created_at: %v", again[0].CreatedAt)
	}
	// A live event, or another shop's, is not in this shop's feed.
	live := newEvent(shopID, merchantID, false, payd.EventPaymentSucceeded, "pay_3", now)
	mustTx(t, s, func(tx payd.Tx) error { return tx.EventInsert(ctx, live) })
	err := s.Tx(ctx, func(tx payd.Tx) error { return tx.EventResequence(ctx, shopID, live.ID) })
	if !errors.Is(err, payd.ErrNoRows) {
		t.Fatalf("resequence of a live event: %v, want ErrNoRows", err)
	}
	err = s.Tx(ctx, func(tx payd.Tx) error { return tx.EventResequence(ctx, otherShop, test[1].ID) })
	if !errors.Is(err, payd.ErrNoRows) {
		t.Fatalf("resequence through another shop: %v, want ErrNoRows", err)
	}
}
