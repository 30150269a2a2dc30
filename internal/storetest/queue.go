package storetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// disputeDeadline is a dispute's position in the operator's queue: by
// evidence deadline, then id, both ascending.
func disputeDeadline(d *payd.Dispute) payd.Cursor {
	return payd.Cursor{CreatedAt: d.EvidenceDeadlineAt, ID: d.ID}
}

// soonestWhere is the disputes keep keeps, in the queue's order.
func soonestWhere(items []*payd.Dispute, keep func(*payd.Dispute) bool) []*payd.Dispute {
	var out []*payd.Dispute
	for _, d := range items {
		if keep(d) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b *payd.Dispute) int {
		if c := a.EvidenceDeadlineAt.Compare(b.EvidenceDeadlineAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// testOperatorQueue holds the operator's two queues across merchants:
// registers by state, newest first, and disputes by evidence deadline.
func testOperatorQueue(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("Settlements", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		base := ts(time.Now())
		merchants := []string{addMerchant(t, s, base).ID, addMerchant(t, s, base).ID, addMerchant(t, s, base).ID}
		statuses := payd.SettlementStateAll()
		// Three merchants' registers of both contours, every state, two
		// currencies; times tie in threes so that ids order the ties.
		var all []*payd.Settlement
		for i, created := range tiedTimes(base, 31) {
			c := money.RUB
			if i%4 == 1 {
				c = money.KZT
			}
			st := newSettlement(merchants[i%3], i%7 != 3, c, fmt.Sprintf("2026-02-%02d", i%28+1), created)
			if i >= 28 {
				st.PeriodFrom, st.PeriodTo = "2026-03-01", "2026-03-01"
			}
			st.Status = statuses[i%5]
			all = append(all, st)
		}
		mustTx(t, s, func(tx payd.Tx) error {
			for _, i := range rand.Perm(len(all)) {
				if err := tx.SettlementInsert(ctx, all[i]); err != nil {
					return err
				}
			}
			return nil
		})
		list := func(p payd.SettlementQueueParams) func(payd.ListParams) (payd.Page[*payd.Settlement], error) {
			return func(lp payd.ListParams) (page payd.Page[*payd.Settlement], err error) {
				p.ListParams = lp
				err = s.View(ctx, func(tx payd.Tx) error {
					page, err = tx.SettlementQueue(ctx, &p)
					return err
				})
				return page, err
			}
		}
		filter := func(keep func(*payd.Settlement) bool) []*payd.Settlement {
			return newestWhere(all, settlementCursor, keep)
		}
		sandbox := func(st *payd.Settlement) bool { return st.Test }
		for _, limit := range []int{0, 1, 4, 100} {
			checkPaging(t, limit, filter(sandbox), settlementCursor, list(payd.SettlementQueueParams{Test: true}))
		}
		checkPaging(t, 2, filter(func(st *payd.Settlement) bool { return !st.Test }), settlementCursor,
			list(payd.SettlementQueueParams{}))
		for _, status := range statuses {
			checkPaging(t, 2, filter(func(st *payd.Settlement) bool { return st.Test && st.Status == status }), settlementCursor,
				list(payd.SettlementQueueParams{Test: true, Status: status}))
		}
		checkPaging(t, 2, filter(func(st *payd.Settlement) bool { return st.Test && st.Currency == money.KZT }), settlementCursor,
			list(payd.SettlementQueueParams{Test: true, Currency: money.KZT}))
		checkPaging(t, 1, filter(func(st *payd.Settlement) bool {
			return st.Test && st.Currency == money.RUB && st.Status == payd.SettlementApproved
		}), settlementCursor, list(payd.SettlementQueueParams{Test: true, Currency: money.RUB, Status: payd.SettlementApproved}))
		// One merchant's registers, alone and by state.
		checkPaging(t, 3, filter(func(st *payd.Settlement) bool { return st.Test && st.MerchantID == merchants[1] }), settlementCursor,
			list(payd.SettlementQueueParams{Test: true, MerchantID: merchants[1]}))
		checkPaging(t, 1, filter(func(st *payd.Settlement) bool {
			return st.Test && st.MerchantID == merchants[2] && st.Status == payd.SettlementSent
		}), settlementCursor, list(payd.SettlementQueueParams{Test: true, MerchantID: merchants[2], Status: payd.SettlementSent}))

		// A register that changes state moves to its new state's queue.
		moved := all[0]
		moved.Status = payd.SettlementFailed
		mustTx(t, s, func(tx payd.Tx) error { return tx.SettlementUpdate(ctx, moved) })
		checkPaging(t, 2, filter(func(st *payd.Settlement) bool { return st.Test && st.Status == payd.SettlementFailed }), settlementCursor,
			list(payd.SettlementQueueParams{Test: true, Status: payd.SettlementFailed}))
		checkPaging(t, 2, filter(func(st *payd.Settlement) bool { return st.Test && st.Status == payd.SettlementDraft }), settlementCursor,
			list(payd.SettlementQueueParams{Test: true, Status: payd.SettlementDraft}))
	})

	t.Run("Disputes", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		base := ts(time.Now())
		var pays []*payd.Payment
		for range 3 {
			_, pay := disputeFixture(t, s, base)
			pays = append(pays, pay)
		}
		statuses := payd.DisputeStatusAll()
		// Three merchants' disputes of both contours in every status.
		// Later disputes have earlier deadlines, tied in threes, so that
		// neither creation nor id alone gives the queue's order.
		var all []*payd.Dispute
		for i, deadline := range tiedTimes(base.Add(7*24*time.Hour), 37) {
			d := newDispute(pays[i%3], base)
			d.EvidenceDeadlineAt, d.Status, d.Test = deadline, statuses[i%6], i%5 != 2
			all = append(all, d)
		}
		mustTx(t, s, func(tx payd.Tx) error {
			for _, i := range rand.Perm(len(all)) {
				if err := tx.DisputeInsert(ctx, all[i]); err != nil {
					return err
				}
			}
			return nil
		})
		list := func(p payd.DisputeQueueParams) func(payd.ListParams) (payd.Page[*payd.Dispute], error) {
			return func(lp payd.ListParams) (page payd.Page[*payd.Dispute], err error) {
				p.ListParams = lp
				err = s.View(ctx, func(tx payd.Tx) error {
					page, err = tx.DisputeQueue(ctx, &p)
					return err
				})
				return page, err
			}
		}
		in := func(test bool, sts ...payd.DisputeStatus) func(*payd.Dispute) bool {
			return func(d *payd.Dispute) bool { return d.Test == test && slices.Contains(sts, d.Status) }
		}
		awaiting := payd.DisputeAwaitingAnswer()
		for _, limit := range []int{0, 1, 2, 5, 100} {
			checkPaging(t, limit, soonestWhere(all, in(true, awaiting...)), disputeDeadline,
				list(payd.DisputeQueueParams{Test: true, Statuses: awaiting}))
		}
		checkPaging(t, 1, soonestWhere(all, in(false, awaiting...)), disputeDeadline,
			list(payd.DisputeQueueParams{Statuses: awaiting}))
		for _, st := range statuses {
			checkPaging(t, 2, soonestWhere(all, in(true, st)), disputeDeadline,
				list(payd.DisputeQueueParams{Test: true, Statuses: []payd.DisputeStatus{st}}))
		}
		// Every status at once: six walks merged into each page.
		for _, limit := range []int{3, 100} {
			checkPaging(t, limit, soonestWhere(all, in(true, statuses...)), disputeDeadline,
				list(payd.DisputeQueueParams{Test: true, Statuses: statuses}))
		}
		// One merchant's.
		mid := pays[1].MerchantID
		checkPaging(t, 2, soonestWhere(all, func(d *payd.Dispute) bool { return in(true, awaiting...)(d) && d.MerchantID == mid }),
			disputeDeadline, list(payd.DisputeQueueParams{Test: true, MerchantID: mid, Statuses: awaiting}))
		checkPaging(t, 1, soonestWhere(all, func(d *payd.Dispute) bool { return in(true, payd.DisputeLost)(d) && d.MerchantID == mid }),
			disputeDeadline, list(payd.DisputeQueueParams{Test: true, MerchantID: mid, Statuses: []payd.DisputeStatus{payd.DisputeLost}}))

		// A dispute answered leaves the queue; one whose deadline moved
		// takes its new place.
		var answered, extended *payd.Dispute
		for _, d := range all {
			switch {
			case !in(true, awaiting...)(d):
			case answered == nil:
				answered = d
			case extended == nil:
				extended = d
			}
		}
		answered.Status = payd.DisputeSubmitted
		extended.EvidenceDeadlineAt = base.Add(30 * 24 * time.Hour)
		mustTx(t, s, func(tx payd.Tx) error {
			if err := tx.DisputeUpdate(ctx, answered); err != nil {
				return err
			}
			return tx.DisputeUpdate(ctx, extended)
		})
		checkPaging(t, 2, soonestWhere(all, in(true, awaiting...)), disputeDeadline,
			list(payd.DisputeQueueParams{Test: true, Statuses: awaiting}))
	})
}
