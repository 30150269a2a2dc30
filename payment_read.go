package payd

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// scoped loads a payment of the principal's shop and mode, locked for
// update when lock is set.
func scoped(ctx context.Context, tx Tx, p *Principal, id string, lock bool) (*Payment, error) {
	return inScope(ctx, p, PrefixPayment, "payment", id, lockedIf(lock, tx.PaymentGet, tx.PaymentGetForUpdate))
}

// GetPayment returns a payment of the principal's shop and mode.
func (s *Service) GetPayment(ctx context.Context, p *Principal, id string) (*Payment, error) {
	return read(ctx, s, "get payment", func(tx Tx) (*Payment, error) { return scoped(ctx, tx, p, id, false) })
}

// GetPaymentView returns a payment of the principal's shop and mode as the
// contract renders it, already encoded: the stored rendering when it is of
// the running version, so that a GET sends it without decoding the
// payment's document and encoding it again (docs/architecture.md, "What
// is stored").
func (s *Service) GetPaymentView(ctx context.Context, p *Principal, id string) (*PaymentView, error) {
	return read(ctx, s, "get payment", func(tx Tx) (*PaymentView, error) {
		return inScope(ctx, p, PrefixPayment, "payment", id, tx.PaymentViewGet)
	})
}

// ListPayments lists the principal's payments, newest first, each as the
// contract renders it.
func (s *Service) ListPayments(ctx context.Context, p *Principal, params *PaymentListParams) (Page[*PaymentView], error) {
	params.ShopID, params.Test = p.Shop.ID, p.Test()
	return read(ctx, s, "list payments", func(tx Tx) (Page[*PaymentView], error) { return tx.PaymentViewList(ctx, params) })
}

// ListPaymentsOfShops is ListPayments over several shops of one user at
// once, in one order: each shop's page is read as ListPayments reads it,
// in one transaction, and the pages are merged newest first. A shop's
// page holds every payment of that shop that can come before the merged
// page's last, so the merged page misses none, and its cursor serves every
// shop: the work is one page per shop, never a walk of the history.
func (s *Service) ListPaymentsOfShops(ctx context.Context, ps []*Principal, params *PaymentListParams) (Page[*PaymentView], error) {
	if len(ps) == 1 {
		return s.ListPayments(ctx, ps[0], params)
	}
	return read(ctx, s, "list payments of shops", func(tx Tx) (Page[*PaymentView], error) {
		var all []*PaymentView
		more := false
		for _, p := range ps {
			one := *params
			one.ShopID, one.Test = p.Shop.ID, p.Test()
			page, err := tx.PaymentViewList(ctx, &one)
			if err != nil {
				return Page[*PaymentView]{}, err
			}
			for _, v := range page.Items {
				v.ShopID = p.Shop.ID
			}
			all = append(all, page.Items...)
			more = more || page.Next != nil
		}
		slices.SortFunc(all, func(a, b *PaymentView) int {
			if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
				return c
			}
			return strings.Compare(b.ID, a.ID)
		})
		limit := params.Limit
		if limit <= 0 {
			limit = DefaultPageSize
		}
		var out Page[*PaymentView]
		if len(all) > limit {
			all, more = all[:limit], true
		}
		out.Items = all
		if more && len(all) > 0 {
			last := all[len(all)-1]
			out.Next = &Cursor{CreatedAt: last.CreatedAt, ID: last.ID}
		}
		return out, nil
	})
}

// OperatorPayment returns any payment by id, for operators: the stored
// payment with its provider and attempts, without the checkout token's
// hash, which only the payer's pages look up by.
func (s *Service) OperatorPayment(ctx context.Context, id string) (pay *Payment, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		pay, err = tx.PaymentGet(ctx, id)
		return err
	})
	if err != nil {
		return nil, notFoundAs(err, "payment")
	}
	pay.CheckoutTokenHash = nil
	return pay, nil
}

// OperatorPaymentEvents lists a payment's events, newest first, with
// their delivery summaries: what its merchant was told of it, for the
// operator who looks the payment up.
func (s *Service) OperatorPaymentEvents(ctx context.Context, id string) (events []*Event, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		pay, err := tx.PaymentGet(ctx, id)
		if err != nil {
			return notFoundAs(err, "payment")
		}
		page, err := tx.EventList(ctx, &EventListParams{ListParams: ListParams{Limit: MaxPageSize}, ShopID: pay.ShopID,
			Test: pay.Test, ObjectID: pay.ID})
		events = page.Items
		return err
	})
	return events, withOp("payment events", err)
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
