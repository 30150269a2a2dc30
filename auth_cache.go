package payd

import (
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// AuthCacheTTL is how long this process trusts a shop and its keys as read
// for authentication, which otherwise costs two queries per request. The
// operator writes that change them — key issue and revocation, shop
// state and settings — go through the Service and drop the shop's entry
// when they commit, so in this process they take effect at once. Another
// instance sees them when its entry ages out: after at most AuthCacheTTL.
// Key expiry needs no invalidation: a key's expires_at is checked against
// the service clock on every request.
const AuthCacheTTL = 2 * time.Second

// authCacheMax bounds the entries; only shops that exist are cached.
const authCacheMax = 10_000

// authCache holds shops and their keys by shop id. The keys hold only the
// secrets' hashes, as the database does.
type authCache struct {
	ttl time.Duration
	now func() time.Time // real time: the TTL is about staleness, not the service clock

	mu      sync.RWMutex
	entries map[string]authEntry
	// gen counts invalidations. A load that began before one may have read
	// what the invalidating write replaced, so it is not stored.
	gen uint64
	// loads lets the requests that miss one entry at once share its read.
	loads singleflight.Group
}

type authEntry struct {
	shop   *Shop
	keys   []*APIKey
	loaded time.Time
}

func newAuthCache(ttl time.Duration) *authCache {
	return &authCache{ttl: ttl, now: time.Now, entries: map[string]authEntry{}}
}

// get returns the fresh entry of shopID, if any, and the generation a load
// started now must present to put.
func (c *authCache) get(shopID string) (authEntry, bool, uint64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.entries[shopID]
	if ok && c.now().Sub(e.loaded) >= c.ttl {
		ok = false
	}
	return e, ok, c.gen
}

// put stores what a load started at generation gen read, unless something
// was invalidated since.
func (c *authCache) put(shopID string, shop *Shop, keys []*APIKey, gen uint64) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	now := c.now()
	if len(c.entries) >= authCacheMax {
		for id, e := range c.entries {
			if now.Sub(e.loaded) >= c.ttl {
				delete(c.entries, id)
			}
		}
		for id := range c.entries {
			if len(c.entries) < authCacheMax {
				break
			}
			delete(c.entries, id)
		}
	}
	c.entries[shopID] = authEntry{shop: shop, keys: keys, loaded: now}
}

// invalidate drops shopID's entry; call it after the write committed.
func (c *authCache) invalidate(shopID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	delete(c.entries, shopID)
}
