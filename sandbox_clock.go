package payd

import (
	"context"
	"fmt"
	"time"
)

// ErrTestClockShared refuses a merchant's move of a test clock that other
// merchants' sandboxes run on too: expiries, holds, retries, settlement
// days and link deadlines of every merchant follow it, so one merchant
// moving it changes the others' sandboxes (docs/sandbox.md, "Who moves
// the test clock").
var ErrTestClockShared = &Error{Code: CodeForbidden,
	Message: "the test clock is shared by every merchant of this service: only its operator moves it"}

// TestClockShared reports whether more than one merchant's sandbox runs
// on the service's clock: then only the operator moves it (operator API
// `POST /admin/v1/clock/advance`, `payd admin clock advance`). With one
// merchant (`payd serve --dev`, a developer's own sandbox) its dashboard
// may move it.
func (s *Service) TestClockShared(ctx context.Context) (bool, error) {
	return read(ctx, s, "read test clock sharing", func(tx Tx) (bool, error) { return clockShared(ctx, tx) })
}

// clockShared is TestClockShared in tx: a second merchant is enough.
func clockShared(ctx context.Context, tx Tx) (bool, error) {
	page, err := tx.MerchantList(ctx, &MerchantListParams{ListParams: ListParams{Limit: 2}})
	if err != nil {
		return false, err
	}
	return len(page.Items) > 1, nil
}

// TestClockAdvance is a move of the test clock asked for from a
// merchant's sandbox.
type TestClockAdvance struct {
	// By is how far the clock moves forward.
	By time.Duration
	// From is the clock's lead over the wall clock (TestClock.Lead) when
	// the request was made, as the sandbox page showed it: the clock moves
	// only from there, so the same form sent twice moves it once.
	From time.Duration
}

// clockReading is how far apart two readings of the clock's lead may be
// and still be one: a page that read its lead through Now and the wall
// clock separately carries it to the millisecond, not exactly.
const clockReading = time.Second

// AdvanceTestClock moves the service's test clock forward by a.By for a
// dashboard user in the sandbox of p's shop, and records the move in the
// merchant's audit log: object AuditObjectTestClock, detail the amount
// and the new time. It answers not_found without a test clock,
// forbidden with live data or for a user whose role does not allow the
// move (Service.permit), invalid_request for a move that is not
// forward, and ErrTestClockShared when other merchants run on the clock
// too. A clock that has moved from a.From since (the same request sent
// again, or the operator's move) is not moved: moved is false, nothing
// is recorded, and now is the clock's time.
//
// The check of the lead, the entry and the move are one step: two
// requests at once with the same From move the clock once. The entry
// commits before the clock moves: a move cannot fail, so there is no
// move without its entry.
func (s *Service) AdvanceTestClock(ctx context.Context, p *Principal, a TestClockAdvance) (now time.Time, moved bool, err error) {
	c, ok := s.clock.(*TestClock)
	switch {
	case !ok:
		return time.Time{}, false, Errorf(CodeNotFound, "the service runs without a test clock")
	case !p.Test():
		return time.Time{}, false, Errorf(CodeForbidden, "the test clock is moved from test data only")
	case a.By <= 0:
		return time.Time{}, false, Invalid("amount", "the clock moves forward only")
	}
	s.clockMu.Lock()
	defer s.clockMu.Unlock()
	err = s.store.Tx(ctx, func(tx Tx) error {
		moved = false
		if err := s.permit(ctx, tx, p, AuditAdvanceTestClock); err != nil {
			return err
		}
		// Shared first: a request for a shared clock is refused, not
		// answered as a move already made because the operator moved it.
		shared, err := clockShared(ctx, tx)
		if err != nil {
			return err
		}
		if shared {
			return ErrTestClockShared
		}
		if d := c.Lead() - a.From; d < -clockReading || d > clockReading {
			return nil
		}
		moved = true
		detail := fmt.Sprintf("+%s, to %s", a.By, c.Now().Add(a.By).Format(time.RFC3339))
		return s.auditDetail(ctx, tx, p.Actor, p.Shop.MerchantID, p.Shop.ID, p.Mode, AuditAdvanceTestClock, AuditObjectTestClock, detail)
	})
	if err != nil {
		return time.Time{}, false, withOp("advance test clock", err)
	}
	if !moved {
		return c.Now(), false, nil
	}
	return c.Advance(a.By), true, nil
}
