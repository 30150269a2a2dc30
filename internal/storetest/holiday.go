package storetest

import (
	"testing"

	"github.com/paydhq/payd"
)

func testHoliday(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("PutListDelete", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		list := func(r payd.Region) (days []string) {
			t.Helper()
			mustView(t, s, func(tx payd.Tx) (err error) { days, err = tx.HolidayList(ctx, r); return err })
			return days
		}
		if got := list(payd.RegionRU); len(got) != 0 {
			t.Errorf("HolidayList of an empty calendar = %v, want none", got)
		}

		// Put out of order, one day twice: a day is a holiday or not, and
		// putting it again is not an error.
		mustTx(t, s, func(tx payd.Tx) error {
			for _, d := range []string{"2026-05-09", "2026-01-07", "2025-12-31", "2026-05-01", "2026-01-07"} {
				if err := tx.HolidayPut(ctx, payd.RegionRU, d); err != nil {
					return err
				}
			}
			return tx.HolidayPut(ctx, payd.RegionKZ, "2026-03-22")
		})
		mustTx(t, s, func(tx payd.Tx) error { return tx.HolidayPut(ctx, payd.RegionRU, "2026-05-01") })
		// Each region has its own calendar, in date order.
		wantDiff(t, "HolidayList ru", []string{"2025-12-31", "2026-01-07", "2026-05-01", "2026-05-09"}, list(payd.RegionRU))
		wantDiff(t, "HolidayList kz", []string{"2026-03-22"}, list(payd.RegionKZ))

		mustTx(t, s, func(tx payd.Tx) error { return tx.HolidayDelete(ctx, payd.RegionRU, "2026-01-07") })
		wantDiff(t, "HolidayList ru after HolidayDelete", []string{"2025-12-31", "2026-05-01", "2026-05-09"}, list(payd.RegionRU))
		// Removing a day that is not a holiday of the region is ErrNoRows
		// (the operator API answers not_found).
		for _, c := range []struct {
			r   payd.Region
			day string
		}{{payd.RegionRU, "2026-01-07"}, {payd.RegionKZ, "2026-05-01"}, {payd.RegionRU, "2026-03-22"}} {
			err := s.Tx(ctx, func(tx payd.Tx) error { return tx.HolidayDelete(ctx, c.r, c.day) })
			wantErr(t, "HolidayDelete of "+string(c.r)+" "+c.day, err, payd.ErrNoRows)
		}
		wantDiff(t, "HolidayList kz after the refused deletes", []string{"2026-03-22"}, list(payd.RegionKZ))
	})
}
