package storetest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

// deliveryFixture is a fresh store with a shop whose endpoints and events
// deliveries are queued for.
type deliveryFixture struct {
	s    payd.Store
	now  time.Time
	shop *payd.Shop
}

func newDeliveryFixture(t *testing.T, open func(t *testing.T) payd.Store) *deliveryFixture {
	t.Helper()
	s := open(t)
	now := ts(time.Now())
	m := addMerchant(t, s, now)
	return &deliveryFixture{s: s, now: now, shop: addShop(t, s, m.ID, now)}
}

func (f *deliveryFixture) endpoint(t *testing.T) *payd.WebhookEndpoint {
	t.Helper()
	e := &payd.WebhookEndpoint{ID: newID(payd.PrefixWebhookEndpoint, f.now), ShopID: f.shop.ID, Test: true,
		URL: "https://example.com/hooks", Events: []payd.EventType{payd.EventPaymentSucceeded},
		Status: payd.WebhookActive, Secret: "whsec_one", CreatedAt: f.now}
	mustTx(t, f.s, func(tx payd.Tx) error { return tx.WebhookEndpointInsert(t.Context(), e) })
	return e
}

// event inserts an event that starts with n deliveries queued (its
// counters start from n, as RecordEvent inserts it).
func (f *deliveryFixture) event(t *testing.T, n int) *payd.Event {
	t.Helper()
	e := newEvent(f.shop.ID, f.shop.MerchantID, true, payd.EventPaymentSucceeded, "pay_1", f.now)
	e.Deliveries = n
	if n == 0 {
		e.Delivery.Status = payd.DeliveryNone
	}
	mustTx(t, f.s, func(tx payd.Tx) error { return tx.EventInsert(t.Context(), e) })
	return e
}

func (f *deliveryFixture) insert(t *testing.T, list ...*payd.WebhookDelivery) {
	t.Helper()
	mustTx(t, f.s, func(tx payd.Tx) error { return tx.WebhookDeliveryInsert(t.Context(), list...) })
}

// newDelivery carries a trace context, as deliveries queued while tracing
// is on do, so that every comparison of a claimed or listed delivery also
// checks that the store keeps it.
func newDelivery(ev *payd.Event, ep *payd.WebhookEndpoint, state payd.WebhookDeliveryState, due time.Time) *payd.WebhookDelivery {
	return &payd.WebhookDelivery{ID: newID(payd.PrefixDelivery, ev.CreatedAt), EventID: ev.ID, EndpointID: ep.ID, ShopID: ev.ShopID,
		Test: ev.Test, State: state, CreatedAt: ev.CreatedAt, DueAt: due,
		Trace: map[string]string{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}
}

// claim claims in a transaction of its own that commits.
func claim(t *testing.T, s payd.Store, p payd.WebhookDeliveryClaimParams) (works []*payd.DeliveryWork) {
	t.Helper()
	mustTx(t, s, func(tx payd.Tx) (err error) {
		works, err = tx.WebhookDeliveryClaim(t.Context(), &p)
		return err
	})
	return works
}

var errRollback = errors.New("roll back on purpose")

// claimRolledBack claims in a transaction that then rolls back, so that
// several claims can be asked of one state of the queue.
func claimRolledBack(t *testing.T, s payd.Store, p payd.WebhookDeliveryClaimParams) (works []*payd.DeliveryWork) {
	t.Helper()
	err := s.Tx(t.Context(), func(tx payd.Tx) (err error) {
		if works, err = tx.WebhookDeliveryClaim(t.Context(), &p); err != nil {
			return err
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatalf("WebhookDeliveryClaim: %v", err)
	}
	return works
}

// workIDs returns the ids of claimed deliveries, sorted: the order of a
// claim's answer is not part of its contract, its choice is.
func workIDs(works []*payd.DeliveryWork) []string {
	out := make([]string, len(works))
	for i, w := range works {
		out[i] = w.Delivery.ID
	}
	slices.Sort(out)
	return out
}

func deliveryIDs(list []*payd.WebhookDelivery) []string {
	out := make([]string, len(list))
	for i, d := range list {
		out[i] = d.ID
	}
	slices.Sort(out)
	return out
}

func testWebhookDelivery(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("ClaimDueAndLease", func(t *testing.T) {
		t.Parallel()
		f := newDeliveryFixture(t, open)
		ep := f.endpoint(t)
		ev := f.event(t, 4)
		now, lease := f.now, f.now.Add(5*time.Minute)
		// Ids are made in the reverse order of the due times, so a claim
		// that picked by id or by insertion would pick the wrong ones.
		// The newest is due exactly at now.
		var due []*payd.WebhookDelivery
		for i := range 5 {
			due = append(due, newDelivery(ev, ep, payd.DeliveryStatePending, now.Add(-time.Duration(i)*time.Minute)))
		}
		notYet := newDelivery(ev, ep, payd.DeliveryStatePending, now.Add(time.Microsecond))
		var done []*payd.WebhookDelivery
		for _, state := range []payd.WebhookDeliveryState{payd.DeliveryStateSucceeded, payd.DeliveryStateFailed, payd.DeliveryStateSkipped} {
			done = append(done, newDelivery(ev, ep, state, now.Add(-time.Hour)))
		}
		all := slices.Concat(due, []*payd.WebhookDelivery{notYet}, done)
		rand.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		f.insert(t, all...)
		slices.SortFunc(due, func(a, b *payd.WebhookDelivery) int { return a.DueAt.Compare(b.DueAt) })

		p := payd.WebhookDeliveryClaimParams{Now: now, LeaseUntil: lease, Limit: 3, PerEndpoint: 10}
		first := claim(t, f.s, p)
		wantDiff(t, "first claim (Limit 3): the three oldest due", deliveryIDs(due[:3]), workIDs(first))
		// The claimed delivery is the stored one, due at the end of its
		// lease.
		for _, w := range first {
			i := slices.IndexFunc(due, func(d *payd.WebhookDelivery) bool { return d.ID == w.Delivery.ID })
			if i < 0 {
				continue
			}
			want := *due[i]
			want.DueAt = lease
			wantDiff(t, "claimed delivery", &want, w.Delivery)
		}
		p.Limit = 10
		second := claim(t, f.s, p)
		wantDiff(t, "second claim at the same time: the rest of the due, none of the first", deliveryIDs(due[3:]), workIDs(second))
		if got := claim(t, f.s, p); len(got) != 0 {
			t.Errorf("third claim at the same time: %v, want none (all leased)", workIDs(got))
		}

		// Just before the lease ends only the delivery that was not yet
		// due comes; at its end the leased ones come back.
		p.Now, p.LeaseUntil = lease.Add(-time.Microsecond), lease.Add(time.Hour)
		wantDiff(t, "claim just before the lease ends", []string{notYet.ID}, workIDs(claim(t, f.s, p)))
		p.Now = lease
		wantDiff(t, "claim when the lease ends", deliveryIDs(due), workIDs(claim(t, f.s, p)))
		p.Now = lease.Add(48 * time.Hour)
		p.LeaseUntil = p.Now.Add(time.Hour)
		wantDiff(t, "claim much later: every pending delivery, never a finished one",
			deliveryIDs(append(slices.Clone(due), notYet)), workIDs(claim(t, f.s, p)))
	})

	t.Run("ClaimLimits", func(t *testing.T) {
		t.Parallel()
		f := newDeliveryFixture(t, open)
		a, b, c := f.endpoint(t), f.endpoint(t), f.endpoint(t)
		ev := f.event(t, 15)
		base := f.now.Add(-time.Hour)
		// Five deliveries per endpoint: a's are all older than the others'
		// (a backlog), then b's and c's take turns.
		var all []*payd.WebhookDelivery
		for i := range 5 {
			all = append(all, newDelivery(ev, a, payd.DeliveryStatePending, base.Add(time.Duration(i)*time.Second)))
		}
		for i := range 5 {
			for j, ep := range []*payd.WebhookEndpoint{b, c} {
				all = append(all, newDelivery(ev, ep, payd.DeliveryStatePending, base.Add(time.Minute+time.Duration(2*i+j)*time.Second)))
			}
		}
		f.insert(t, all...)
		// of returns the n oldest deliveries of an endpoint.
		of := func(ep *payd.WebhookEndpoint, n int) []*payd.WebhookDelivery {
			var out []*payd.WebhookDelivery
			for _, d := range all {
				if d.EndpointID == ep.ID && len(out) < n {
					out = append(out, d)
				}
			}
			return out
		}
		cases := []struct {
			name string
			p    payd.WebhookDeliveryClaimParams
			want []*payd.WebhookDelivery
		}{
			{"PerEndpoint", payd.WebhookDeliveryClaimParams{Limit: 100, PerEndpoint: 2},
				slices.Concat(of(a, 2), of(b, 2), of(c, 2))},
			{"PerFastEndpoint for Fast", payd.WebhookDeliveryClaimParams{Limit: 100, PerEndpoint: 2, PerFastEndpoint: 4,
				Fast: []string{b.ID}}, slices.Concat(of(a, 2), of(b, 4), of(c, 2))},
			{"Fast with several endpoints", payd.WebhookDeliveryClaimParams{Limit: 100, PerEndpoint: 1, PerFastEndpoint: 3,
				Fast: []string{c.ID, a.ID}}, slices.Concat(of(a, 3), of(b, 1), of(c, 3))},
			{"Limit takes the oldest", payd.WebhookDeliveryClaimParams{Limit: 6, PerEndpoint: 10},
				slices.Concat(of(a, 5), of(b, 1))},
			{"Limit after PerEndpoint", payd.WebhookDeliveryClaimParams{Limit: 4, PerEndpoint: 2},
				slices.Concat(of(a, 2), of(b, 1), of(c, 1))},
			// An excluded endpoint's older backlog must not hide the
			// others: the sender excludes a busy endpoint exactly so that
			// the rest get through.
			{"Exclude", payd.WebhookDeliveryClaimParams{Limit: 3, PerEndpoint: 10, Exclude: []string{a.ID}},
				slices.Concat(of(b, 2), of(c, 1))},
			{"Exclude wins over Fast", payd.WebhookDeliveryClaimParams{Limit: 100, PerEndpoint: 1, PerFastEndpoint: 5,
				Exclude: []string{a.ID, c.ID}, Fast: []string{a.ID, b.ID}}, of(b, 5)},
			{"every endpoint excluded", payd.WebhookDeliveryClaimParams{Limit: 100, PerEndpoint: 10,
				Exclude: []string{a.ID, b.ID, c.ID}}, nil},
			// a's backlog is longer than a claim of 2 looks at (4 rows):
			// named Slow, it is looked at apart and b still gets through.
			{"Slow backlog apart", payd.WebhookDeliveryClaimParams{Limit: 2, PerEndpoint: 1, Slow: []string{a.ID}},
				slices.Concat(of(a, 1), of(b, 1))},
			{"Slow and Fast", payd.WebhookDeliveryClaimParams{Limit: 100, PerEndpoint: 1, PerFastEndpoint: 3,
				Slow: []string{a.ID}, Fast: []string{c.ID}}, slices.Concat(of(a, 1), of(b, 1), of(c, 3))},
			{"Exclude wins over Slow", payd.WebhookDeliveryClaimParams{Limit: 2, PerEndpoint: 5,
				Exclude: []string{a.ID}, Slow: []string{a.ID, b.ID}}, slices.Concat(of(b, 1), of(c, 1))},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				p := tc.p
				p.Now, p.LeaseUntil = f.now, f.now.Add(time.Minute)
				wantDiff(t, "claimed", deliveryIDs(tc.want), workIDs(claimRolledBack(t, f.s, p)))
			})
		}
	})

	t.Run("ClaimFillsWork", func(t *testing.T) {
		t.Parallel()
		f := newDeliveryFixture(t, open)
		active, disabled, deleted := f.endpoint(t), f.endpoint(t), f.endpoint(t)
		disabled.Status = payd.WebhookDisabled
		mustTx(t, f.s, func(tx payd.Tx) error {
			if err := tx.WebhookEndpointUpdate(t.Context(), disabled); err != nil {
				return err
			}
			return tx.WebhookEndpointDelete(t.Context(), f.shop.ID, true, deleted.ID, f.now)
		})
		ev, other := f.event(t, 3), f.event(t, 1)
		gone := newEvent(f.shop.ID, f.shop.MerchantID, true, payd.EventPaymentSucceeded, "pay_2", f.now.Add(-2*payd.EventRetention))
		mustTx(t, f.s, func(tx payd.Tx) error { return tx.EventInsert(t.Context(), gone) })
		list := []*payd.WebhookDelivery{
			newDelivery(ev, active, payd.DeliveryStatePending, f.now),
			newDelivery(ev, disabled, payd.DeliveryStatePending, f.now),
			newDelivery(ev, deleted, payd.DeliveryStatePending, f.now),
			newDelivery(other, active, payd.DeliveryStatePending, f.now),
			newDelivery(gone, active, payd.DeliveryStatePending, f.now),
		}
		f.insert(t, list...)
		mustTx(t, f.s, func(tx payd.Tx) error {
			_, err := tx.EventDeleteBefore(t.Context(), f.now.Add(-payd.EventRetention), 100)
			return err
		})

		works := claim(t, f.s, payd.WebhookDeliveryClaimParams{Now: f.now, LeaseUntil: f.now.Add(time.Minute), Limit: 10, PerEndpoint: 10})
		wantDiff(t, "claimed", deliveryIDs(list), workIDs(works))
		stored := func(e *payd.Event) *payd.Event {
			cp := *e
			cp.Deliveries = 0 // only the insert reads it
			return &cp
		}
		wantEvent := map[string]*payd.Event{ev.ID: stored(ev), other.ID: stored(other), gone.ID: nil}
		wantEndpoint := map[string]*payd.WebhookEndpoint{active.ID: active, disabled.ID: disabled, deleted.ID: nil}
		for _, w := range works {
			d := w.Delivery
			wantDiff(t, fmt.Sprintf("Event of the delivery of %s to %s", d.EventID, d.EndpointID), wantEvent[d.EventID], w.Event)
			wantDiff(t, fmt.Sprintf("Endpoint of the delivery of %s to %s", d.EventID, d.EndpointID), wantEndpoint[d.EndpointID], w.Endpoint)
		}
	})

	t.Run("Replace", func(t *testing.T) {
		t.Parallel()
		f := newDeliveryFixture(t, open)
		ep := f.endpoint(t)
		ev := f.event(t, 4)
		failed := newDelivery(ev, ep, payd.DeliveryStateFailed, f.now)
		skipped := newDelivery(ev, ep, payd.DeliveryStateSkipped, f.now)
		pending := newDelivery(ev, ep, payd.DeliveryStatePending, f.now.Add(time.Minute))
		succeeded := newDelivery(ev, ep, payd.DeliveryStateSucceeded, f.now)
		f.insert(t, failed, skipped, pending, succeeded)
		resent := func(ds ...*payd.WebhookDelivery) (ids []string) {
			var list []*payd.WebhookDelivery
			for _, d := range ds {
				c := *d
				c.State = payd.DeliveryStateResent
				list = append(list, &c)
			}
			mustTx(t, f.s, func(tx payd.Tx) (err error) {
				ids, err = tx.WebhookDeliveryReplace(t.Context(), list)
				return err
			})
			slices.Sort(ids)
			return ids
		}
		// Only failed and skipped deliveries are replaced, and only once.
		wantDiff(t, "replaced", deliveryIDs([]*payd.WebhookDelivery{failed, skipped}), resent(failed, skipped, pending, succeeded))
		wantDiff(t, "replaced again", []string(nil), resent(failed, skipped))
		var list []*payd.WebhookDelivery
		mustTx(t, f.s, func(tx payd.Tx) (err error) {
			list, err = tx.WebhookDeliveryListByEvent(t.Context(), ev.ID)
			return err
		})
		states := map[string]payd.WebhookDeliveryState{}
		for _, d := range list {
			states[d.ID] = d.State
		}
		wantDiff(t, "states", map[string]payd.WebhookDeliveryState{failed.ID: payd.DeliveryStateResent, skipped.ID: payd.DeliveryStateResent,
			pending.ID: payd.DeliveryStatePending, succeeded.ID: payd.DeliveryStateSucceeded}, states)
		// The pending delivery keeps its place in the queue.
		works := claimRolledBack(t, f.s, payd.WebhookDeliveryClaimParams{Now: f.now.Add(time.Minute), LeaseUntil: f.now.Add(time.Hour),
			Limit: 10, PerEndpoint: 10})
		wantDiff(t, "claimable", []string{pending.ID}, workIDs(works))
	})

	t.Run("Save", func(t *testing.T) {
		t.Parallel()
		f := newDeliveryFixture(t, open)
		ep := f.endpoint(t)
		ev := f.event(t, 3)
		done := newDelivery(ev, ep, payd.DeliveryStatePending, f.now)
		retry := newDelivery(ev, ep, payd.DeliveryStatePending, f.now)
		final := newDelivery(ev, ep, payd.DeliveryStateSucceeded, f.now)
		f.insert(t, done, retry, final)

		at, code := f.now.Add(time.Second), 503
		next := f.now.Add(time.Minute)
		doneNew, retryNew, finalNew := *done, *retry, *final
		doneNew.State, doneNew.Attempts, doneNew.LastAttemptAt = payd.DeliveryStateSucceeded, 1, &at
		retryNew.Attempts, retryNew.LastAttemptAt, retryNew.LastResponseCode = 1, &at, &code
		retryNew.NextAttemptAt, retryNew.DueAt = &next, next
		finalNew.State, finalNew.Attempts = payd.DeliveryStateFailed, 7
		ghost := newDelivery(ev, ep, payd.DeliveryStatePending, f.now)

		var saved []string
		mustTx(t, f.s, func(tx payd.Tx) (err error) {
			saved, err = tx.WebhookDeliverySave(t.Context(), []*payd.WebhookDelivery{&finalNew, &doneNew, ghost, &retryNew})
			return err
		})
		slices.Sort(saved)
		wantDiff(t, "ids saved: the pending ones only", deliveryIDs([]*payd.WebhookDelivery{done, retry}), saved)

		var got []*payd.WebhookDelivery
		mustView(t, f.s, func(tx payd.Tx) (err error) {
			got, err = tx.WebhookDeliveryListByEvent(t.Context(), ev.ID)
			return err
		})
		// The list reads the documents, which do not carry DueAt.
		for _, d := range []*payd.WebhookDelivery{&doneNew, &retryNew, final} {
			d.DueAt = time.Time{}
		}
		want := []*payd.WebhookDelivery{&doneNew, &retryNew, final}
		slices.SortFunc(want, func(a, b *payd.WebhookDelivery) int { return strings.Compare(a.ID, b.ID) })
		wantDiff(t, "deliveries after the save", want, got)

		// The retry is due again at its new time, and only then; the
		// succeeded one never again.
		p := payd.WebhookDeliveryClaimParams{Now: next.Add(-time.Microsecond), LeaseUntil: next.Add(time.Hour), Limit: 10, PerEndpoint: 10}
		if works := claim(t, f.s, p); len(works) != 0 {
			t.Errorf("claim before the retry is due: %v, want none", workIDs(works))
		}
		p.Now = next
		wantDiff(t, "claim when the retry is due", []string{retry.ID}, workIDs(claim(t, f.s, p)))

		// A second save of a delivery that is no longer pending changes
		// nothing and returns nothing; an empty save is no statement.
		again := doneNew
		again.State, again.Attempts = payd.DeliveryStateFailed, 9
		mustTx(t, f.s, func(tx payd.Tx) (err error) {
			saved, err = tx.WebhookDeliverySave(t.Context(), []*payd.WebhookDelivery{&again})
			if err != nil {
				return err
			}
			if len(saved) != 0 {
				return fmt.Errorf("second save of a succeeded delivery returned %v, want none", saved)
			}
			saved, err = tx.WebhookDeliverySave(t.Context(), nil)
			if err == nil && len(saved) != 0 {
				return fmt.Errorf("empty save returned %v", saved)
			}
			return err
		})
		mustView(t, f.s, func(tx payd.Tx) (err error) {
			got, err = tx.WebhookDeliveryListByEvent(t.Context(), ev.ID)
			return err
		})
		wantDiff(t, "deliveries after saving a finished one again", want, got)
	})

	t.Run("InsertMany", func(t *testing.T) {
		t.Parallel()
		f := newDeliveryFixture(t, open)
		eps := []*payd.WebhookEndpoint{f.endpoint(t), f.endpoint(t)}
		ev := f.event(t, 1001)
		// More rows than one INSERT statement takes: the rest must follow.
		list := make([]*payd.WebhookDelivery, 1001)
		for i := range list {
			list[i] = newDelivery(ev, eps[i%2], payd.DeliveryStatePending, f.now.Add(-time.Duration(i)*time.Microsecond))
		}
		f.insert(t, list...)
		var got []*payd.WebhookDelivery
		mustView(t, f.s, func(tx payd.Tx) (err error) {
			got, err = tx.WebhookDeliveryListByEvent(t.Context(), ev.ID)
			return err
		})
		wantDiff(t, "deliveries listed", deliveryIDs(list), deliveryIDs(got))
		works := claim(t, f.s, payd.WebhookDeliveryClaimParams{Now: f.now, LeaseUntil: f.now.Add(time.Minute), Limit: 1001, PerEndpoint: 1001})
		wantDiff(t, "deliveries claimed", deliveryIDs(list), workIDs(works))
	})
}
