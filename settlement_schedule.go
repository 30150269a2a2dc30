package payd

import (
	"context"
	"errors"
	"time"

	"github.com/paydhq/payd/money"
)

// SettlementRunArgs forms the registers that are due; an hourly job.
type SettlementRunArgs struct{}

// Kind names the job.
func (SettlementRunArgs) Kind() string { return "settlement_run" }

// settlementLookback bounds how far back the scheduled run looks for days
// without a register.
const settlementLookback = 14

// businessDay reports whether day is a business day of the region: not a
// weekend, not an operator's holiday.
func businessDay(day time.Time, holidays map[string]bool) bool {
	wd := day.Weekday()
	return wd != time.Saturday && wd != time.Sunday && !holidays[day.Format(time.DateOnly)]
}

// dueCutoff returns the last day whose register is due today: at least
// delay business days have passed since it (delay 0: any finished day).
func dueCutoff(today time.Time, delay int, holidays map[string]bool) time.Time {
	d := today.AddDate(0, 0, -1)
	for passed := 0; passed < delay; {
		if businessDay(d, holidays) {
			passed++
		}
		d = d.AddDate(0, 0, -1)
	}
	return d
}

// RunSettlements forms, on business days of each currency's calendar, the
// registers of the days that are due (settlement_delay_days business days
// after the day), for every merchant, contour and currency with money
// movements; days already registered, frozen payouts and empty days are
// skipped. With auto_settle the new register goes on to paid.
func (s *Service) RunSettlements(ctx context.Context) error {
	var merchants []*Merchant
	holidays := map[Region]map[string]bool{}
	err := s.store.View(ctx, func(tx Tx) error {
		lp := &MerchantListParams{ListParams: ListParams{Limit: MaxPageSize}}
		for {
			page, err := tx.MerchantList(ctx, lp)
			if err != nil {
				return err
			}
			merchants = append(merchants, page.Items...)
			if page.Next == nil {
				break
			}
			lp.After = page.Next
		}
		for _, r := range []Region{RegionRU, RegionKZ} {
			days, err := tx.HolidayList(ctx, r)
			if err != nil {
				return err
			}
			holidays[r] = map[string]bool{}
			for _, d := range days {
				holidays[r][d] = true
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, m := range merchants {
		for _, test := range []bool{false, true} {
			var currencies []money.Currency
			if err := s.store.View(ctx, func(tx Tx) error {
				b, err := tx.LedgerBuckets(ctx, m.ID, test)
				for c := range b {
					currencies = append(currencies, c)
				}
				return err
			}); err != nil {
				return err
			}
			for _, c := range currencies {
				if err := s.settleDue(ctx, m, test, c, holidays[RegionOf(c)]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (s *Service) settleDue(ctx context.Context, m *Merchant, test bool, c money.Currency, holidays map[string]bool) error {
	loc := RegionOf(c).Location()
	now := s.clock.Now().In(loc)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	if !businessDay(today, holidays) {
		return nil
	}
	cutoff := dueCutoff(today, m.SettlementDelayDays, holidays)
	for d := today.AddDate(0, 0, -settlementLookback); !d.After(cutoff); d = d.AddDate(0, 0, 1) {
		st, err := s.formSettlement(ctx, m.ID, test, c, d.Format(time.DateOnly), true)
		var pe *Error
		if errors.As(err, &pe) || errors.Is(err, errEmptyPeriod) {
			continue // registered already, frozen, or nothing happened that day
		}
		if err != nil {
			return err
		}
		if m.AutoSettle {
			for _, to := range []SettlementState{SettlementApproved, SettlementSent, SettlementPaid} {
				if _, err := s.AdvanceSettlement(ctx, st.ID, to); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

var errEmptyPeriod = errors.New("no money moved in the period")
