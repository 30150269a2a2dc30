package payd

import (
	"context"
	"time"
)

// scopedLink loads a link of the principal's shop and mode, locked for
// update when lock is set; another shop's or mode's link is not found.
func scopedLink(ctx context.Context, tx Tx, p *Principal, id string, lock bool) (*PaymentLink, error) {
	return inScope(ctx, p, PrefixPaymentLink, "payment link", id, lockedIf(lock, tx.PaymentLinkGet, tx.PaymentLinkGetForUpdate))
}

// GetPaymentLink returns a link of the principal's shop and mode.
func (s *Service) GetPaymentLink(ctx context.Context, p *Principal, id string) (*PaymentLink, error) {
	return read(ctx, s, "get payment link", func(tx Tx) (*PaymentLink, error) { return scopedLink(ctx, tx, p, id, false) })
}

// ListPaymentLinks lists the principal's links, newest first.
func (s *Service) ListPaymentLinks(ctx context.Context, p *Principal, params *PaymentLinkListParams) (Page[*PaymentLink], error) {
	params.ShopID, params.Test = p.Shop.ID, p.Test()
	return read(ctx, s, "list payment links", func(tx Tx) (Page[*PaymentLink], error) { return tx.PaymentLinkList(ctx, params) })
}

// PublicURL is the base of the addresses the service hands out.
func (s *Service) PublicURL() string { return s.publicURL }

// LinkURL is the address of the page of the payment link id.
func (s *Service) LinkURL(id string) string { return s.publicURL + s.paths.Link + id }

// due reports whether an active link's expires_at has passed at now: the
// sweep has yet to mark it, and it takes nothing meanwhile.
func (l *PaymentLink) due(now time.Time) bool {
	return l.Status == LinkActive && l.ExpiresAt != nil && !now.Before(*l.ExpiresAt)
}

// DeactivatePaymentLink stops an active link (200). A deactivated link is
// answered as it is, so a merchant's retry without its Idempotency-Key
// still succeeds; a paid or expired link is invalid_state.
func (s *Service) DeactivatePaymentLink(ctx context.Context, p *Principal, idem Idempotency, id string) (*Response, error) {
	return s.idempotent(ctx, AuditDeactivateLink, p, idem, func(tx Tx) (Outcome, any, error) {
		l, err := scopedLink(ctx, tx, p, id, true)
		if err != nil {
			return 0, nil, err
		}
		now := s.clock.Now()
		switch {
		case l.Status == LinkDeactivated:
		case l.due(now):
			return 0, nil, Errorf(CodeInvalidState, "cannot deactivate a payment link that expired at %s", l.ExpiresAt.Format(time.RFC3339))
		case l.Status == LinkActive:
			l.Status, l.DeactivatedAt = LinkDeactivated, &now
			if err := tx.PaymentLinkUpdate(ctx, l); err != nil {
				return 0, nil, err
			}
		default:
			return 0, nil, Errorf(CodeInvalidState, "cannot deactivate a payment link in status %s", l.Status)
		}
		return OutcomeOK, l.View(s.LinkURL(l.ID)), nil
	})
}

// ExpireLink marks an active link past its expires_at expired; an early
// or stale run changes nothing.
func (s *Service) ExpireLink(ctx context.Context, id string) error {
	return s.store.Tx(ctx, func(tx Tx) error {
		l, err := tx.PaymentLinkGetForUpdate(ctx, id)
		if err != nil {
			return notFoundAs(err, "payment link")
		}
		now := s.clock.Now()
		if !l.due(now) {
			return nil
		}
		l.Status, l.ExpiredAt = LinkExpired, &now
		return tx.PaymentLinkUpdate(ctx, l)
	})
}

// ExpireDueLinks marks every active link whose expires_at has passed on
// the service clock expired, each in its own transaction, by the walk of
// every expiry sweep (sweepDue): a periodic job runs it, and a link that
// fails is left to the next sweep.
func (s *Service) ExpireDueLinks(ctx context.Context) (int, error) {
	params := &PaymentLinkListExpiredParams{Now: s.clock.Now(), Limit: expirySweepBatch}
	return sweepDue(ctx, s, "payment links", expirySweepBatch,
		func(tx Tx, after *PaymentLinkDue) ([]PaymentLinkDue, error) {
			if after != nil {
				params.After = *after
			}
			return tx.PaymentLinkListExpired(ctx, params)
		},
		func(d PaymentLinkDue) (string, error) { return d.ID, s.ExpireLink(ctx, d.ID) })
}
