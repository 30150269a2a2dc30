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

// ExpireDuePayments cancels every pending payment whose expires_at has
// passed on the service clock, each as ExpirePayment does. A periodic job
// runs it, and it returns how many due payments it handled. A payment
// that fails is skipped so that the others still expire; the errors are
// returned together, and the next sweep tries it again.
func (s *Service) ExpireDuePayments(ctx context.Context) (int, error) {
	params := &PaymentListExpiredParams{Now: s.clock.Now(), Limit: expirySweepBatch}
	return sweepDue(ctx, s, "payments", expirySweepBatch,
		func(tx Tx, after *PaymentDue) (due []PaymentDue, err error) {
			if after != nil {
				params.After = *after
			}
			return tx.PaymentListExpired(ctx, params)
		},
		func(d PaymentDue) (string, error) { return d.ID, s.ExpirePayment(ctx, d.ID, false) })
}

// sweepDue is the walk of every expiry sweep: it reads due items a page
// of limit at a time (list gets the last item seen, nil at first), applies
// each in its own transaction (apply), and stops after workBudget with
// ErrWorkLeft when a full page is still waiting.
// An item that fails is skipped so that the others still go; the errors
// are returned together and the next sweep tries it again.
func sweepDue[D any](ctx context.Context, s *Service, what string, limit int,
	list func(tx Tx, after *D) ([]D, error), apply func(d D) (id string, err error)) (int, error) {
	started := time.Now()
	var errs []error
	var after *D
	n := 0
	for {
		if time.Since(started) >= workBudget {
			return n, errors.Join(append(errs, ErrWorkLeft)...)
		}
		var due []D
		err := s.store.View(ctx, func(tx Tx) (err error) {
			due, err = list(tx, after)
			return err
		})
		if err != nil {
			return n, fmt.Errorf("list expired %s: %w", what, err)
		}
		for _, d := range due {
			if id, err := apply(d); err != nil {
				if ctx.Err() != nil {
					return n, ctx.Err()
				}
				errs = append(errs, fmt.Errorf("expire %s: %w", id, err))
				continue
			}
			n++
		}
		if len(due) < limit {
			break
		}
		after = &due[len(due)-1]
	}
	return n, errors.Join(errs...)
}
