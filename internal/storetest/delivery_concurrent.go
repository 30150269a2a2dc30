package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

// testDeliveryClaimConcurrent checks that senders claiming at the same
// time never get the same delivery: the lease is only as good as this.
func testDeliveryClaimConcurrent(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("WhileAnotherHoldsItsClaim", func(t *testing.T) {
		t.Parallel()
		f := newDeliveryFixture(t, open)
		if d := dialect(f.s); d != "postgres" {
			t.Skipf("concurrent transactions need PostgreSQL; dialect %q", d)
		}
		ctx := t.Context()
		ep := f.endpoint(t)
		ev := f.event(t, 12)
		var list []*payd.WebhookDelivery
		for i := range 12 {
			list = append(list, newDelivery(ev, ep, payd.DeliveryStatePending, f.now.Add(-time.Duration(i)*time.Second)))
		}
		f.insert(t, list...)
		p := payd.WebhookDeliveryClaimParams{Now: f.now, LeaseUntil: f.now.Add(time.Minute), Limit: 3, PerEndpoint: 10}

		type result struct {
			works []*payd.DeliveryWork
			err   error
		}
		var a []*payd.DeliveryWork
		done := make(chan result, 1)
		err := f.s.Tx(ctx, func(tx payd.Tx) (err error) {
			if a, err = tx.WebhookDeliveryClaim(ctx, &p); err != nil {
				return err
			}
			// B claims while A's transaction is still open: it must
			// neither wait for A nor take what A took.
			go func() {
				var r result
				r.err = f.s.Tx(ctx, func(tx payd.Tx) (err error) {
					r.works, err = tx.WebhookDeliveryClaim(ctx, &p)
					return err
				})
				done <- r
			}()
			select {
			case r := <-done:
				done <- r
			case <-time.After(20 * time.Second):
				t.Errorf("B's claim still waits after 20 s while A holds its claim; want it to skip A's rows")
			}
			return nil
		})
		if err != nil {
			t.Fatalf("claim A: %v", err)
		}
		r := <-done
		if r.err != nil {
			t.Fatalf("claim B: %v", r.err)
		}
		if len(a) != 3 || len(r.works) != 3 {
			t.Errorf("claims got %d and %d deliveries, want 3 each of the 12 due", len(a), len(r.works))
		}
		for _, id := range workIDs(r.works) {
			if slices.Contains(workIDs(a), id) {
				t.Errorf("delivery %s claimed by both A and B", id)
			}
		}
	})

	// Many senders claim small batches until the queue is empty; every
	// delivery must be claimed exactly once. SQLite serialises the claims,
	// which must give the same answer.
	t.Run("ManySenders", func(t *testing.T) {
		t.Parallel()
		f := newDeliveryFixture(t, open)
		ctx := t.Context()
		eps := []*payd.WebhookEndpoint{f.endpoint(t), f.endpoint(t), f.endpoint(t), f.endpoint(t)}
		ev := f.event(t, 200)
		list := make([]*payd.WebhookDelivery, 200)
		for i := range list {
			list[i] = newDelivery(ev, eps[i%len(eps)], payd.DeliveryStatePending, f.now.Add(-time.Duration(i%7)*time.Second))
		}
		f.insert(t, list...)
		p := payd.WebhookDeliveryClaimParams{Now: f.now, LeaseUntil: f.now.Add(time.Hour), Limit: 5, PerEndpoint: 2}

		var mu sync.Mutex
		claimed := map[string]int{}
		errs := make(chan error, 8)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// A sender stops at its first empty claim; one that got
				// something always claims again, so the last to stop saw
				// the queue empty.
				for n := 0; n < 1000; n++ {
					var works []*payd.DeliveryWork
					err := f.s.Tx(ctx, func(tx payd.Tx) (err error) {
						works, err = tx.WebhookDeliveryClaim(ctx, &p)
						return err
					})
					if err != nil {
						errs <- err
						return
					}
					if len(works) == 0 {
						return
					}
					mu.Lock()
					for _, w := range works {
						claimed[w.Delivery.ID]++
					}
					mu.Unlock()
				}
				errs <- fmt.Errorf("still claiming after 1000 claims")
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("sender: %v", err)
		}
		for id, n := range claimed {
			if n != 1 {
				t.Errorf("delivery %s claimed %d times, want once", id, n)
			}
		}
		got := make([]string, 0, len(claimed))
		for id := range claimed {
			got = append(got, id)
		}
		slices.Sort(got)
		wantDiff(t, "deliveries claimed by all senders", deliveryIDs(list), got)
	})
}
