package operator_test

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/money"
)

// walkQueue pages through path (with its query) limit items at a time by
// next_cursor and returns the ids of every page's items in order.
func walkQueue(t *testing.T, env *paydtest.Env, path string, limit int) []string {
	t.Helper()
	var ids []string
	cursor := ""
	for n := 0; ; n++ {
		if n > 50 {
			t.Fatalf("%s: still not at the end after %d pages", path, n)
		}
		q := fmt.Sprintf("&limit=%d", limit)
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		page := env.AdminDo("GET", path+q, nil).Expect(t, 200).JSON(t)
		items := page["items"].([]any)
		if len(items) > limit {
			t.Fatalf("%s: a page of %d items, limit %d", path, len(items), limit)
		}
		for _, it := range items {
			ids = append(ids, it.(map[string]any)["id"].(string))
		}
		next, _ := page["next_cursor"].(string)
		if next == "" {
			return ids
		}
		cursor = next
	}
}

// storeAll inserts items through the service's store, in one transaction.
func storeAll[T any](t *testing.T, env *paydtest.Env, items []T, insert func(payd.Tx, context.Context, T) error) {
	t.Helper()
	err := env.Instance.Store.Tx(t.Context(), func(tx payd.Tx) error {
		for _, it := range items {
			if err := insert(tx, t.Context(), it); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// idsInOrder is the ids of the items keep keeps, ordered by their
// position (time, then id), descending or ascending: what a queue must
// answer.
func idsInOrder[T any](items []T, keep func(T) bool, pos func(T) payd.Cursor, descending bool) []string {
	var kept []payd.Cursor
	for _, it := range items {
		if keep(it) {
			kept = append(kept, pos(it))
		}
	}
	slices.SortFunc(kept, func(a, b payd.Cursor) int {
		c := cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
		if descending {
			return -c
		}
		return c
	})
	ids := []string{}
	for _, c := range kept {
		ids = append(ids, c.ID)
	}
	return ids
}

// wantQueue checks that path walks, at several page sizes, to want.
func wantQueue(t *testing.T, env *paydtest.Env, path string, want []string) {
	t.Helper()
	for _, limit := range []int{1, 2, 100} {
		if got := walkQueue(t, env, path, limit); !slices.Equal(got, want) {
			t.Errorf("%s by %d:\n got %v\nwant %v", path, limit, got, want)
		}
	}
}

// TestOperatorSettlementQueue reads every merchant's registers by state,
// newest first, through GET /admin/v1/settlements.
func TestOperatorSettlementQueue(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		var merchants []string
		for range 3 {
			var m struct{ ID string }
			env.AdminDo("POST", "/admin/v1/merchants", map[string]any{"name": "M"}).Expect(t, 201).Decode(t, &m)
			merchants = append(merchants, m.ID)
		}
		ids, now := payd.NewIDGen(), env.Clock.Now().UTC()
		states := payd.SettlementStateAll()
		var all []*payd.Settlement
		for i := range 14 {
			created := now.Add(-time.Duration(i/2) * time.Minute) // pairs tie: ids order them
			c := money.RUB
			if i%4 == 1 {
				c = money.KZT
			}
			all = append(all, &payd.Settlement{ID: ids.NewFor(payd.PrefixSettlement, created, merchants[i%3]),
				MerchantID: merchants[i%3], Test: i%5 != 4, Currency: c, PeriodFrom: fmt.Sprintf("2026-02-%02d", i+1),
				PeriodTo: fmt.Sprintf("2026-02-%02d", i+1), Status: states[i%5], Net: int64(i) * 100, CreatedAt: created})
		}
		storeAll(t, env, all, payd.Tx.SettlementInsert)
		want := func(keep func(*payd.Settlement) bool) []string {
			return idsInOrder(all, keep, func(st *payd.Settlement) payd.Cursor { return payd.Cursor{CreatedAt: st.CreatedAt, ID: st.ID} }, true)
		}
		const queue = "/admin/v1/settlements?"
		wantQueue(t, env, queue+"test=true", want(func(st *payd.Settlement) bool { return st.Test }))
		// Live when test is absent.
		wantQueue(t, env, queue, want(func(st *payd.Settlement) bool { return !st.Test }))
		wantQueue(t, env, queue+"test=false", want(func(st *payd.Settlement) bool { return !st.Test }))
		for _, s := range states {
			wantQueue(t, env, queue+"test=true&status="+string(s), want(func(st *payd.Settlement) bool { return st.Test && st.Status == s }))
		}
		wantQueue(t, env, queue+"test=true&currency=KZT", want(func(st *payd.Settlement) bool { return st.Test && st.Currency == money.KZT }))
		wantQueue(t, env, queue+"test=true&status=draft&merchant_id="+merchants[0], want(func(st *payd.Settlement) bool {
			return st.Test && st.Status == payd.SettlementDraft && st.MerchantID == merchants[0]
		}))
		wantQueue(t, env, queue+"test=true&merchant_id="+merchants[2], want(func(st *payd.Settlement) bool {
			return st.Test && st.MerchantID == merchants[2]
		}))

		// An item is the operator's register, sums in minor units.
		newest := want(func(st *payd.Settlement) bool { return st.Test })[0]
		first := all[slices.IndexFunc(all, func(st *payd.Settlement) bool { return st.ID == newest })]
		item := env.AdminDo("GET", queue+"test=true&limit=1", nil).Expect(t, 200).JSON(t)["items"].([]any)[0].(map[string]any)
		if item["id"] != first.ID || item["merchant_id"] != first.MerchantID || item["status"] != string(first.Status) ||
			item["net"] != float64(first.Net) || item["currency"] != string(first.Currency) || item["period_from"] != first.PeriodFrom {
			t.Errorf("first item = %v, want the register %+v", item, first)
		}

		for _, bad := range []struct{ query, param string }{
			{"status=settled", "status"},
			{"status=", "-"},
			{"test=yes", "test"},
			{"test=", "test"},
			{"currency=GBP", "currency"},
			{"merchant_id=acme", "merchant_id"},
			{"limit=0", "limit"},
			{"limit=101", "limit"},
			{"cursor=nonsense", "cursor"},
		} {
			r := env.AdminDo("GET", queue+bad.query, nil)
			if bad.param == "-" {
				r.Expect(t, 200) // an empty status is no filter
				continue
			}
			r.ExpectError(t, 400, payd.CodeInvalidRequest, bad.param)
		}
		// A cursor goes with the filters it was issued for.
		next := env.AdminDo("GET", queue+"test=true&limit=1", nil).Expect(t, 200).JSON(t)["next_cursor"].(string)
		env.AdminDo("GET", queue+"test=true&status=paid&cursor="+url.QueryEscape(next), nil).ExpectError(t, 400, payd.CodeInvalidRequest, "cursor")
	})
}

// TestOperatorDisputeQueue reads every merchant's disputes by evidence
// deadline through GET /admin/v1/disputes: by default those awaiting an
// answer, soonest first.
func TestOperatorDisputeQueue(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM2})
		var shops []*paydtest.Shop
		for range 3 {
			shops = append(shops, env.NewShop(payd.RegionRU, ""))
		}
		ids, now := payd.NewIDGen(), env.Clock.Now().UTC()
		statuses := payd.DisputeStatusAll()
		var all []*payd.Dispute
		for i := range 20 {
			// Later disputes fall due sooner, in pairs that tie.
			deadline := now.Add(7*24*time.Hour - time.Duration(i/2)*time.Hour)
			sh := shops[i%3]
			all = append(all, &payd.Dispute{ID: ids.NewFor(payd.PrefixDispute, now, sh.MerchantID), ShopID: sh.ID,
				MerchantID: sh.MerchantID, PaymentID: ids.NewFor(payd.PrefixPayment, now, sh.MerchantID), Test: i%7 != 3,
				Kind: payd.DisputeChargeback, Status: statuses[i%6], Amount: money.New(2500, money.RUB),
				EvidenceDeadlineAt: deadline, Provider: "sandbox", CreatedAt: now})
		}
		storeAll(t, env, all, payd.Tx.DisputeInsert)
		want := func(keep func(*payd.Dispute) bool) []string {
			return idsInOrder(all, keep, func(d *payd.Dispute) payd.Cursor { return payd.Cursor{CreatedAt: d.EvidenceDeadlineAt, ID: d.ID} }, false)
		}
		awaiting := func(d *payd.Dispute) bool { return d.Status.AcceptsEvidence() }
		const queue = "/admin/v1/disputes?"
		wantQueue(t, env, queue+"test=true", want(func(d *payd.Dispute) bool { return d.Test && awaiting(d) }))
		wantQueue(t, env, queue, want(func(d *payd.Dispute) bool { return !d.Test && awaiting(d) }))
		for _, s := range statuses {
			wantQueue(t, env, queue+"test=true&status="+string(s), want(func(d *payd.Dispute) bool { return d.Test && d.Status == s }))
		}
		m := shops[1].MerchantID
		wantQueue(t, env, queue+"test=true&merchant_id="+m, want(func(d *payd.Dispute) bool {
			return d.Test && awaiting(d) && d.MerchantID == m
		}))
		wantQueue(t, env, queue+"test=true&status=won&merchant_id="+m, want(func(d *payd.Dispute) bool {
			return d.Test && d.Status == payd.DisputeWon && d.MerchantID == m
		}))

		// An item is the operator's dispute, with its deadline.
		soonest := want(func(d *payd.Dispute) bool { return d.Test && awaiting(d) })[0]
		item := env.AdminDo("GET", queue+"test=true&limit=1", nil).Expect(t, 200).JSON(t)["items"].([]any)[0].(map[string]any)
		i := slices.IndexFunc(all, func(d *payd.Dispute) bool { return d.ID == soonest })
		if item["id"] != soonest || item["merchant_id"] != all[i].MerchantID || item["shop_id"] != all[i].ShopID ||
			item["evidence_deadline_at"] != all[i].EvidenceDeadlineAt.Format(time.RFC3339Nano) {
			t.Errorf("first item = %v, want the dispute %+v", item, all[i])
		}

		for _, bad := range []struct{ query, param string }{
			{"status=open", "status"},
			{"test=1", "test"},
			{"merchant_id=shp_1", "merchant_id"},
			{"limit=-1", "limit"},
			{"cursor=nonsense", "cursor"},
		} {
			env.AdminDo("GET", queue+bad.query, nil).ExpectError(t, 400, payd.CodeInvalidRequest, bad.param)
		}
		next := env.AdminDo("GET", queue+"test=true&limit=1", nil).Expect(t, 200).JSON(t)["next_cursor"].(string)
		env.AdminDo("GET", queue+"test=true&status=opened&cursor="+url.QueryEscape(next), nil).ExpectError(t, 400, payd.CodeInvalidRequest, "cursor")
	})
}

// TestOperatorDisputeQueueBeforeM2 answers 501 naming the stage, as the
// other dispute routes do.
func TestOperatorDisputeQueueBeforeM2(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	r := env.AdminDo("GET", "/admin/v1/disputes", nil)
	if r.Status != 501 {
		t.Fatalf("GET /admin/v1/disputes below M2: %d %s, want 501", r.Status, r.Body)
	}
}
