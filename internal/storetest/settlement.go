package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// newSettlement is a draft register of one day with every amount set, each
// to a different value, so that a field lost or swapped on the way shows.
func newSettlement(merchantID string, test bool, c money.Currency, day string, created time.Time) *payd.Settlement {
	return &payd.Settlement{ID: newID(payd.PrefixSettlement, created), MerchantID: merchantID, Test: test, Currency: c,
		PeriodFrom: day, PeriodTo: day, Status: payd.SettlementDraft, Gross: 1_000_000, Fees: 25_000, Refunds: 40_000,
		ReserveHeld: 50_000, ReserveReleased: 30_000, DepositWithheld: 7_000, Chargebacks: 6_000, BankFines: 500,
		ChargebackFees: 300, DisputesHeld: 8_000, DisputesReleased: 2_000, PayoutsHeld: 100_000, PayoutsReleased: 10_000,
		Payouts: 90_000, PayoutFees: 450, Net: -12_345, SettlementDelayDays: 2, Entries: 17, CreatedAt: created}
}

func settlementCursor(st *payd.Settlement) payd.Cursor {
	return payd.Cursor{CreatedAt: st.CreatedAt, ID: st.ID}
}

func testSettlement(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("InsertGetUpdate", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m := addMerchant(t, s, now)
		st := newSettlement(m.ID, true, money.RUB, "2026-03-02", now)
		st.PeriodTo = "2026-03-04"
		mustTx(t, s, func(tx payd.Tx) error { return tx.SettlementInsert(ctx, st) })

		get := func(what string, fn func(tx payd.Tx) (*payd.Settlement, error)) {
			t.Helper()
			wantRead(t, s, what, st, fn)
		}
		get("SettlementGet", func(tx payd.Tx) (*payd.Settlement, error) { return tx.SettlementGet(ctx, st.ID) })
		get("SettlementGetForUpdate", func(tx payd.Tx) (*payd.Settlement, error) { return tx.SettlementGetForUpdate(ctx, st.ID) })

		missing := newID(payd.PrefixSettlement, now)
		wantErr(t, "SettlementGet of a missing id", s.View(ctx, func(tx payd.Tx) error {
			_, err := tx.SettlementGet(ctx, missing)
			return err
		}), payd.ErrNoRows)
		wantErr(t, "SettlementGetForUpdate of a missing id", s.Tx(ctx, func(tx payd.Tx) error {
			_, err := tx.SettlementGetForUpdate(ctx, missing)
			return err
		}), payd.ErrNoRows)

		// One register per merchant, contour, currency and first day: the
		// service answers a second one of the period with invalid_state.
		// A taken id is refused too.
		samePeriod := newSettlement(m.ID, true, money.RUB, st.PeriodFrom, now)
		samePeriod.Net = 1
		wantErr(t, "SettlementInsert of a registered period", s.Tx(ctx, func(tx payd.Tx) error {
			return tx.SettlementInsert(ctx, samePeriod)
		}), payd.ErrConflict)
		sameID := newSettlement(m.ID, true, money.RUB, "2026-03-09", now)
		sameID.ID = st.ID
		wantErr(t, "SettlementInsert of a taken id", s.Tx(ctx, func(tx payd.Tx) error {
			return tx.SettlementInsert(ctx, sameID)
		}), payd.ErrConflict)
		get("SettlementGet after the refused duplicates", func(tx payd.Tx) (*payd.Settlement, error) { return tx.SettlementGet(ctx, st.ID) })
		// The same day in another currency or contour, or of another
		// merchant, is another register.
		otherMerchant := addMerchant(t, s, now)
		mustTx(t, s, func(tx payd.Tx) error {
			for _, other := range []*payd.Settlement{
				newSettlement(m.ID, true, money.KZT, st.PeriodFrom, now),
				newSettlement(m.ID, false, money.RUB, st.PeriodFrom, now),
				newSettlement(otherMerchant.ID, true, money.RUB, st.PeriodFrom, now),
			} {
				if err := tx.SettlementInsert(ctx, other); err != nil {
					return fmt.Errorf("SettlementInsert of %s %v %s: %w", other.MerchantID, other.Test, other.Currency, err)
				}
			}
			return nil
		})

		// The register walks its states through lock, change, write.
		for _, to := range []payd.SettlementState{payd.SettlementApproved, payd.SettlementSent, payd.SettlementPaid} {
			mustTx(t, s, func(tx payd.Tx) error {
				locked, err := tx.SettlementGetForUpdate(ctx, st.ID)
				if err != nil {
					return err
				}
				locked.Status = to
				if to == payd.SettlementPaid {
					locked.PaidAt = ptr(now.Add(48 * time.Hour))
				}
				st = locked
				return tx.SettlementUpdate(ctx, locked)
			})
			get("SettlementGet after SettlementUpdate to "+string(to), func(tx payd.Tx) (*payd.Settlement, error) {
				return tx.SettlementGet(ctx, st.ID)
			})
		}
		ghost := newSettlement(m.ID, true, money.RUB, "2026-03-10", now)
		wantErr(t, "SettlementUpdate of a missing register", s.Tx(ctx, func(tx payd.Tx) error {
			return tx.SettlementUpdate(ctx, ghost)
		}), payd.ErrNoRows)
	})

	t.Run("GetForUpdateLocks", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		now := ts(time.Now())
		st := newSettlement(addMerchant(t, s, now).ID, true, money.RUB, "2026-03-02", now)
		mustTx(t, s, func(tx payd.Tx) error { return tx.SettlementInsert(t.Context(), st) })
		wantLocks(t, s, func(ctx context.Context, tx payd.Tx) error {
			_, err := tx.SettlementGetForUpdate(ctx, st.ID)
			return err
		})
	})

	t.Run("List", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		base := ts(time.Now())
		m := addMerchant(t, s, base)
		// Noise: a live register and another merchant's.
		live := newSettlement(m.ID, false, money.RUB, "2026-01-05", base)
		foreign := newSettlement(addMerchant(t, s, base).ID, true, money.RUB, "2026-01-05", base)

		statuses := []payd.SettlementState{payd.SettlementDraft, payd.SettlementApproved, payd.SettlementSent,
			payd.SettlementPaid, payd.SettlementFailed}
		var all []*payd.Settlement
		for i, created := range tiedTimes(base, 23) {
			c := money.RUB
			if i%3 == 2 {
				c = money.KZT
			}
			st := newSettlement(m.ID, true, c, fmt.Sprintf("2026-01-%02d", i+1), created)
			// Every fourth register spans a weekend, so that the period's
			// last day filters differently from its first.
			if i%4 == 0 {
				st.PeriodTo = fmt.Sprintf("2026-01-%02d", i+3)
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
			if err := tx.SettlementInsert(ctx, live); err != nil {
				return err
			}
			return tx.SettlementInsert(ctx, foreign)
		})
		list := func(p payd.SettlementListParams) func(payd.ListParams) (payd.Page[*payd.Settlement], error) {
			return func(lp payd.ListParams) (page payd.Page[*payd.Settlement], err error) {
				p.ListParams, p.MerchantID, p.Test = lp, m.ID, true
				err = s.View(ctx, func(tx payd.Tx) error {
					page, err = tx.SettlementList(ctx, &p)
					return err
				})
				return page, err
			}
		}
		filter := func(keep func(*payd.Settlement) bool) []*payd.Settlement {
			return newestWhere(all, settlementCursor, keep)
		}
		for _, limit := range []int{0, 1, 5, 23, 100} {
			checkPaging(t, limit, filter(func(*payd.Settlement) bool { return true }), settlementCursor, list(payd.SettlementListParams{}))
		}
		// A period filter keeps the registers whose whole period lies in
		// it: first day on or after PeriodFrom, last day on or before
		// PeriodTo.
		checkPaging(t, 4, filter(func(st *payd.Settlement) bool { return st.PeriodFrom >= "2026-01-05" }), settlementCursor,
			list(payd.SettlementListParams{PeriodFrom: "2026-01-05"}))
		checkPaging(t, 2, filter(func(st *payd.Settlement) bool { return st.PeriodTo <= "2026-01-10" }), settlementCursor,
			list(payd.SettlementListParams{PeriodTo: "2026-01-10"}))
		checkPaging(t, 2, filter(func(st *payd.Settlement) bool {
			return st.PeriodFrom >= "2026-01-05" && st.PeriodTo <= "2026-01-14"
		}), settlementCursor, list(payd.SettlementListParams{PeriodFrom: "2026-01-05", PeriodTo: "2026-01-14"}))
		checkPaging(t, 2, filter(func(st *payd.Settlement) bool { return st.Currency == money.KZT }), settlementCursor,
			list(payd.SettlementListParams{Currency: money.KZT}))
		checkPaging(t, 2, filter(func(st *payd.Settlement) bool { return st.Status == payd.SettlementPaid }), settlementCursor,
			list(payd.SettlementListParams{Status: payd.SettlementPaid}))
		checkPaging(t, 2, filter(func(st *payd.Settlement) bool {
			return st.Currency == money.RUB && st.Status == payd.SettlementDraft
		}), settlementCursor, list(payd.SettlementListParams{Currency: money.RUB, Status: payd.SettlementDraft}))

		var livePage payd.Page[*payd.Settlement]
		mustView(t, s, func(tx payd.Tx) (err error) {
			livePage, err = tx.SettlementList(ctx, &payd.SettlementListParams{MerchantID: m.ID, Test: false})
			return err
		})
		wantDiff(t, "live list", []*payd.Settlement{live}, livePage.Items)
	})

	t.Run("ListUnpaid", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		m := addMerchant(t, s, now)
		day := 0
		add := func(merchantID string, test bool, c money.Currency, st payd.SettlementState, net int64) *payd.Settlement {
			day++
			r := newSettlement(merchantID, test, c, fmt.Sprintf("2026-01-%02d", day), now)
			r.Status, r.Net = st, net
			mustTx(t, s, func(tx payd.Tx) error { return tx.SettlementInsert(ctx, r) })
			return r
		}
		want := map[string]int64{}
		var sent *payd.Settlement
		for _, st := range []payd.SettlementState{payd.SettlementDraft, payd.SettlementApproved, payd.SettlementSent} {
			sent = add(m.ID, true, money.RUB, st, 1000+int64(day))
			want[sent.ID] = sent.Net
		}
		// Paid and failed registers, other contours, currencies and
		// merchants stay out.
		add(m.ID, true, money.RUB, payd.SettlementPaid, 1)
		add(m.ID, true, money.RUB, payd.SettlementFailed, 1)
		add(m.ID, false, money.RUB, payd.SettlementDraft, 1)
		add(m.ID, true, money.KZT, payd.SettlementDraft, 1)
		add(addMerchant(t, s, now).ID, true, money.RUB, payd.SettlementDraft, 1)
		unpaid := func() map[string]int64 {
			got := map[string]int64{}
			mustView(t, s, func(tx payd.Tx) error {
				list, err := tx.SettlementListUnpaid(ctx, m.ID, true, money.RUB)
				for _, r := range list {
					got[r.ID] = r.Net
				}
				return err
			})
			return got
		}
		wantDiff(t, "SettlementListUnpaid", want, unpaid())

		// A register that was paid leaves the list.
		sent.Status = payd.SettlementPaid
		mustTx(t, s, func(tx payd.Tx) error { return tx.SettlementUpdate(ctx, sent) })
		delete(want, sent.ID)
		wantDiff(t, "SettlementListUnpaid after one was paid", want, unpaid())
	})

	t.Run("Days", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		a, b := addMerchant(t, s, now).ID, addMerchant(t, s, now).ID
		day := func(m string, test bool, c money.Currency, d string) payd.SettlementDay {
			return payd.SettlementDay{MerchantID: m, Test: test, Currency: c, Day: d}
		}
		days := []payd.SettlementDay{
			day(a, true, money.RUB, "2026-03-02"), day(a, false, money.RUB, "2026-03-02"),
			day(a, true, money.KZT, "2026-03-02"), day(b, true, money.RUB, "2026-03-01"),
			day(b, true, money.RUB, "2026-03-03"), day(a, true, money.RUB, "2026-03-04"),
		}
		mark := func(d payd.SettlementDay) {
			t.Helper()
			mustTx(t, s, func(tx payd.Tx) error { return tx.SettlementDayMark(ctx, d) })
		}
		for _, d := range days {
			mark(d)
		}
		// Marked again, in another transaction or twice in one, a day
		// stays one row.
		mark(days[0])
		mustTx(t, s, func(tx payd.Tx) error {
			if err := tx.SettlementDayMark(ctx, days[1]); err != nil {
				return err
			}
			return tx.SettlementDayMark(ctx, days[1])
		})
		// In order of day, merchant, contour and currency, before the
		// day given, a page at a time from the last key read.
		// (On 2026-03-02: a's live contour before its test one, KZT
		// before RUB.)
		want := []payd.SettlementDay{days[3], days[1], days[2], days[0], days[4]}
		var got []payd.SettlementDay
		var after *payd.SettlementDay
		for {
			var page []payd.SettlementDay
			mustView(t, s, func(tx payd.Tx) (err error) {
				page, err = tx.SettlementDaysBefore(ctx, "2026-03-04", after, 2)
				return err
			})
			got = append(got, page...)
			if len(page) < 2 {
				break
			}
			after = &page[len(page)-1]
		}
		wantDiff(t, "SettlementDaysBefore 2026-03-04 in pages of 2", want, got)

		// A deleted day leaves the list; deleting it again is no error.
		for range 2 {
			mustTx(t, s, func(tx payd.Tx) error { return tx.SettlementDayDelete(ctx, days[3]) })
		}
		mustView(t, s, func(tx payd.Tx) (err error) {
			got, err = tx.SettlementDaysBefore(ctx, "2026-03-02", nil, 10)
			return err
		})
		if len(got) != 0 {
			t.Errorf("SettlementDaysBefore 2026-03-02 after the delete = %v, want none", got)
		}
		mark(days[3])
		mustView(t, s, func(tx payd.Tx) (err error) {
			got, err = tx.SettlementDaysBefore(ctx, "2026-03-02", nil, 10)
			return err
		})
		wantDiff(t, "a deleted day marked again", []payd.SettlementDay{days[3]}, got)
	})

	// A refund posts (marking its day) and then takes its merchant's
	// lock; a capture takes the lock and then posts the same day. Were
	// the day inserted at once, each would wait for the other: the
	// refund's uncommitted day holds the capture's insert, the capture's
	// lock the refund. Both must commit.
	t.Run("DayMarkAndMerchantLock", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		needPostgres(t, s, "row locks between transactions")
		ctx := t.Context()
		m := addMerchant(t, s, ts(time.Now()))
		d := payd.SettlementDay{MerchantID: m.ID, Test: true, Currency: money.RUB, Day: "2026-03-02"}
		marked, locked := make(chan struct{}), make(chan struct{})
		refund := make(chan error, 1)
		go func() {
			refund <- s.Tx(ctx, func(tx payd.Tx) error {
				if err := tx.SettlementDayMark(ctx, d); err != nil {
					return err
				}
				close(marked)
				<-locked
				_, err := tx.MerchantGetForUpdate(ctx, m.ID)
				return err
			})
		}()
		err := s.Tx(ctx, func(tx payd.Tx) error {
			if _, err := tx.MerchantGetForUpdate(ctx, m.ID); err != nil {
				return err
			}
			close(locked)
			// Whenever the refund reaches the lock, the two would wait
			// for each other were its day already inserted: no wait is
			// needed for the test to hold.
			<-marked
			return tx.SettlementDayMark(ctx, d)
		})
		if err != nil {
			t.Fatalf("the capture: %v", err)
		}
		if err := <-refund; err != nil {
			t.Fatalf("the refund: %v", err)
		}
		var got []payd.SettlementDay
		mustView(t, s, func(tx payd.Tx) (err error) {
			got, err = tx.SettlementDaysBefore(ctx, "2026-03-03", nil, 10)
			return err
		})
		wantDiff(t, "the day both marked", []payd.SettlementDay{d}, got)
	})
}
