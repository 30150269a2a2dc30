package payd

import (
	"context"
	"errors"
)

// ExpireKey ends at once the overlap a rotation gave an older key of the
// principal's shop and mode: for a secret that leaked, waiting out
// KeyOverlap is waiting 24 hours with the leak open. Only a key that is
// still expiring may be expired: the mode's newest key has no successor
// to take over (a rotation comes first), and a key that stopped already
// stays as it stopped. Checked against the role as a rotation is, and
// audited in the same transaction.
func (s *Service) ExpireKey(ctx context.Context, p *Principal, keyID string) (key *APIKey, err error) {
	err = s.store.Tx(ctx, func(tx Tx) error {
		if _, err := tx.ShopGetForUpdate(ctx, p.Shop.ID); err != nil {
			return notFoundAs(err, "shop")
		}
		if err := s.permit(ctx, tx, p, AuditExpireKey); err != nil {
			return err
		}
		keys, err := tx.KeyListByShop(ctx, p.Shop.ID)
		if err != nil {
			return err
		}
		newest := ""
		for _, k := range keys { // newest first
			if k.Mode != p.Mode {
				continue
			}
			if newest == "" {
				newest = k.ID
			}
			if k.ID == keyID {
				key = k
			}
		}
		switch now := s.clock.Now(); {
		case key == nil:
			return NotFound("key")
		case key.ID == newest:
			return Errorf(CodeInvalidState, "the newest key cannot be expired: issue a new key first, then expire this one")
		case key.StateAt(now) != KeyExpiring:
			return Errorf(CodeInvalidState, "the key has stopped working already")
		default:
			if err := tx.KeyExpire(ctx, key.ID, now); err != nil {
				return err
			}
			key.ExpiresAt = &now
		}
		tx.AfterCommit(func() { s.auth.invalidate(p.Shop.ID) })
		if p.Actor == nil {
			return nil
		}
		return s.auditShop(ctx, tx, p.Actor, p.Shop.MerchantID, p.Shop.ID, p.Mode, AuditExpireKey, key.ID)
	})
	if errors.Is(err, ErrNoRows) {
		err = NotFound("key")
	}
	return key, withOp("expire key", err)
}
