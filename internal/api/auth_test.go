package api_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

func TestAuthEveryKeyPrefix(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		for _, region := range []payd.Region{payd.RegionRU, payd.RegionKZ} {
			shop := env.NewShop(region, "")
			if !strings.HasPrefix(shop.TestKey, "test_"+string(region)+"_") || !strings.HasPrefix(shop.LiveKey, "live_"+string(region)+"_") {
				t.Fatalf("keys %q %q do not carry mode and region", shop.TestKey, shop.LiveKey)
			}
			got := env.As(shop, false).Get("/v1/shop").Expect(t, 200).JSON(t)
			if got["test"] != true || got["region"] != string(region) {
				t.Fatalf("test key: %v", got)
			}
			// A live key works only after activation (Authentication, rule 2).
			env.As(shop, true).Get("/v1/shop").ExpectError(t, 422, payd.CodeShopNotLive, "")
			env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
			got = env.As(shop, true).Get("/v1/shop").Expect(t, 200).JSON(t)
			if got["test"] != false {
				t.Fatalf("live key: %v", got)
			}
		}
	})
}

func TestAuthInvalidCredentials(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		other := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		wrongRegion := "test_kz_" + strings.TrimPrefix(shop.TestKey, "test_ru_")
		tests := []struct {
			name   string
			header string
		}{
			{"missing", ""},
			{"bearer scheme", "Bearer " + shop.TestKey},
			{"not base64", "Basic !!!"},
			{"no colon", "Basic " + b64(shop.ID+shop.TestKey)},
			{"empty secret", "Basic " + b64(shop.ID+":")},
			{"wrong secret", "Basic " + b64(shop.ID+":test_ru_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")},
			{"another shop's key", "Basic " + b64(shop.ID+":"+other.TestKey)},
			{"unknown shop", "Basic " + b64("sh_00000000000000000000000000:"+shop.TestKey)},
			{"malformed shop id", "Basic " + b64("shop1:"+shop.TestKey)},
			{"no prefix", "Basic " + b64(shop.ID+":"+strings.TrimPrefix(shop.TestKey, "test_ru_"))},
			{"prefix of another region", "Basic " + b64(shop.ID+":"+wrongRegion)},
			{"live prefix on a test secret", "Basic " + b64(shop.ID+":live_ru_"+strings.TrimPrefix(shop.TestKey, "test_ru_"))},
		}
		for _, tt := range tests {
			h := http.Header{}
			if tt.header != "" {
				h.Set("Authorization", tt.header)
			}
			r := env.Do("GET", env.API.URL, "/v1/shop", nil, h)
			r.ExpectError(t, 401, payd.CodeInvalidCredentials, "")
			if r.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("%s: 401 without WWW-Authenticate", tt.name)
			}
		}
		// The right key still works after all that.
		c.Get("/v1/shop").Expect(t, 200)
	})
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestAuthKeyRotationAndRevocation(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		old := env.As(shop, false)
		var k struct{ ID, Secret string }
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/keys", map[string]any{"mode": "test"}).Expect(t, 201).Decode(t, &k)
		fresh := old.WithKey(k.Secret)
		// Authentication, rule 3: the old key works 24 more hours.
		old.Get("/v1/shop").Expect(t, 200)
		fresh.Get("/v1/shop").Expect(t, 200)
		env.Clock.Advance(24*time.Hour - time.Minute)
		old.Get("/v1/shop").Expect(t, 200)
		env.Clock.Advance(2 * time.Minute)
		old.Get("/v1/shop").ExpectError(t, 401, payd.CodeInvalidCredentials, "")
		fresh.Get("/v1/shop").Expect(t, 200)
		// The live key of the same shop is another mode and is not expired
		// by a new test key.
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
		env.As(shop, true).Get("/v1/shop").Expect(t, 200)
		// Revocation is immediate.
		env.AdminDo("POST", "/admin/v1/keys/"+k.ID+"/revoke", nil).Expect(t, 200)
		fresh.Get("/v1/shop").ExpectError(t, 401, payd.CodeInvalidCredentials, "")
		// Listing keys never shows a secret.
		r := env.AdminDo("GET", "/admin/v1/shops/"+shop.ID+"/keys", nil).Expect(t, 200)
		if strings.Contains(string(r.Body), k.Secret) || strings.Contains(string(r.Body), shop.TestKey) {
			t.Fatal("key list shows a secret")
		}
	})
}

func TestAuthForbidden(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionKZ, "")
		c := env.As(shop, false)

		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/block", nil).Expect(t, 200)
		c.Get("/v1/shop").ExpectError(t, 403, payd.CodeForbidden, "")
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/unblock", nil).Expect(t, 200)
		c.Get("/v1/shop").Expect(t, 200)

		// The test client connects from 127.0.0.1.
		env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"ip_allowlist": []string{"203.0.113.0/24"}}).Expect(t, 200)
		c.Get("/v1/shop").ExpectError(t, 403, payd.CodeForbidden, "")
		env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"ip_allowlist": []string{"203.0.113.0/24", "127.0.0.1"}}).Expect(t, 200)
		c.Get("/v1/shop").Expect(t, 200)
		env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"ip_allowlist": []string{"not-an-ip"}}).
			ExpectError(t, 400, payd.CodeInvalidRequest, "ip_allowlist.0")
		// Wrong credentials stay 401 even for a blocked shop: a stranger
		// learns nothing about the shop.
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/block", nil).Expect(t, 200)
		c.WithKey("test_kz_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA").Get("/v1/shop").ExpectError(t, 401, payd.CodeInvalidCredentials, "")
	})
}

// Authentication caches shops and keys for a few seconds, but every
// operator write that changes them takes effect on the very next request:
// each step below first warms the cache with a request that succeeds.
func TestAuthOperatorWritesTakeEffectAtOnce(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		admin := func(method, path string, body any) {
			t.Helper()
			env.AdminDo(method, "/admin/v1/shops/"+shop.ID+path, body).Expect(t, 200)
		}

		c.Get("/v1/shop").Expect(t, 200)
		admin("POST", "/block", nil)
		c.Get("/v1/shop").ExpectError(t, 403, payd.CodeForbidden, "")
		admin("POST", "/unblock", nil)
		c.Get("/v1/shop").Expect(t, 200)

		admin("PATCH", "", map[string]any{"ip_allowlist": []string{"203.0.113.0/24"}})
		c.Get("/v1/shop").ExpectError(t, 403, payd.CodeForbidden, "")
		admin("PATCH", "", map[string]any{"ip_allowlist": nil})
		c.Get("/v1/shop").Expect(t, 200)

		c.Post("/v1/payments", key(), newPayment("100.00", nil)).Expect(t, 201)
		admin("POST", "/suspend", nil)
		c.Post("/v1/payments", key(), newPayment("100.00", nil)).ExpectError(t, 422, payd.CodePaymentsSuspended, "")
		admin("POST", "/resume", nil)
		c.Post("/v1/payments", key(), newPayment("100.00", nil)).Expect(t, 201)

		live := env.As(shop, true)
		live.Get("/v1/shop").ExpectError(t, 422, payd.CodeShopNotLive, "")
		admin("POST", "/activate", nil)
		live.Get("/v1/shop").Expect(t, 200)

		// A new key works at once although the shop's keys were cached
		// without it; a revoked one stops at once.
		var k struct{ ID, Secret string }
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/keys", map[string]any{"mode": "test"}).Expect(t, 201).Decode(t, &k)
		fresh := c.WithKey(k.Secret)
		fresh.Get("/v1/shop").Expect(t, 200)
		env.AdminDo("POST", "/admin/v1/keys/"+k.ID+"/revoke", nil).Expect(t, 200)
		fresh.Get("/v1/shop").ExpectError(t, 401, payd.CodeInvalidCredentials, "")
		c.Get("/v1/shop").Expect(t, 200) // the older key is in its overlap
	})
}
