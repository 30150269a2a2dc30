package payd

import (
	"context"
	"fmt"
)

// scoped loads a payment of the principal's shop and mode, locked for
// update when lock is set.
func scoped(ctx context.Context, tx Tx, p *Principal, id string, lock bool) (*Payment, error) {
	return inScope(ctx, p, PrefixPayment, "payment", id, lockedIf(lock, tx.PaymentGet, tx.PaymentGetForUpdate))
}

// GetPayment returns a payment of the principal's shop and mode.
func (s *Service) GetPayment(ctx context.Context, p *Principal, id string) (*Payment, error) {
	return read(ctx, s, func(tx Tx) (*Payment, error) { return scoped(ctx, tx, p, id, false) })
}

// ListPayments lists the principal's payments, newest first, each as the
// contract renders it.
func (s *Service) ListPayments(ctx context.Context, p *Principal, params *PaymentListParams) (Page[*PaymentView], error) {
	params.ShopID, params.Test = p.Shop.ID, p.Test()
	return read(ctx, s, func(tx Tx) (Page[*PaymentView], error) { return tx.PaymentViewList(ctx, params) })
}

// OperatorPayment returns any payment by id, for operators.
func (s *Service) OperatorPayment(ctx context.Context, id string) (pay *Payment, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		pay, err = tx.PaymentGet(ctx, id)
		return err
	})
	return pay, notFoundAs(err, "payment")
}

// RefreshPaymentViews renders again the stored rendering of every payment
// whose rendering is of an older PaymentViewVersion, a batch at a time,
// each payment in its own short transaction under its lock. Lists already
// render such payments from their documents; this brings the stored form
// up to date so that they are sent as stored again. A periodic job runs it
// (and at start); with nothing stale it reads one empty index page.
func (s *Service) RefreshPaymentViews(ctx context.Context) (int, error) {
	const batch = 500
	n, after := 0, ""
	for {
		var ids []string
		err := s.store.View(ctx, func(tx Tx) (err error) {
			ids, err = tx.PaymentViewsStale(ctx, after, batch)
			return err
		})
		if err != nil {
			return n, fmt.Errorf("list stale payment renderings: %w", err)
		}
		for _, id := range ids {
			err := s.store.Tx(ctx, func(tx Tx) error {
				pay, err := tx.PaymentGetForUpdate(ctx, id)
				if err != nil {
					return err
				}
				return tx.PaymentUpdate(ctx, pay)
			})
			if err != nil {
				return n, fmt.Errorf("render payment %s again: %w", id, err)
			}
			n++
		}
		if len(ids) < batch {
			return n, nil
		}
		after = ids[len(ids)-1]
	}
}
