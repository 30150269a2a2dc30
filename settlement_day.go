package payd

import (
	"context"
	"sync"
	"time"

	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// SettlementDay is a day of one merchant's contour and currency, in its
// region's calendar, that moved the merchant's money and has no register
// yet. The posting that first moves money on such a day records it, in its
// own transaction; the scheduled run registers it once it is due and
// removes it in the register's transaction. So the run's work follows the
// days that had money movements, and a merchant that moved nothing costs
// it nothing.
type SettlementDay struct {
	MerchantID string
	Test       bool
	Currency   money.Currency
	// Day is YYYY-MM-DD in the calendar of the currency's region.
	Day string
}

// dayOf is the day of the regional calendar of c that t falls on.
func dayOf(c money.Currency, t time.Time) string {
	return t.In(RegionOf(c).Location()).Format(time.DateOnly)
}

// settlementDaysOf are the days an entry moves merchants' money on: one per
// merchant, contour and currency it posts to.
func settlementDaysOf(e *ledger.Entry) []SettlementDay {
	var out []SettlementDay
	for _, p := range e.Postings {
		a := p.Account
		if a.Owner == ledger.ServiceOwner {
			continue
		}
		d := SettlementDay{MerchantID: a.Owner, Test: a.Test, Currency: a.Currency, Day: dayOf(a.Currency, e.At)}
		if !containsDay(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func containsDay(days []SettlementDay, d SettlementDay) bool {
	for _, x := range days {
		if x == d {
			return true
		}
	}
	return false
}

// markSettlementDays records, in the posting's transaction, the days e
// moves merchants' money on. A day this process has seen stored is not
// written again: after the first postings of a merchant's day its
// postings cost no statement here.
func (s *Service) markSettlementDays(ctx context.Context, tx Tx, e *ledger.Entry) error {
	for _, d := range settlementDaysOf(e) {
		if s.settleMarks.seen(d) {
			continue
		}
		if err := tx.SettlementDayMark(ctx, d); err != nil {
			return err
		}
		// A day is remembered only once its transaction committed: it
		// may still roll back. Committed, the day is stored (by this
		// transaction or another), and it stays until the day is
		// registered, which is after the day has ended, when no posting
		// falls on it.
		tx.AfterCommit(func() { s.settleMarks.remember(d) })
	}
	return nil
}

// dayMarks are the settlement days this process has found stored. It is
// only a cache in front of an idempotent insert: it holds the days of the
// latest dates it saw and forgets the rest when it grows.
type dayMarks struct {
	mu   sync.Mutex
	days map[SettlementDay]struct{}
}

// dayMarksMax bounds the cache: beyond it, it starts over. It is a few
// megabytes, the active merchants' days of one or two dates.
const dayMarksMax = 100_000

func (m *dayMarks) seen(d SettlementDay) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.days[d]
	return ok
}

func (m *dayMarks) remember(d SettlementDay) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.days == nil || len(m.days) >= dayMarksMax {
		m.days = map[SettlementDay]struct{}{}
	}
	m.days[d] = struct{}{}
}
