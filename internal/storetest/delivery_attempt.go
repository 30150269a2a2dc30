package storetest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

func newAttempt(ev *payd.Event, ep *payd.WebhookEndpoint, deliveryID string, at time.Time, code int) *payd.DeliveryAttempt {
	return &payd.DeliveryAttempt{ID: newID(payd.PrefixAttempt, at), DeliveryID: deliveryID, EventID: ev.ID, EndpointID: ep.ID, URL: ep.URL,
		At: at, StatusCode: code, DurationMS: 120, ResponseBody: `{"ok":true}`}
}

func testDeliveryAttempt(t *testing.T, open func(t *testing.T) payd.Store) {
	// The operator's attempt log of an event: every POST, in the order
	// they were made.
	t.Run("InsertList", func(t *testing.T) {
		t.Parallel()
		f := newDeliveryFixture(t, open)
		ctx := t.Context()
		ep, ev, other := f.endpoint(t), f.event(t, 1), f.event(t, 1)
		dlv := newID(payd.PrefixDelivery, f.now)
		failed := newAttempt(ev, ep, dlv, f.now, 0)
		failed.Error, failed.ResponseBody, failed.DurationMS = "dial tcp: connection refused", "", 10_000
		// Two attempts of one moment (two endpoints) come in id order;
		// the one with the greater id is written first. (Ids of one
		// moment made by parallel tests need not increase.)
		tiedA, tiedB := newAttempt(ev, ep, dlv, f.now.Add(time.Minute), 500), newAttempt(ev, ep, newID(payd.PrefixDelivery, f.now), f.now.Add(time.Minute), 200)
		if tiedB.ID < tiedA.ID {
			tiedA, tiedB = tiedB, tiedA
		}
		last := newAttempt(ev, ep, dlv, f.now.Add(10*time.Minute), 204)
		mustTx(t, f.s, func(tx payd.Tx) error {
			if err := tx.DeliveryAttemptInsert(ctx, last, tiedB); err != nil {
				return err
			}
			if err := tx.DeliveryAttemptInsert(ctx); err != nil {
				return fmt.Errorf("DeliveryAttemptInsert of none: %w", err)
			}
			return tx.DeliveryAttemptInsert(ctx, newAttempt(other, ep, newID(payd.PrefixDelivery, f.now), f.now, 200), tiedA, failed)
		})
		list := func(eventID string) (got []*payd.DeliveryAttempt) {
			t.Helper()
			mustView(t, f.s, func(tx payd.Tx) (err error) { got, err = tx.DeliveryAttemptListByEvent(ctx, eventID); return err })
			return got
		}
		wantDiff(t, "DeliveryAttemptListByEvent", []*payd.DeliveryAttempt{failed, tiedA, tiedB, last}, list(ev.ID))
		if got := list(newID(payd.PrefixEvent, f.now)); len(got) != 0 {
			t.Errorf("DeliveryAttemptListByEvent of an event without attempts: %d, want none", len(got))
		}

		dup := newAttempt(ev, ep, dlv, f.now, 200)
		dup.ID = last.ID
		wantErr(t, "DeliveryAttemptInsert of a taken id", f.s.Tx(ctx, func(tx payd.Tx) error {
			return tx.DeliveryAttemptInsert(ctx, dup)
		}), payd.ErrConflict)
		wantDiff(t, "DeliveryAttemptListByEvent after the refused duplicate", []*payd.DeliveryAttempt{failed, tiedA, tiedB, last}, list(ev.ID))
	})

	// One sender batch may log more attempts than one statement binds;
	// all of them are kept.
	t.Run("InsertMany", func(t *testing.T) {
		t.Parallel()
		f := newDeliveryFixture(t, open)
		ctx := t.Context()
		ep, ev := f.endpoint(t), f.event(t, 1)
		var many []*payd.DeliveryAttempt
		for i := range 1001 {
			many = append(many, newAttempt(ev, ep, newID(payd.PrefixDelivery, f.now), f.now.Add(time.Duration(i%7)*time.Second), 200+i%3))
		}
		mustTx(t, f.s, func(tx payd.Tx) error { return tx.DeliveryAttemptInsert(ctx, many...) })
		var got []*payd.DeliveryAttempt
		mustView(t, f.s, func(tx payd.Tx) (err error) { got, err = tx.DeliveryAttemptListByEvent(ctx, ev.ID); return err })
		want := slices.SortedFunc(slices.Values(many), func(a, b *payd.DeliveryAttempt) int {
			return cmp.Or(a.At.Compare(b.At), strings.Compare(a.ID, b.ID))
		})
		wantDiff(t, "DeliveryAttemptListByEvent of 1001 attempts", want, got)
	})

	// EventDeliveryUpdate writes an event's delivery summary as it is
	// given (the authorize request's single attempt decides it at once).
	t.Run("EventDeliveryUpdate", func(t *testing.T) {
		t.Parallel()
		f := newDeliveryFixture(t, open)
		ctx := t.Context()
		ev, other := f.event(t, 1), f.event(t, 1)
		get := func(e *payd.Event) payd.EventDelivery {
			t.Helper()
			var got *payd.Event
			mustView(t, f.s, func(tx payd.Tx) (err error) { got, err = tx.EventGet(ctx, e.ShopID, e.Test, e.ID); return err })
			return got.Delivery
		}
		t1, t2 := f.now.Add(time.Second), f.now.Add(2*time.Second)
		for _, d := range []payd.EventDelivery{
			{Status: payd.DeliverySucceeded, Attempts: 1, LastResponseCode: ptr(200), LastAttemptAt: &t1},
			// No answer at all: the code is cleared, the time moves.
			{Status: payd.DeliveryFailed, Attempts: 2, LastAttemptAt: &t2},
			{Status: payd.DeliveryPending},
		} {
			mustTx(t, f.s, func(tx payd.Tx) error { return tx.EventDeliveryUpdate(ctx, ev.ID, d) })
			wantDiff(t, "event delivery after EventDeliveryUpdate", d, get(ev))
			wantDiff(t, "delivery of another event", payd.EventDelivery{Status: payd.DeliveryPending}, get(other))
		}
		wantErr(t, "EventDeliveryUpdate of a missing event", f.s.Tx(ctx, func(tx payd.Tx) error {
			return tx.EventDeliveryUpdate(ctx, newID(payd.PrefixEvent, f.now), payd.EventDelivery{Status: payd.DeliveryFailed})
		}), payd.ErrNoRows)
	})
}
