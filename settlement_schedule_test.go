package payd

import (
	"testing"
	"time"
)

// TestDueCutoff pins which days' registers are due on a day: a day's
// register is due once the day has ended and then settlement_delay_days
// business days more; weekends and holidays are not business days, and
// nothing is formed on them (settleDue), so what falls due then waits
// for the next business day.
func TestDueCutoff(t *testing.T) {
	t.Parallel()
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	// 2026-11-23 is a Monday.
	holiday := map[string]bool{"2026-11-25": true} // a Wednesday off
	for _, c := range []struct {
		today    string
		delay    int
		holidays map[string]bool
		want     string
	}{
		{"2026-11-24", 0, nil, "2026-11-23"},     // Tuesday: Monday, just ended
		{"2026-11-23", 0, nil, "2026-11-22"},     // Monday: Friday to Sunday
		{"2026-11-24", 1, nil, "2026-11-22"},     // Tuesday, one more day: up to Sunday (Friday's register)
		{"2026-11-23", 1, nil, "2026-11-19"},     // Monday: Friday has not had its business day after it
		{"2026-11-27", 1, nil, "2026-11-25"},     // Friday: Wednesday, Thursday having passed
		{"2026-11-26", 1, nil, "2026-11-24"},     // Thursday: Tuesday, Wednesday having passed
		{"2026-11-26", 1, holiday, "2026-11-23"}, // Wednesday off: Tuesday waits for Thursday to pass
		{"2026-11-26", 2, holiday, "2026-11-22"}, // Monday and Tuesday passed after the weekend, Wednesday off
		{"2026-11-23", 3, nil, "2026-11-17"},
	} {
		got := dueCutoff(day(c.today), c.delay, c.holidays)
		if got.Format(time.DateOnly) != c.want {
			t.Errorf("dueCutoff(%s, delay %d, holidays %v) = %s, want %s", c.today, c.delay, c.holidays,
				got.Format(time.DateOnly), c.want)
		}
	}
}
