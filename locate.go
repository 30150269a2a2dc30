package payd

import "context"

// Whereabouts is the shop and mode an object belongs to.
type Whereabouts struct {
	ShopID string
	Mode   Mode
}

// merchantObject is a shop's object that knows its merchant.
type merchantObject interface {
	shopObject
	merchant() string
}

func (p *Payment) merchant() string     { return p.MerchantID }
func (r *Refund) merchant() string      { return r.MerchantID }
func (d *Dispute) merchant() string     { return d.MerchantID }
func (l *PaymentLink) merchant() string { return l.MerchantID }

// LocateObject finds which of the merchant's shops, and which mode, the
// payment, refund, dispute or payment link id belongs to, so that the
// dashboard can open an object's address whichever shop is selected. An
// id of no such object, or of another merchant's, is not_found alike:
// the answer tells a merchant nothing of another's objects. Who may read
// what stays the caller's rule (a user's role is the merchant's, not a
// shop's).
func (s *Service) LocateObject(ctx context.Context, merchantID, id string) (Whereabouts, error) {
	return read(ctx, s, "locate object", func(tx Tx) (Whereabouts, error) {
		switch {
		case ValidID(PrefixPayment, id):
			return whereabouts(ctx, merchantID, id, tx.PaymentGet)
		case ValidID(PrefixRefund, id):
			return whereabouts(ctx, merchantID, id, tx.RefundGet)
		case ValidID(PrefixDispute, id):
			return whereabouts(ctx, merchantID, id, tx.DisputeGet)
		case ValidID(PrefixPaymentLink, id):
			return whereabouts(ctx, merchantID, id, tx.PaymentLinkGet)
		}
		return Whereabouts{}, NotFound("object")
	})
}

func whereabouts[T merchantObject](ctx context.Context, merchantID, id string, get func(context.Context, string) (T, error)) (Whereabouts, error) {
	obj, err := get(ctx, id)
	if err != nil {
		return Whereabouts{}, notFoundAs(err, "object")
	}
	if obj.merchant() != merchantID {
		return Whereabouts{}, NotFound("object")
	}
	shopID, test := obj.scope()
	return Whereabouts{ShopID: shopID, Mode: ModeOf(test)}, nil
}
