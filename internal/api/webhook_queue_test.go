package api_test

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/dispatch"
	"github.com/paydhq/payd/internal/paydtest"
)

// hook is a receiver that notes every event id it is sent and the most
// requests it held at once, and answers 200 after its delay.
type hook struct {
	srv   *httptest.Server
	delay time.Duration

	mu          sync.Mutex
	got         []string
	inFlight    int
	maxInFlight int
	released    bool
	release     chan struct{}
}

func newHook(t *testing.T, delay time.Duration) *hook {
	h := &hook{delay: delay, release: make(chan struct{})}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		h.mu.Lock()
		h.got = append(h.got, r.Header.Get("X-Service-Event-Id"))
		h.inFlight++
		h.maxInFlight = max(h.maxInFlight, h.inFlight)
		h.mu.Unlock()
		if h.delay > 0 {
			select {
			case <-time.After(h.delay):
			case <-h.release:
			case <-r.Context().Done():
			}
		}
		h.mu.Lock()
		h.inFlight--
		h.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// stats returns how many requests arrived and the most held at once.
func (h *hook) stats() (received, maxInFlight int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.got), h.maxInFlight
}

// answerAtOnce ends the delay of the requests held and of those to come.
func (h *hook) answerAtOnce() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.released {
		h.released = true
		close(h.release)
	}
}

// startWithHooks runs the service with the given sender sizes, trusting the
// hooks' certificate and their loopback host. Held requests are let go
// before the service stops, so that stopping does not wait for them.
func startWithHooks(t *testing.T, b paydtest.Backend, delivery dispatch.Options, hooks ...*hook) *paydtest.Env {
	pool := x509.NewCertPool()
	for _, h := range hooks {
		pool.AddCert(h.srv.Certificate())
	}
	env := paydtest.Start(t, b, &paydtest.Options{WebhookAllowHosts: []string{"127.0.0.1"}, WebhookRootCAs: pool, Delivery: delivery})
	t.Cleanup(func() {
		for _, h := range hooks {
			h.answerAtOnce()
		}
	})
	return env
}

// subscribe registers an endpoint of the shop's test mode at h.
func subscribe(t *testing.T, c *paydtest.Client, h *hook) string {
	t.Helper()
	ep := c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": h.srv.URL + "/hook", "events": []string{"settlement.frozen"}}).Expect(t, 201).JSON(t)
	return ep["id"].(string)
}

// queueEvents records n settlement.frozen events of the shop's test mode
// in one transaction, as a burst of changes would, and returns their ids.
// Any event type would do; this one's object is small.
func queueEvents(t *testing.T, env *paydtest.Env, shopID string, n int) []string {
	t.Helper()
	ctx := t.Context()
	var ids []string
	err := env.Instance.Store.Tx(ctx, func(tx payd.Tx) error {
		for i := range n {
			ev, err := recordFrozen(ctx, env, tx, shopID, i)
			if err != nil {
				return err
			}
			ids = append(ids, ev.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("record events: %v", err)
	}
	return ids
}

func recordFrozen(ctx context.Context, env *paydtest.Env, tx payd.Tx, shopID string, i int) (*payd.Event, error) {
	shop, err := tx.ShopGet(ctx, shopID)
	if err != nil {
		return nil, err
	}
	status := payd.SettlementStatus{PayoutsFrozen: true, FrozenReason: "manual_review", SettlementDelayDays: 1 + i%30}
	return env.Service.RecordEvent(ctx, tx, payd.NewEventParams{Shop: shop, Test: true, Type: payd.EventSettlementFrozen,
		ObjectType: "settlement_status", ObjectID: shop.MerchantID, Object: status})
}

// summaries returns the delivery summaries of the shop's settlement.frozen
// events, by event id.
func summaries(t *testing.T, c *paydtest.Client) map[string]payd.EventDelivery {
	t.Helper()
	out := map[string]payd.EventDelivery{}
	base := "/v1/events?limit=100&type=settlement.frozen"
	path := base
	for {
		var page struct {
			Items []struct {
				ID       string
				Delivery payd.EventDelivery
			}
			NextCursor *string `json:"next_cursor"`
		}
		c.Get(path).Expect(t, 200).Decode(t, &page)
		for _, it := range page.Items {
			out[it.ID] = it.Delivery
		}
		if page.NextCursor == nil {
			return out
		}
		path = base + "&cursor=" + url.QueryEscape(*page.NextCursor)
	}
}

// TestWebhookSlowReceiverDoesNotHoldOthers queues many events to a
// receiver that takes two seconds to answer and to a healthy one. The slow
// one holds only its few senders, so the healthy one gets all its
// deliveries while the slow one has had a fraction of its own.
func TestWebhookSlowReceiverDoesNotHoldOthers(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		const n = 60
		slow, healthy := newHook(t, 2*time.Second), newHook(t, 0)
		// Few senders in all: a slow endpoint allowed to take them all
		// would leave the healthy one waiting behind it.
		env := startWithHooks(t, b, dispatch.Options{MaxInFlight: 8, PerEndpoint: 4, PerSlowEndpoint: 2}, slow, healthy)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		subscribe(t, c, slow)
		subscribe(t, c, healthy)
		queueEvents(t, env, shop.ID, n)

		waitLong(t, "the healthy receiver's deliveries", func() bool { got, _ := healthy.stats(); return got == n })
		// At one answer a second the slow receiver needs a minute for its
		// share; holding the healthy one behind it would let it catch up
		// to at least half by now.
		if got, _ := slow.stats(); got >= n/2 {
			t.Errorf("the slow receiver already received %d of %d when the healthy one had all; it held the healthy one back", got, n)
		}
		if _, most := slow.stats(); most > 2 {
			t.Errorf("the slow receiver held %d requests at once, want at most PerSlowEndpoint 2", most)
		}
		// Once it answers quickly, the slow receiver gets the rest, and
		// every event ends succeeded.
		slow.answerAtOnce()
		waitLong(t, "the formerly slow receiver's deliveries", func() bool { got, _ := slow.stats(); return got >= n })
		waitLong(t, "every summary succeeded", func() bool {
			sums := summaries(t, c)
			for _, s := range sums {
				if s.Status != payd.DeliverySucceeded {
					return false
				}
			}
			return len(sums) == n
		})
	})
}

// TestWebhookPerEndpointLimit checks how many requests one endpoint holds
// at once: never more than PerEndpoint, and no more than PerSlowEndpoint
// while it has not answered quickly.
func TestWebhookPerEndpointLimit(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		const n = 60
		opts := dispatch.Options{MaxInFlight: 64, PerEndpoint: 4, PerSlowEndpoint: 2}
		// The quick one answers after 50 ms, long enough for requests to
		// overlap; the slow one after 1.2 s, over the one-second line.
		quick, slow := newHook(t, 50*time.Millisecond), newHook(t, 1200*time.Millisecond)
		env := startWithHooks(t, b, opts, quick, slow)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		subscribe(t, c, quick)
		subscribe(t, c, slow)
		queueEvents(t, env, shop.ID, n)

		waitLong(t, "the quick receiver's deliveries", func() bool { got, _ := quick.stats(); return got == n })
		_, most := quick.stats()
		if most > opts.PerEndpoint {
			t.Errorf("the quick receiver held %d requests at once, want at most PerEndpoint %d", most, opts.PerEndpoint)
		}
		// Quick answers raise the limit above where it starts.
		if most <= opts.PerSlowEndpoint {
			t.Errorf("the quick receiver never held more than %d requests at once; its limit should grow past PerSlowEndpoint %d", most, opts.PerSlowEndpoint)
		}
		// Give the slow one several rounds at its limit.
		waitLong(t, "several slow deliveries", func() bool { got, _ := slow.stats(); return got >= 3*opts.PerSlowEndpoint })
		if _, most := slow.stats(); most > opts.PerSlowEndpoint {
			t.Errorf("the slow receiver held %d requests at once, want at most PerSlowEndpoint %d", most, opts.PerSlowEndpoint)
		}
	})
}

// TestWebhookLeaseRunsOut claims a delivery the way a sender does and then
// never records it, as if that sender had died: once the lease runs out on
// the service clock, the delivery is sent again.
func TestWebhookLeaseRunsOut(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		const lease = 5 * time.Minute
		h := newHook(t, 0)
		env := startWithHooks(t, b, dispatch.Options{Lease: lease}, h)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		subscribe(t, c, h)

		// The event and its delivery commit already claimed, so the
		// running sender never sees the delivery due.
		ctx := t.Context()
		var evID string
		err := env.Instance.Store.Tx(ctx, func(tx payd.Tx) error {
			ev, err := recordFrozen(ctx, env, tx, shop.ID, 0)
			if err != nil {
				return err
			}
			evID = ev.ID
			now := env.Clock.Now()
			works, err := tx.WebhookDeliveryClaim(ctx, &payd.WebhookDeliveryClaimParams{Now: now, LeaseUntil: now.Add(lease),
				Limit: 10, PerEndpoint: 10})
			if err != nil {
				return err
			}
			if len(works) != 1 || works[0].Delivery.EventID != ev.ID {
				return fmt.Errorf("claimed %d deliveries, want the event's one", len(works))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// While the lease holds, a look at the queue finds nothing to send.
		env.Service.KickDeliveries()
		env.Settle(t)
		if got, _ := h.stats(); got != 0 {
			t.Fatalf("the leased delivery was sent %d times before its lease ran out", got)
		}
		if s := summaries(t, c)[evID]; s.Status != payd.DeliveryPending {
			t.Fatalf("summary while leased = %+v, want pending", s)
		}

		env.Clock.Advance(lease + time.Second)
		paydtest.Eventually(t, "the delivery after its lease", func() bool { got, _ := h.stats(); return got == 1 })
		h.mu.Lock()
		sent := h.got[0]
		h.mu.Unlock()
		if sent != evID {
			t.Errorf("sent event %s, want %s", sent, evID)
		}
		paydtest.Eventually(t, "the summary", func() bool {
			s := summaries(t, c)[evID]
			return s.Status == payd.DeliverySucceeded && s.Attempts == 1
		})
	})
}

// TestWebhookSummaryAfterBurst sends one event to many endpoints at once;
// their outcomes are recorded in several batches, and the summary must
// end succeeded with every attempt counted, never stuck pending.
func TestWebhookSummaryAfterBurst(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		const endpoints = 40
		hooks := make([]*hook, endpoints)
		for i := range hooks {
			// Answers spread over 0–195 ms, so the outcomes come to the
			// writer at different times.
			hooks[i] = newHook(t, time.Duration(i%40)*5*time.Millisecond)
		}
		env := startWithHooks(t, b, dispatch.Options{}, hooks...)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		for _, h := range hooks {
			subscribe(t, c, h)
		}
		evID := queueEvents(t, env, shop.ID, 1)[0]
		waitLong(t, "every endpoint's delivery", func() bool {
			for _, h := range hooks {
				if got, _ := h.stats(); got != 1 {
					return false
				}
			}
			return true
		})
		var s payd.EventDelivery
		waitLong(t, "the summary to leave pending", func() bool {
			s = summaries(t, c)[evID]
			return s.Status != payd.DeliveryPending
		})
		if s.Status != payd.DeliverySucceeded || s.Attempts != endpoints || s.LastResponseCode == nil || *s.LastResponseCode != 200 {
			t.Errorf("summary = %+v, want succeeded with %d attempts and last answer 200", s, endpoints)
		}
		var log struct{ Items []payd.DeliveryAttempt }
		env.AdminDo("GET", "/admin/v1/events/"+evID+"/attempts", nil).Expect(t, 200).Decode(t, &log)
		if len(log.Items) != endpoints {
			t.Errorf("%d attempts logged, want %d", len(log.Items), endpoints)
		}
	})
}
