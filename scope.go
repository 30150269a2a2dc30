package payd

import "context"

// shopObject is an object of one shop and one mode: a payment, refund,
// dispute, payment link or payout.
type shopObject interface {
	scope() (shopID string, test bool)
}

func (p *Payment) scope() (string, bool)     { return p.ShopID, p.Test }
func (r *Refund) scope() (string, bool)      { return r.ShopID, r.Test }
func (d *Dispute) scope() (string, bool)     { return d.ShopID, d.Test }
func (l *PaymentLink) scope() (string, bool) { return l.ShopID, l.Test }
func (po *Payout) scope() (string, bool)     { return po.ShopID, po.Test }

// inScope loads an object by id through get and keeps it only when it
// belongs to the principal's shop and mode. An id of another object's
// shape, no object, or another shop's or mode's is not_found for kind, so
// that an answer never tells a merchant whether someone else's id exists;
// the store's own failures (an unreachable database) stay what they are.
func inScope[T shopObject](ctx context.Context, p *Principal, prefix, kind, id string, get func(context.Context, string) (T, error)) (T, error) {
	var none T
	if !ValidID(prefix, id) {
		return none, NotFound(kind)
	}
	obj, err := get(ctx, id)
	if err != nil {
		return none, notFoundAs(err, kind)
	}
	if shopID, test := obj.scope(); shopID != p.Shop.ID || test != p.Test() {
		return none, NotFound(kind)
	}
	return obj, nil
}

// lockedIf is get, or getForUpdate when lock is set.
func lockedIf[T any](lock bool, get, getForUpdate func(context.Context, string) (T, error)) func(context.Context, string) (T, error) {
	if lock {
		return getForUpdate
	}
	return get
}
