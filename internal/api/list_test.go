package api_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

type storedEvent struct {
	id, typ, object string
	created         time.Time
}

// seedEvents records n events for the shop in one mode, spread over time,
// with two types and five object ids.
func seedEvents(t *testing.T, env *paydtest.Env, shop *payd.Shop, test bool, n int) []storedEvent {
	t.Helper()
	var out []storedEvent
	ctx := context.Background()
	for i := 0; i < n; i++ {
		if i%10 == 0 {
			env.Clock.Advance(time.Minute)
		}
		typ := payd.EventSettlementFrozen
		if i%3 == 0 {
			typ = payd.EventSettlementUnfrozen
		}
		obj := fmt.Sprintf("obj_%d", i%5)
		err := env.Instance.Store.Tx(ctx, func(tx payd.Tx) error {
			ev, err := env.Service.RecordEvent(ctx, tx, payd.NewEventParams{
				Shop: shop, Test: test, Type: typ, ObjectType: "settlement_status", ObjectID: obj,
				Object: payd.SettlementStatus{SettlementDelayDays: 1},
			})
			if err == nil {
				out = append(out, storedEvent{ev.ID, string(typ), obj, ev.CreatedAt})
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestListPagination pages through 250 stored events with every filter
// combination and several page sizes, and compares with the expected order:
// created_at descending, nothing missing, nothing twice.
func TestListPagination(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		s := env.NewShop(payd.RegionRU, "")
		other := env.NewShop(payd.RegionRU, "")
		shop, _ := env.Service.GetShop(context.Background(), s.ID)
		otherShop, _ := env.Service.GetShop(context.Background(), other.ID)
		events := seedEvents(t, env, shop, true, 250)
		seedEvents(t, env, shop, false, 15)     // live: never in a test list
		seedEvents(t, env, otherShop, true, 15) // another shop: never listed
		slices.SortFunc(events, func(a, b storedEvent) int {
			if c := b.created.Compare(a.created); c != 0 {
				return c
			}
			if a.id > b.id {
				return -1
			}
			return 1
		})
		mid, late := events[180].created, events[40].created
		c := env.As(s, false)

		type filter struct {
			name string
			q    url.Values
			keep func(storedEvent) bool
		}
		all := func(storedEvent) bool { return true }
		filters := []filter{
			{"none", url.Values{}, all},
			{"type", url.Values{"type": {"settlement.unfrozen"}}, func(e storedEvent) bool { return e.typ == "settlement.unfrozen" }},
			{"object_id", url.Values{"object_id": {"obj_3"}}, func(e storedEvent) bool { return e.object == "obj_3" }},
			{"type+object_id", url.Values{"type": {"settlement.frozen"}, "object_id": {"obj_1"}},
				func(e storedEvent) bool { return e.typ == "settlement.frozen" && e.object == "obj_1" }},
			{"created_at_gte", url.Values{"created_at_gte": {mid.Format(time.RFC3339Nano)}}, func(e storedEvent) bool { return !e.created.Before(mid) }},
			{"created_at_lt", url.Values{"created_at_lt": {mid.Format(time.RFC3339Nano)}}, func(e storedEvent) bool { return e.created.Before(mid) }},
			{"range", url.Values{"created_at_gte": {mid.Format(time.RFC3339Nano)}, "created_at_lt": {late.Format(time.RFC3339Nano)}},
				func(e storedEvent) bool { return !e.created.Before(mid) && e.created.Before(late) }},
			{"everything", url.Values{"type": {"settlement.frozen"}, "object_id": {"obj_2"},
				"created_at_gte": {mid.Format(time.RFC3339Nano)}, "created_at_lt": {late.Format(time.RFC3339Nano)}},
				func(e storedEvent) bool {
					return e.typ == "settlement.frozen" && e.object == "obj_2" && !e.created.Before(mid) && e.created.Before(late)
				}},
		}
		for _, f := range filters {
			var want []string
			for _, e := range events {
				if f.keep(e) {
					want = append(want, e.id)
				}
			}
			for _, limit := range []int{0, 7, 100} {
				if f.name == "everything" {
					limit = 1
				}
				var got []string
				q := url.Values{}
				for k, v := range f.q {
					q[k] = v
				}
				if limit > 0 {
					q.Set("limit", fmt.Sprint(limit))
				}
				pageSize := limit
				if pageSize == 0 {
					pageSize = payd.DefaultPageSize
				}
				for pages := 0; ; pages++ {
					if pages > 260 {
						t.Fatalf("%s: pagination does not end", f.name)
					}
					var page struct {
						Items []struct {
							ID       string
							Delivery *struct{ Status string }
						}
						NextCursor *string `json:"next_cursor"`
					}
					c.Get("/v1/events?"+q.Encode()).Expect(t, 200).Decode(t, &page)
					if len(page.Items) > pageSize {
						t.Fatalf("%s: page of %d items, limit %d", f.name, len(page.Items), pageSize)
					}
					for _, it := range page.Items {
						if it.Delivery == nil {
							t.Fatalf("%s: event %s without delivery summary", f.name, it.ID)
						}
						got = append(got, it.ID)
					}
					if page.NextCursor == nil {
						break
					}
					q.Set("cursor", *page.NextCursor)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("%s limit %d: mismatch (-want +got):\n%s", f.name, limit, diff)
				}
				if f.name == "everything" {
					break
				}
			}
		}

		// A cursor belongs to its filters.
		var first struct {
			NextCursor *string `json:"next_cursor"`
		}
		c.Get("/v1/events?type=settlement.frozen&limit=5").Expect(t, 200).Decode(t, &first)
		c.Get("/v1/events?limit=5&cursor="+*first.NextCursor).ExpectError(t, 400, payd.CodeInvalidRequest, "cursor")
		c.Get("/v1/events?type=settlement.unfrozen&limit=5&cursor="+*first.NextCursor).ExpectError(t, 400, payd.CodeInvalidRequest, "cursor")
		c.Get("/v1/events?type=settlement.frozen&cursor="+*first.NextCursor).Expect(t, 200)
		c.Get("/v1/events?cursor=bm9wZQ").ExpectError(t, 400, payd.CodeInvalidRequest, "cursor")
		for _, l := range []string{"0", "101", "-1", "ten", "1.5", ""} {
			c.Get("/v1/events?limit="+l).ExpectError(t, 400, payd.CodeInvalidRequest, "limit")
		}
		c.Get("/v1/events?type=payment.paid").ExpectError(t, 400, payd.CodeInvalidRequest, "type")
		c.Get("/v1/events?created_at_gte=yesterday").ExpectError(t, 400, payd.CodeInvalidRequest, "created_at_gte")
		c.Get("/v1/events?object_id="+fmt.Sprintf("%041d", 0)).ExpectError(t, 400, payd.CodeInvalidRequest, "object_id")

		// One event by id; another mode's and another shop's are not found.
		ev := env.As(s, false).Get("/v1/events/"+events[0].id).Expect(t, 200).JSON(t)
		if ev["id"] != events[0].id || ev["test"] != true {
			t.Fatalf("event = %v", ev)
		}
		env.As(other, false).Get("/v1/events/"+events[0].id).ExpectError(t, 404, payd.CodeNotFound, "")
		env.AdminDo("POST", "/admin/v1/shops/"+s.ID+"/activate", nil).Expect(t, 200)
		env.As(s, true).Get("/v1/events/"+events[0].id).ExpectError(t, 404, payd.CodeNotFound, "")
		var live struct{ Items []any }
		env.As(s, true).Get("/v1/events?limit=100").Expect(t, 200).Decode(t, &live)
		if len(live.Items) != 15 {
			t.Fatalf("live key sees %d events, want its 15", len(live.Items))
		}
	})
}
