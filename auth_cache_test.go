package payd

import (
	"context"
	"fmt"
	"net/netip"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// authStore counts the authentication reads and serves one shop, whose
// key can be revoked behind the service's back, as another instance would.
type authStore struct {
	Store
	shop  *Shop
	key   APIKey
	loads atomic.Int64
	// lists counts the reads of the merchant's shops.
	lists atomic.Int64
	// touches counts the recorded uses of the key.
	touches atomic.Int64
	// read, when set, is told of each shop read, which then waits for
	// gate: a read in flight.
	read chan struct{}
	gate chan struct{}
}

type authTx struct {
	Tx
	s *authStore
}

func (s *authStore) View(ctx context.Context, fn func(Tx) error) error { return fn(authTx{s: s}) }
func (s *authStore) Tx(ctx context.Context, fn func(Tx) error) error   { return fn(authTx{s: s}) }

func (t authTx) KeyTouch(context.Context, string, time.Time) error {
	t.s.touches.Add(1)
	return nil
}

func (t authTx) ShopGet(_ context.Context, id string) (*Shop, error) {
	t.s.loads.Add(1)
	if id != t.s.shop.ID {
		return nil, ErrNoRows
	}
	sh := *t.s.shop
	if t.s.read != nil {
		t.s.read <- struct{}{}
		<-t.s.gate
	}
	return &sh, nil
}

func (t authTx) ShopList(_ context.Context, p *ShopListParams) (Page[*Shop], error) {
	t.s.lists.Add(1)
	if p.MerchantID != t.s.shop.MerchantID {
		return Page[*Shop]{}, nil
	}
	sh := *t.s.shop
	return Page[*Shop]{Items: []*Shop{&sh}}, nil
}

func (t authTx) KeyListByShop(context.Context, string) ([]*APIKey, error) {
	k := t.s.key
	return []*APIKey{&k}, nil
}

func TestAuthCache(t *testing.T) {
	t.Parallel()
	const secret = "test_ru_0123456789abcdefghijABCDEFGHIJKL"
	setup := func(t *testing.T) (*Service, *authStore, *time.Time) {
		st := &authStore{shop: &Shop{ID: "sh_01HZZZZZZZZZZZZZZZZZZZZZZZ", MerchantID: "mer_1", Region: RegionRU, Name: "First"}}
		st.key = APIKey{ID: "key_1", ShopID: st.shop.ID, Mode: ModeTest, Hash: HashSecret(secret)}
		if !ValidID(PrefixShop, st.shop.ID) {
			t.Fatalf("test shop id %q is not valid", st.shop.ID)
		}
		s := NewService(Config{Store: st, Clock: &TestClock{}})
		now := time.Now()
		s.auth.now = func() time.Time { return now }
		return s, st, &now
	}
	auth := func(s *Service) error {
		_, err := s.Authenticate(context.Background(), "sh_01HZZZZZZZZZZZZZZZZZZZZZZZ", secret, netip.Addr{})
		return err
	}

	t.Run("FreshEntryServes", func(t *testing.T) {
		t.Parallel()
		s, st, now := setup(t)
		for range 5 {
			if err := auth(s); err != nil {
				t.Fatal(err)
			}
		}
		if n := st.loads.Load(); n != 1 {
			t.Fatalf("%d loads for 5 requests within the TTL, want 1", n)
		}
		// The key's use is recorded once, not per request (KeyUseEvery).
		if n := st.touches.Load(); n != 1 {
			t.Fatalf("%d uses recorded for 5 requests within a minute, want 1", n)
		}
		// A change made elsewhere (another instance) shows once the entry
		// is AuthCacheTTL old.
		revoked := time.Now()
		st.key.RevokedAt = &revoked
		*now = now.Add(AuthCacheTTL - time.Millisecond)
		if err := auth(s); err != nil {
			t.Fatalf("within the TTL: %v", err)
		}
		*now = now.Add(time.Millisecond)
		if ErrorCodeOf(auth(s)) != CodeInvalidCredentials {
			t.Fatal("a key revoked elsewhere still works after the TTL")
		}
	})

	t.Run("InvalidateDropsTheEntry", func(t *testing.T) {
		t.Parallel()
		s, st, _ := setup(t)
		if err := auth(s); err != nil {
			t.Fatal(err)
		}
		st.shop.Blocked = true
		s.auth.invalidate(st.shop.ID)
		if ErrorCodeOf(auth(s)) != CodeForbidden {
			t.Fatal("a blocked shop is served from the cache after invalidation")
		}
	})

	t.Run("LoadOlderThanAnInvalidationIsNotKept", func(t *testing.T) {
		t.Parallel()
		s, st, _ := setup(t)
		_, _, gen := s.auth.get(st.shop.ID)
		stale := *st.shop
		s.auth.invalidate(st.shop.ID) // a write committed while the load ran
		s.auth.put(st.shop.ID, &stale, nil, gen)
		if _, ok, _ := s.auth.get(st.shop.ID); ok {
			t.Fatal("a load begun before an invalidation was cached")
		}
	})

	t.Run("BurstSharesOneRead", func(t *testing.T) {
		t.Parallel()
		// In a bubble, so that the test knows when every request is
		// blocked: the first in its read, the others waiting for it.
		synctest.Test(t, func(t *testing.T) {
			s, st, _ := setup(t)
			st.read, st.gate = make(chan struct{}, 20), make(chan struct{})
			errs := make(chan error, 20)
			for range 20 {
				go func() { errs <- auth(s) }()
			}
			synctest.Wait()
			close(st.gate)
			for range 20 {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			if n := st.loads.Load(); n != 1 {
				t.Fatalf("%d reads for 20 requests at once on a missing entry, want 1", n)
			}
		})
	})

	t.Run("ReadBeforeAnInvalidationNotShared", func(t *testing.T) {
		t.Parallel()
		s, st, _ := setup(t)
		st.read, st.gate = make(chan struct{}, 2), make(chan struct{})
		first := make(chan error, 1)
		go func() { first <- auth(s) }()
		<-st.read // the first read has copied the shop and waits
		st.shop.Blocked = true
		s.auth.invalidate(st.shop.ID)
		second := make(chan error, 1)
		go func() { second <- auth(s) }()
		<-st.read // a read of its own, not the one in flight
		close(st.gate)
		if err := <-second; ErrorCodeOf(err) != CodeForbidden {
			t.Fatalf("after blocking: %v; want the blocked shop's 403", err)
		}
		if err := <-first; err != nil {
			t.Fatalf("the request that began before: %v", err)
		}
	})

	t.Run("MerchantShops", func(t *testing.T) {
		t.Parallel()
		s, st, now := setup(t)
		names := func() string {
			shops, err := s.MerchantShops(context.Background(), "mer_1")
			if err != nil || len(shops) != 1 {
				t.Fatalf("MerchantShops = %v, %v", shops, err)
			}
			return shops[0].Name
		}
		for range 5 {
			names()
		}
		if n := st.lists.Load(); n != 1 {
			t.Fatalf("%d reads of the list for 5 pages within the TTL, want 1", n)
		}
		// A change through this process shows at once.
		st.shop.Name = "Renamed"
		s.auth.invalidate(st.shop.ID)
		if got := names(); got != "Renamed" || st.lists.Load() != 2 {
			t.Fatalf("after invalidation: %q after %d reads", got, st.lists.Load())
		}
		// One made elsewhere, once the list is AuthCacheTTL old.
		st.shop.Name = "Elsewhere"
		*now = now.Add(AuthCacheTTL - time.Millisecond)
		if got := names(); got != "Renamed" {
			t.Fatalf("within the TTL: %q", got)
		}
		*now = now.Add(time.Millisecond)
		if got := names(); got != "Elsewhere" {
			t.Fatalf("after the TTL: %q", got)
		}
	})

	t.Run("UnknownShopNotCached", func(t *testing.T) {
		t.Parallel()
		s, st, _ := setup(t)
		for range 3 {
			_, err := s.Authenticate(context.Background(), "sh_01HYYYYYYYYYYYYYYYYYYYYYYY", secret, netip.Addr{})
			if ErrorCodeOf(err) != CodeInvalidCredentials {
				t.Fatalf("unknown shop: %v", err)
			}
		}
		if n := st.loads.Load(); n != 3 {
			t.Fatalf("%d loads for 3 requests of an unknown shop, want 3", n)
		}
	})

	t.Run("Bounded", func(t *testing.T) {
		t.Parallel()
		c := newAuthCache(time.Minute)
		for i := range authCacheMax + 10 {
			c.put(fmt.Sprint(i), &Shop{}, nil, 0)
		}
		if n := len(c.entries); n > authCacheMax {
			t.Fatalf("%d entries, want at most %d", n, authCacheMax)
		}
	})
}
