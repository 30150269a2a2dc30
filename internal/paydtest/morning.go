package paydtest

import (
	"time"

	"github.com/paydhq/payd"
)

// ToMorning moves the test clock, when it is past noon in region r, to a
// minute past the next midnight there. A payment made in the morning is
// available a day later (its pending hold) while its day's settlement
// register has not formed yet: made in the evening before a business day,
// the register would form as the money came free and hold it
// (settlement_delay_days of one business day), and a payout would find
// nothing payable. A test that pays out a payment's money makes the
// payment after ToMorning; a clock already moved to a morning stays.
func (e *Env) ToMorning(r payd.Region) {
	now := e.Clock.Now()
	local := now.In(r.Location())
	if local.Hour() < 12 {
		return
	}
	next := time.Date(local.Year(), local.Month(), local.Day()+1, 0, 1, 0, 0, local.Location())
	e.Clock.Advance(next.Sub(now))
}
