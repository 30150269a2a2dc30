package payd

import (
	"context"
	"sync"
	"time"
)

// KeyUseEvery is how often, at most, an instance records a key's use. The
// dashboard shows when each key was last used; recording every request
// would turn each read of a busy key into a write.
const KeyUseEvery = time.Minute

// keyUses remembers when this process last recorded each key's use.
type keyUses struct {
	mu   sync.Mutex
	last map[string]time.Time
}

// due reports whether a use of key k at now should be recorded, and if so
// marks it recorded, so that concurrent requests record it once.
func (u *keyUses) due(k *APIKey, now time.Time) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	last, ok := u.last[k.ID]
	if !ok && k.LastUsedAt != nil {
		last, ok = *k.LastUsedAt, true
	}
	if ok && now.Sub(last) < KeyUseEvery {
		return false
	}
	if u.last == nil || len(u.last) >= authCacheMax {
		u.last = map[string]time.Time{}
	}
	u.last[k.ID] = now
	return true
}

// noteKeyUse records that k authenticated a request at now, at most once
// per KeyUseEvery. A failed write costs the request nothing: the key's
// last use is information, not a rule.
func (s *Service) noteKeyUse(ctx context.Context, k *APIKey, now time.Time) {
	if !s.keyUses.due(k, now) {
		return
	}
	err := s.store.Tx(ctx, func(tx Tx) error { return tx.KeyTouch(ctx, k.ID, now) })
	if err != nil {
		s.log.WarnContext(ctx, "record key use", "key_id", k.ID, "err", err.Error())
	}
}
