package payd

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// SettlementRunArgs forms the registers that are due; an hourly job.
type SettlementRunArgs struct{}

// Kind names the job.
func (SettlementRunArgs) Kind() string { return "settlement_run" }

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

// settlementDaysPage is how many recorded days one read of the run takes.
const settlementDaysPage = 500

// RunSettlements forms, on business days of each currency's calendar, the
// registers of the days that are due (settlement_delay_days business days
// after the day): the recorded settlement days, those that moved money
// (SettlementDay), each in its own transaction. A merchant that moved no
// money has no recorded day and costs the run nothing; a recorded day
// stays until its register is formed, so after downtime or a jump of the
// clock every day that fell due is registered, once. Days of frozen
// contours wait for the unfreeze. With auto_settle the new register goes
// on to paid. A run stops after its budget with ErrWorkLeft, and its job
// runs again.
func (s *Service) RunSettlements(ctx context.Context) error {
	started := time.Now()
	run := settlementRun{s: s, merchants: map[string]*Merchant{}, holidays: map[Region]map[string]bool{}, today: map[Region]time.Time{}}
	// The days before the later of the regions' todays (Almaty is ahead
	// of Moscow); each day is then checked against its own region's.
	var before string
	for _, r := range []Region{RegionRU, RegionKZ} {
		now := s.clock.Now().In(r.Location())
		run.today[r] = time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, r.Location())
		if d := run.today[r].Format(time.DateOnly); d > before {
			before = d
		}
	}
	err := s.store.View(ctx, func(tx Tx) error {
		for _, r := range []Region{RegionRU, RegionKZ} {
			days, err := tx.HolidayList(ctx, r)
			if err != nil {
				return err
			}
			run.holidays[r] = map[string]bool{}
			for _, d := range days {
				run.holidays[r][d] = true
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	var errs []error
	var after *SettlementDay
	for {
		if time.Since(started) >= workBudget {
			return errors.Join(append(errs, ErrWorkLeft)...)
		}
		var days []SettlementDay
		if err := s.store.View(ctx, func(tx Tx) (err error) {
			days, err = tx.SettlementDaysBefore(ctx, before, after, settlementDaysPage)
			return err
		}); err != nil {
			return fmt.Errorf("list settlement days: %w", err)
		}
		for _, d := range days {
			if err := run.settle(ctx, d); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				errs = append(errs, fmt.Errorf("register %s %s of %s: %w", d.Currency, d.Day, d.MerchantID, err))
			}
		}
		if len(days) < settlementDaysPage {
			return errors.Join(errs...)
		}
		after = &days[len(days)-1]
	}
}

// settlementRun is one run's view of the calendars and of the merchants
// whose days it visits, each read once.
type settlementRun struct {
	s         *Service
	merchants map[string]*Merchant
	holidays  map[Region]map[string]bool
	today     map[Region]time.Time
}

// settle registers d if it is due today in its region's calendar; a day
// not yet due, or one of a frozen contour, stays for a later run.
func (r *settlementRun) settle(ctx context.Context, d SettlementDay) error {
	region := RegionOf(d.Currency)
	today, holidays := r.today[region], r.holidays[region]
	if !businessDay(today, holidays) || d.Day >= today.Format(time.DateOnly) {
		return nil
	}
	m, ok := r.merchants[d.MerchantID]
	if !ok {
		err := r.s.store.View(ctx, func(tx Tx) (err error) {
			m, err = tx.MerchantGet(ctx, d.MerchantID)
			return err
		})
		if errors.Is(err, ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		r.merchants[d.MerchantID] = m
	}
	if d.Day > dueCutoff(today, m.SettlementDelayDays, holidays).Format(time.DateOnly) {
		return nil
	}
	st, outcome, err := r.s.formSettlement(ctx, d, true)
	var pe *Error
	if errors.As(err, &pe) {
		return nil // frozen: the day waits for the unfreeze
	}
	if err != nil || outcome != dayRegistered || !m.AutoSettle {
		return err
	}
	for _, to := range []SettlementState{SettlementApproved, SettlementSent, SettlementPaid} {
		if _, err := r.s.AdvanceSettlement(ctx, st.ID, to); err != nil {
			return err
		}
	}
	return nil
}
