package storetest

import (
	"testing"
	"time"

	"github.com/paydhq/payd"
)

func testEventDeliveryCount(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("Table", func(t *testing.T) {
		t.Parallel()
		f := newDeliveryFixture(t, open)
		t1, t2, t3 := f.now.Add(time.Second), f.now.Add(2*time.Second), f.now.Add(3*time.Second)
		type change = payd.EventDeliveryChange
		cases := []struct {
			name string
			// queued is how many deliveries the event starts with.
			queued  int
			changes []change
			want    payd.EventDelivery
		}{
			{"nothing happened yet", 2, nil,
				payd.EventDelivery{Status: payd.DeliveryPending}},
			{"no endpoints, an empty change", 0, []change{{}},
				payd.EventDelivery{Status: payd.DeliveryNone}},
			{"no endpoints, then a resend to one", 0, []change{{Added: 1}},
				payd.EventDelivery{Status: payd.DeliveryPending}},
			{"one of two succeeded", 2, []change{{Attempts: 1, Finished: 1, LastAttemptAt: &t1, LastResponseCode: ptr(200)}},
				payd.EventDelivery{Status: payd.DeliveryPending, Attempts: 1, LastAttemptAt: &t1, LastResponseCode: ptr(200)}},
			{"both succeeded, in two changes", 2, []change{
				{Attempts: 1, Finished: 1, LastAttemptAt: &t1, LastResponseCode: ptr(200)},
				{Attempts: 1, Finished: 1, LastAttemptAt: &t2, LastResponseCode: ptr(204)}},
				payd.EventDelivery{Status: payd.DeliverySucceeded, Attempts: 2, LastAttemptAt: &t2, LastResponseCode: ptr(204)}},
			{"both succeeded, in one change", 2, []change{{Attempts: 2, Finished: 2, LastAttemptAt: &t1, LastResponseCode: ptr(200)}},
				payd.EventDelivery{Status: payd.DeliverySucceeded, Attempts: 2, LastAttemptAt: &t1, LastResponseCode: ptr(200)}},
			{"a retry is still pending", 1, []change{{Attempts: 1, LastAttemptAt: &t1, LastResponseCode: ptr(500)}},
				payd.EventDelivery{Status: payd.DeliveryPending, Attempts: 1, LastAttemptAt: &t1, LastResponseCode: ptr(500)}},
			{"one failed, one succeeded", 2, []change{
				{Attempts: 10, Finished: 1, Failed: 1, LastAttemptAt: &t2, LastResponseCode: ptr(500)},
				{Attempts: 1, Finished: 1, LastAttemptAt: &t1, LastResponseCode: ptr(200)}},
				payd.EventDelivery{Status: payd.DeliveryFailed, Attempts: 11, LastAttemptAt: &t2, LastResponseCode: ptr(500)}},
			{"skipped without an attempt", 1, []change{{Finished: 1, Failed: 1}},
				payd.EventDelivery{Status: payd.DeliveryFailed}},
			{"failed, then a resend is pending", 1, []change{
				{Attempts: 10, Finished: 1, Failed: 1, LastAttemptAt: &t1, LastResponseCode: ptr(500)},
				{Added: 1}},
				payd.EventDelivery{Status: payd.DeliveryPending, Attempts: 10, LastAttemptAt: &t1, LastResponseCode: ptr(500)}},
			// docs/webhooks.md: failed when any failed or was skipped and
			// no resend replaced it.
			{"failed, then a resend replaced it and succeeded", 1, []change{
				{Attempts: 10, Finished: 1, Failed: 1, LastAttemptAt: &t1, LastResponseCode: ptr(500)},
				{Added: 1, Replaced: 1},
				{Attempts: 1, Finished: 1, LastAttemptAt: &t2, LastResponseCode: ptr(200)}},
				payd.EventDelivery{Status: payd.DeliverySucceeded, Attempts: 11, LastAttemptAt: &t2, LastResponseCode: ptr(200)}},
			{"two failed, a resend replaced one and succeeded", 2, []change{
				{Attempts: 20, Finished: 2, Failed: 2, LastAttemptAt: &t1, LastResponseCode: ptr(500)},
				{Added: 1, Replaced: 1},
				{Attempts: 1, Finished: 1, LastAttemptAt: &t2, LastResponseCode: ptr(200)}},
				payd.EventDelivery{Status: payd.DeliveryFailed, Attempts: 21, LastAttemptAt: &t2, LastResponseCode: ptr(200)}},
			{"failed, then a resend replaced it and failed too", 1, []change{
				{Attempts: 10, Finished: 1, Failed: 1, LastAttemptAt: &t1, LastResponseCode: ptr(500)},
				{Added: 1, Replaced: 1},
				{Attempts: 10, Finished: 1, Failed: 1, LastAttemptAt: &t2, LastResponseCode: ptr(503)}},
				payd.EventDelivery{Status: payd.DeliveryFailed, Attempts: 20, LastAttemptAt: &t2, LastResponseCode: ptr(503)}},
			// Batches can be recorded out of the order of their attempts:
			// an older attempt never moves the last one back.
			{"an older attempt recorded later", 3, []change{
				{Attempts: 1, Finished: 1, LastAttemptAt: &t2, LastResponseCode: ptr(201)},
				{Attempts: 1, Finished: 1, LastAttemptAt: &t1, LastResponseCode: ptr(500)},
				{Attempts: 1, LastAttemptAt: &t3, LastResponseCode: ptr(502)}},
				payd.EventDelivery{Status: payd.DeliveryPending, Attempts: 3, LastAttemptAt: &t3, LastResponseCode: ptr(502)}},
			{"a change without an attempt keeps the last one", 2, []change{
				{Attempts: 1, Finished: 1, LastAttemptAt: &t2, LastResponseCode: ptr(200)},
				{Finished: 1, Failed: 1}},
				payd.EventDelivery{Status: payd.DeliveryFailed, Attempts: 1, LastAttemptAt: &t2, LastResponseCode: ptr(200)}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				ev := f.event(t, tc.queued)
				// Each change is its own transaction, as each batch of
				// outcomes is; a bystander event in the same statement
				// must not be touched.
				by := f.event(t, 1)
				for _, c := range tc.changes {
					c.EventID = ev.ID
					mustTx(t, f.s, func(tx payd.Tx) error {
						return tx.EventDeliveryCount(t.Context(), []payd.EventDeliveryChange{c, {EventID: by.ID}})
					})
				}
				wantDiff(t, "delivery summary", tc.want, getEventDelivery(t, f.s, ev))
				wantDiff(t, "bystander's summary", payd.EventDelivery{Status: payd.DeliveryPending}, getEventDelivery(t, f.s, by))
			})
		}
	})

	t.Run("SeveralEventsInOneCall", func(t *testing.T) {
		t.Parallel()
		f := newDeliveryFixture(t, open)
		a, b, c := f.event(t, 1), f.event(t, 2), f.event(t, 1)
		at := f.now.Add(time.Second)
		mustTx(t, f.s, func(tx payd.Tx) error {
			return tx.EventDeliveryCount(t.Context(), []payd.EventDeliveryChange{
				{EventID: a.ID, Attempts: 1, Finished: 1, LastAttemptAt: &at, LastResponseCode: ptr(200)},
				{EventID: b.ID, Attempts: 2, Finished: 1, Failed: 1, LastAttemptAt: &at, LastResponseCode: ptr(410)},
				{EventID: c.ID, Attempts: 1, LastAttemptAt: &at, LastResponseCode: ptr(503)},
			})
		})
		wantDiff(t, "a", payd.EventDelivery{Status: payd.DeliverySucceeded, Attempts: 1, LastAttemptAt: &at, LastResponseCode: ptr(200)}, getEventDelivery(t, f.s, a))
		wantDiff(t, "b", payd.EventDelivery{Status: payd.DeliveryPending, Attempts: 2, LastAttemptAt: &at, LastResponseCode: ptr(410)}, getEventDelivery(t, f.s, b))
		wantDiff(t, "c", payd.EventDelivery{Status: payd.DeliveryPending, Attempts: 1, LastAttemptAt: &at, LastResponseCode: ptr(503)}, getEventDelivery(t, f.s, c))
	})

	t.Run("OneEventTwiceInOneCall", func(t *testing.T) {
		t.Parallel()
		f := newDeliveryFixture(t, open)
		ev := f.event(t, 2)
		t1, t2 := f.now.Add(time.Second), f.now.Add(2*time.Second)
		mustTx(t, f.s, func(tx payd.Tx) error {
			return tx.EventDeliveryCount(t.Context(), []payd.EventDeliveryChange{
				{EventID: ev.ID, Attempts: 1, Finished: 1, LastAttemptAt: &t2, LastResponseCode: ptr(201)},
				{EventID: ev.ID, Attempts: 1, Finished: 1, LastAttemptAt: &t1, LastResponseCode: ptr(200)},
			})
		})
		wantDiff(t, "summary", payd.EventDelivery{Status: payd.DeliverySucceeded, Attempts: 2, LastAttemptAt: &t2, LastResponseCode: ptr(201)}, getEventDelivery(t, f.s, ev))
	})

	// Two batches finishing the last two deliveries of one event at once
	// must both count: a change computed from a stale row would leave the
	// event pending for ever. Only PostgreSQL runs two writers at once.
	t.Run("ConcurrentChanges", func(t *testing.T) {
		t.Parallel()
		f := newDeliveryFixture(t, open)
		if d := dialect(f.s); d != "postgres" {
			t.Skipf("concurrent transactions need PostgreSQL; dialect %q", d)
		}
		ctx := t.Context()
		ev := f.event(t, 2)
		t1, t2 := f.now.Add(time.Second), f.now.Add(2*time.Second)
		first := payd.EventDeliveryChange{EventID: ev.ID, Attempts: 1, Finished: 1, LastAttemptAt: &t2, LastResponseCode: ptr(200)}
		second := payd.EventDeliveryChange{EventID: ev.ID, Attempts: 3, Finished: 1, LastAttemptAt: &t1, LastResponseCode: ptr(204)}
		errB := make(chan error, 1)
		err := f.s.Tx(ctx, func(a payd.Tx) error {
			if err := a.EventDeliveryCount(ctx, []payd.EventDeliveryChange{first}); err != nil {
				return err
			}
			go func() {
				errB <- f.s.Tx(ctx, func(b payd.Tx) error { return b.EventDeliveryCount(ctx, []payd.EventDeliveryChange{second}) })
			}()
			// B must wait for A's row; finishing first would mean it
			// counted from the row as it was before A.
			select {
			case err := <-errB:
				t.Errorf("B's change ended (error %v) while A held the event's row; want it to wait", err)
			case <-time.After(300 * time.Millisecond):
			}
			return nil
		})
		if err != nil {
			t.Fatalf("transaction A: %v", err)
		}
		select {
		case err := <-errB:
			if err != nil {
				t.Fatalf("transaction B: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("B still waits after A committed")
		case <-ctx.Done():
		}
		wantDiff(t, "summary after both", payd.EventDelivery{Status: payd.DeliverySucceeded, Attempts: 4, LastAttemptAt: &t2,
			LastResponseCode: ptr(200)}, getEventDelivery(t, f.s, ev))
	})
}

func getEventDelivery(t *testing.T, s payd.Store, ev *payd.Event) payd.EventDelivery {
	t.Helper()
	var got *payd.Event
	mustView(t, s, func(tx payd.Tx) (err error) {
		got, err = tx.EventGet(t.Context(), ev.ShopID, ev.Test, ev.ID)
		return err
	})
	return got.Delivery
}
