package payd

import (
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// AuthCacheTTL is how long this process trusts a shop and its keys as read
// for authentication, which otherwise costs two queries per request, and a
// merchant's list of shops as the dashboard's every page reads it. The
// operator writes that change them — shop creation, key issue and
// revocation, shop state and settings — go through the Service and drop
// the entries when they commit, so in this process they take effect at
// once. Another instance sees them when its entry ages out: after at most
// AuthCacheTTL. Key expiry needs no invalidation: a key's expires_at is
// checked against the service clock on every request.
const AuthCacheTTL = 2 * time.Second

// authCacheMax bounds the entries of each kind; only shops that exist are
// cached.
const authCacheMax = 10_000

// authCache holds shops and their keys by shop id, and merchants' lists of
// shops by merchant id. The keys hold only the secrets' hashes, as the
// database does.
type authCache struct {
	ttl time.Duration
	now func() time.Time // real time: the TTL is about staleness, not the service clock

	mu      sync.RWMutex
	entries map[string]cached[authEntry]
	lists   map[string]cached[[]*Shop]
	// gen counts invalidations. A load that began before one may have read
	// what the invalidating write replaced, so it is not stored.
	gen uint64
	// loads lets the requests that miss one entry at once share its read.
	loads singleflight.Group
}

type authEntry struct {
	shop *Shop
	keys []*APIKey
}

type cached[V any] struct {
	v      V
	loaded time.Time
}

func newAuthCache(ttl time.Duration) *authCache {
	return &authCache{ttl: ttl, now: time.Now, entries: map[string]cached[authEntry]{}, lists: map[string]cached[[]*Shop]{}}
}

// get returns the fresh entry of shopID, if any, and the generation a load
// started now must present to put.
func (c *authCache) get(shopID string) (authEntry, bool, uint64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return fresh(c, c.entries, shopID)
}

// put stores what a load started at generation gen read, unless something
// was invalidated since.
func (c *authCache) put(shopID string, shop *Shop, keys []*APIKey, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	keep(c, c.entries, shopID, authEntry{shop: shop, keys: keys}, gen)
}

// shopsOf returns merchantID's fresh list of shops, as get does.
func (c *authCache) shopsOf(merchantID string) ([]*Shop, bool, uint64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return fresh(c, c.lists, merchantID)
}

// putShops stores merchantID's list of shops, as put does.
func (c *authCache) putShops(merchantID string, shops []*Shop, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	keep(c, c.lists, merchantID, shops, gen)
}

// invalidate drops shopID's entry and every merchant's list (shops change
// rarely, and the list is the merchant's, not the shop's); call it after
// the write committed.
func (c *authCache) invalidate(shopID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	delete(c.entries, shopID)
	clear(c.lists)
}

// fresh reads m under c's read lock.
func fresh[V any](c *authCache, m map[string]cached[V], key string) (V, bool, uint64) {
	e, ok := m[key]
	if ok && c.now().Sub(e.loaded) >= c.ttl {
		ok = false
	}
	return e.v, ok, c.gen
}

// keep writes m under c's lock, making room when it is full: first the
// stale entries go, then any.
func keep[V any](c *authCache, m map[string]cached[V], key string, v V, gen uint64) {
	if c.ttl <= 0 || c.gen != gen {
		return
	}
	now := c.now()
	if len(m) >= authCacheMax {
		for k, e := range m {
			if now.Sub(e.loaded) >= c.ttl {
				delete(m, k)
			}
		}
		for k := range m {
			if len(m) < authCacheMax {
				break
			}
			delete(m, k)
		}
	}
	m[key] = cached[V]{v: v, loaded: now}
}
