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
	return read(ctx, s, func(tx Tx) (bool, error) { return clockShared(ctx, tx) })
}

// clockShared is TestClockShared in tx: a second merchant is enough.
func clockShared(ctx context.Context, tx Tx) (bool, error) {
	page, err := tx.MerchantList(ctx, &MerchantListParams{ListParams: ListParams{Limit: 2}})
	if err != nil {
		return false, err
	}
	return len(page.Items) > 1, nil
}

// AdvanceTestClock moves the service's test clock forward by d for a
// dashboard user in the sandbox of p's shop, and records the move in the
// merchant's audit log: object AuditObjectTestClock, detail the amount
// and the new time. It answers not_found without a test clock,
// forbidden with live data, and ErrTestClockShared when other merchants
// run on the clock too. The entry commits before the clock moves: a move
// cannot fail, so there is no move without its entry.
func (s *Service) AdvanceTestClock(ctx context.Context, p *Principal, d time.Duration) (time.Time, error) {
	c, ok := s.clock.(*TestClock)
	switch {
	case !ok:
		return time.Time{}, Errorf(CodeNotFound, "the service runs without a test clock")
	case !p.Test():
		return time.Time{}, Errorf(CodeForbidden, "the test clock is moved from test data only")
	case d <= 0:
		return time.Time{}, Invalid("amount", "the clock moves forward only")
	}
	err := s.store.Tx(ctx, func(tx Tx) error {
		if err := s.permit(ctx, tx, p, AuditAdvanceTestClock); err != nil {
			return err
		}
		shared, err := clockShared(ctx, tx)
		if err != nil {
			return err
		}
		if shared {
			return ErrTestClockShared
		}
		detail := fmt.Sprintf("+%s, to %s", d, c.Now().Add(d).Format(time.RFC3339))
		return s.auditDetail(ctx, tx, p.Actor, p.Shop.MerchantID, p.Shop.ID, p.Mode, AuditAdvanceTestClock, AuditObjectTestClock, detail)
	})
	if err != nil {
		return time.Time{}, withOp("advance test clock", err)
	}
	return c.Advance(d), nil
}
