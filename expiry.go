package payd

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ExpirySweepInterval is how often pending payments past their expires_at
// are looked for. A pending payment is canceled (expired_on_confirmation)
// at most this long, plus the job queue's poll interval, after its
// expires_at on the service clock. Creating a payment therefore writes no
// job of its own; holds, which start on authorization, keep one job each.
const ExpirySweepInterval = 5 * time.Second

// PaymentDue is a pending payment whose expires_at has passed.
type PaymentDue struct {
	ID        string
	ExpiresAt time.Time
}

// PaymentListExpiredParams select due payments: ExpiresAt at or before
// Now, after the position After (zero: from the start), at most Limit.
type PaymentListExpiredParams struct {
	Now   time.Time
	After PaymentDue
	Limit int
}

// expirySweepBatch is how many due payments one read returns; each is
// expired in its own transaction.
const expirySweepBatch = 100

// expirySweepBudget bounds one sweep, well inside a job's timeout; a
// backlog beyond it (after downtime) is left to the next sweep.
const expirySweepBudget = 30 * time.Second

// ExpireDuePayments cancels every pending payment whose expires_at has
// passed on the service clock, each as ExpirePayment does. A periodic job
// runs it, and it returns how many due payments it handled. A payment
// that fails is skipped so that the others still expire; the errors are
// returned together, and the next sweep tries it again.
func (s *Service) ExpireDuePayments(ctx context.Context) (int, error) {
	started := time.Now()
	params := &PaymentListExpiredParams{Now: s.clock.Now(), Limit: expirySweepBatch}
	var errs []error
	n := 0
	for time.Since(started) < expirySweepBudget {
		var due []PaymentDue
		err := s.store.View(ctx, func(tx Tx) (err error) {
			due, err = tx.PaymentListExpired(ctx, params)
			return err
		})
		if err != nil {
			return n, fmt.Errorf("list expired payments: %w", err)
		}
		for _, d := range due {
			if err := s.ExpirePayment(ctx, d.ID, false); err != nil {
				if ctx.Err() != nil {
					return n, ctx.Err()
				}
				errs = append(errs, fmt.Errorf("expire %s: %w", d.ID, err))
				continue
			}
			n++
		}
		if len(due) < params.Limit {
			break
		}
		params.After = due[len(due)-1]
	}
	return n, errors.Join(errs...)
}
