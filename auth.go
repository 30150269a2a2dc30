package payd

import (
	"context"
	"errors"
	"net/netip"
	"strconv"
)

var errBadCredentials = &Error{Code: CodeInvalidCredentials, Message: "missing or invalid credentials: use HTTP Basic auth with shop_id and secret_key"}

// ErrKeyRotatedOut answers a secret that is exactly a key of the shop
// whose life a rotation ended (its 24 hours passed, or it was expired
// early). Only whoever presents that secret can get it: telling a
// guesser needs a match of SHA-256, and the time taken is that of any
// refusal (every key is compared either way). It tells the holder
// nothing they lack — not when, not which key replaced it — only that
// the key it has is over, which a plain 401 leaves them to find out. The
// code stays the contract's invalid_credentials (Authentication, rule 4).
var ErrKeyRotatedOut = &Error{Code: CodeInvalidCredentials,
	Message: "this secret key has expired: a newer key was issued for the shop (a key rotation) and this one no longer works; use the newest key"}

// Authenticate checks a shop id and secret key and returns who they act as.
// The checks run in the contract's order: credentials (401), blocked shop
// and IP allowlist (403), live key of a shop not yet activated (422).
func (s *Service) Authenticate(ctx context.Context, shopID, secret string, ip netip.Addr) (*Principal, error) {
	mode, region, ok := ParseKeyPrefix(secret)
	if !ok || !ValidID(PrefixShop, shopID) {
		return nil, errBadCredentials
	}
	shop, keys, err := s.authData(ctx, shopID)
	if errors.Is(err, ErrNoRows) {
		return nil, errBadCredentials
	}
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	var match *APIKey
	for _, k := range keys {
		// Every candidate is compared, so the time taken does not tell
		// which key, if any, matched.
		if k.Mode == mode && SecretMatches(secret, k.Hash) && match == nil {
			match = k
		}
	}
	if match == nil || shop.Region != region {
		return nil, errBadCredentials
	}
	if !match.Usable(now) {
		if match.RevokedAt == nil {
			return nil, ErrKeyRotatedOut
		}
		return nil, errBadCredentials
	}
	if shop.Blocked {
		return nil, Errorf(CodeForbidden, "the shop is blocked; contact support")
	}
	// An address that could not be determined (a trusted proxy sent none
	// that parses) passes no allowlist.
	if !shop.Settings.AllowsIP(ip) {
		return nil, Errorf(CodeForbidden, "the caller's IP address is not in the shop's allowlist")
	}
	if mode == ModeLive && !shop.Live() {
		return nil, Errorf(CodeShopNotLive, "live keys work after the shop is activated; use a test key until then")
	}
	s.noteKeyUse(ctx, match, now)
	return &Principal{Shop: shop, Mode: mode, KeyID: match.ID, KeyState: match.StateAt(now)}, nil
}

// authData returns the shop and its keys, from the cache while fresh. The
// requests that find a shop's entry stale at once share one read: a
// shop's burst as its entry ages out costs the database two queries, not
// two per request.
func (s *Service) authData(ctx context.Context, shopID string) (*Shop, []*APIKey, error) {
	e, ok, gen := s.auth.get(shopID)
	if ok {
		return e.shop, e.keys, nil
	}
	// Keyed by generation too: a request that comes after an
	// invalidation must not take a read begun before it. The read is not
	// cancelled with the request that happened to start it.
	v, err, _ := s.auth.loads.Do(shopID+"@"+strconv.FormatUint(gen, 10), func() (any, error) {
		var e authEntry
		ctx := context.WithoutCancel(ctx)
		err := s.store.View(ctx, func(tx Tx) (err error) {
			if e.shop, err = tx.ShopGet(ctx, shopID); err != nil {
				return err
			}
			e.keys, err = tx.KeyListByShop(ctx, shopID)
			return err
		})
		if err != nil {
			return nil, err
		}
		s.auth.put(shopID, e.shop, e.keys, gen)
		return e, nil
	})
	if err != nil {
		return nil, nil, err
	}
	e = v.(authEntry)
	return e.shop, e.keys, nil
}
