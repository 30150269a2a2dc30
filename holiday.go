package payd

import (
	"context"
	"time"
)

// SetHoliday adds (on) or removes a holiday of a region's calendar.
func (s *Service) SetHoliday(ctx context.Context, region Region, day string, on bool) error {
	if !region.Valid() {
		return Invalid("region", "region must be ru or kz")
	}
	if _, err := time.Parse(time.DateOnly, day); err != nil {
		return Invalid("day", "day must be YYYY-MM-DD")
	}
	return s.store.Tx(ctx, func(tx Tx) error {
		if on {
			return tx.HolidayPut(ctx, region, day)
		}
		return notFoundAs(tx.HolidayDelete(ctx, region, day), "holiday")
	})
}

// Holidays lists a region's holidays.
func (s *Service) Holidays(ctx context.Context, region Region) ([]string, error) {
	return read(ctx, s, "list holidays", func(tx Tx) ([]string, error) { return tx.HolidayList(ctx, region) })
}
