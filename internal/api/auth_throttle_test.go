package api_test

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// wrongKey is a well-formed test key that no shop has.
const wrongKey = "test_ru_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

// TestAuthThrottleDefault: with the documented default, one address gets
// 60 failed authentications in a burst, then 429. The bucket refills one
// token a second on the service clock, which follows the wall clock, so a
// slow run may see a few more 401s, never fewer.
func TestAuthThrottleDefault(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, &paydtest.Options{TrustProxy: true})
		shop := env.NewShop(payd.RegionRU, "")
		guesser := env.As(shop, false).WithKey(wrongKey)
		start := time.Now()
		failures := 0
		var r *paydtest.Response
		for ; failures < 200; failures++ {
			r = guesser.Do("GET", "/v1/shop", nil, "X-Forwarded-For", "198.51.100.7")
			if r.Status != 401 {
				break
			}
		}
		r.ExpectError(t, 429, payd.CodeTooManyRequests, "")
		if most := 60 + int(time.Since(start).Seconds()) + 1; failures < 60 || failures > most {
			t.Fatalf("429 after %d failures; want 60 (at most %d with refill)", failures, most)
		}
	})
}

// TestAuthThrottle: failed authentication is throttled per source address
// (the last hop of X-Forwarded-For behind a trusted proxy), before any key
// is looked at; other addresses, the shop's own among them, are never
// affected; the 429 is the Error object with Retry-After; /metrics counts
// failures and throttled requests. A small allowance (3 a minute: a token
// every 20 seconds) keeps the wall clock from refilling during the test.
func TestAuthThrottle(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, &paydtest.Options{TrustProxy: true, AuthFailuresPerMinute: 3})
		shop := env.NewShop(payd.RegionRU, "")
		good := env.As(shop, false)
		guesser := good.WithKey(wrongKey)
		from := func(c *paydtest.Client, addr string) *paydtest.Response {
			t.Helper()
			// The first hop is whatever the client claims; only the
			// proxy's own (last) hop counts.
			return c.Do("GET", "/v1/shop", nil, "X-Forwarded-For", "192.0.2.55, "+addr)
		}
		const stranger = "198.51.100.7"

		// The shop's key works from the stranger's address to begin with;
		// a success does not count.
		from(good, stranger).Expect(t, 200)
		// Requests without credentials are not guesses and do not count.
		for i := 0; i < 5; i++ {
			env.Do("GET", env.API.URL, "/v1/shop", nil, map[string][]string{"X-Forwarded-For": {stranger}}).
				ExpectError(t, 401, payd.CodeInvalidCredentials, "")
		}
		for i := 0; i < 3; i++ {
			from(guesser, stranger).ExpectError(t, 401, payd.CodeInvalidCredentials, "")
		}

		// Threshold reached: 429 with Retry-After, as the Error object.
		r := from(guesser, stranger)
		r.ExpectError(t, 429, payd.CodeTooManyRequests, "")
		secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
		if err != nil || secs < 1 || secs > 20 {
			t.Fatalf("Retry-After = %q; want 1..20 seconds", r.Header.Get("Retry-After"))
		}
		// Another first hop does not escape the count.
		guesser.Do("GET", "/v1/shop", nil, "X-Forwarded-For", "8.8.8.8, "+stranger).ExpectError(t, 429, payd.CodeTooManyRequests, "")
		// Before any key lookup: the shop's valid key from that address
		// is refused too, and so is a POST.
		from(good, stranger).ExpectError(t, 429, payd.CodeTooManyRequests, "")
		good.Do("POST", "/v1/payments", newPayment("100.00", nil), "Idempotency-Key", key(), "X-Forwarded-For", stranger).
			ExpectError(t, 429, payd.CodeTooManyRequests, "")

		// Other addresses are unaffected: a wrong key there is still a
		// plain 401, and the shop's key works, also over IPv6 and from the
		// connection's own address.
		from(guesser, "198.51.100.8").ExpectError(t, 401, payd.CodeInvalidCredentials, "")
		from(good, "198.51.100.8").Expect(t, 200)
		from(good, "2001:db8:1::7").Expect(t, 200)
		good.Get("/v1/shop").Expect(t, 200)
		good.Post("/v1/payments", key(), newPayment("100.00", nil)).Expect(t, 201)

		// IPv6 is counted per /64: moving within it does not help.
		for i := 0; i < 3; i++ {
			from(guesser, "2001:db8:9::"+strconv.Itoa(i+1)).ExpectError(t, 401, payd.CodeInvalidCredentials, "")
		}
		from(guesser, "2001:db8:9::ffff").ExpectError(t, 429, payd.CodeTooManyRequests, "")
		from(good, "2001:db8:9:1::1").Expect(t, 200) // the next /64

		// Counted in /metrics: 3+1+3 failures, 4+1 throttled answers.
		m := string(env.Do("GET", env.Admin.URL, "/metrics", nil, nil).Expect(t, 200).Body)
		for name, want := range map[string]int{"payd_auth_failures_total": 7, "payd_auth_throttled_total": 5} {
			if got := metric(t, m, name, "merchant"); got != want {
				t.Errorf("%s{server=merchant} = %d; want %d", name, got, want)
			}
		}

		// Moving the sandbox's clock refills nothing; after the advised
		// wait on the wall clock, the address gets one more try.
		env.Clock.Advance(time.Hour)
		from(good, stranger).ExpectError(t, 429, payd.CodeTooManyRequests, "")
		env.AuthClock.Advance(time.Duration(secs) * time.Second)
		from(good, stranger).Expect(t, 200)
	})
}

// TestAuthThrottleOperator: the operator API throttles wrong operator
// tokens the same way, with counters of its own: a stranger guessing the
// operator token does not slow down merchants from the same address, and
// merchant failures do not lock out the operator.
func TestAuthThrottleOperator(t *testing.T) {
	t.Parallel()
	b := paydtest.Backends(t)[0]
	env := paydtest.Start(t, b, &paydtest.Options{AuthFailuresPerMinute: 3})
	shop := env.NewShop(payd.RegionRU, "")
	good := env.As(shop, false)
	wrong := map[string][]string{"Authorization": {"Bearer adm_wrong_token_0000000000"}}
	for i := 0; i < 3; i++ {
		good.WithKey(wrongKey).Get("/v1/shop").ExpectError(t, 401, payd.CodeInvalidCredentials, "")
	}
	good.Get("/v1/shop").ExpectError(t, 429, payd.CodeTooManyRequests, "")
	env.AdminDo("GET", "/admin/v1/merchants", nil).Expect(t, 200)
	env.AuthClock.Advance(time.Minute)
	good.Get("/v1/shop").Expect(t, 200)

	for i := 0; i < 3; i++ {
		env.Do("GET", env.Admin.URL, "/admin/v1/merchants", nil, wrong).ExpectError(t, 401, payd.CodeInvalidCredentials, "")
	}
	r := env.Do("GET", env.Admin.URL, "/admin/v1/merchants", nil, wrong)
	r.ExpectError(t, 429, payd.CodeTooManyRequests, "")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	env.AdminDo("GET", "/admin/v1/merchants", nil).ExpectError(t, 429, payd.CodeTooManyRequests, "")
	good.Get("/v1/shop").Expect(t, 200)
	m := string(env.Do("GET", env.Admin.URL, "/metrics", nil, nil).Expect(t, 200).Body)
	if got := metric(t, m, "payd_auth_throttled_total", "operator"); got != 2 {
		t.Errorf("payd_auth_throttled_total{server=operator} = %d; want 2", got)
	}
	env.AuthClock.Advance(time.Minute)
	env.AdminDo("GET", "/admin/v1/merchants", nil).Expect(t, 200)
}

// TestAuthThrottleUnknownSourceFailsAllowlist: behind a trusted proxy that
// sends no usable address, a shop with an IP allowlist is refused rather
// than let through.
func TestAuthThrottleUnknownSourceFailsAllowlist(t *testing.T) {
	t.Parallel()
	b := paydtest.Backends(t)[0]
	env := paydtest.Start(t, b, &paydtest.Options{TrustProxy: true})
	shop := env.NewShop(payd.RegionRU, "")
	c := env.As(shop, false)
	env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"ip_allowlist": []string{"198.51.100.0/24"}}).Expect(t, 200)
	c.Do("GET", "/v1/shop", nil, "X-Forwarded-For", "198.51.100.9").Expect(t, 200)
	c.Do("GET", "/v1/shop", nil, "X-Forwarded-For", "203.0.113.9").ExpectError(t, 403, payd.CodeForbidden, "")
	c.Do("GET", "/v1/shop", nil, "X-Forwarded-For", "unknown").ExpectError(t, 403, payd.CodeForbidden, "")
	c.Do("GET", "/v1/shop", nil, "X-Forwarded-For", "198.51.100.9, garbage").ExpectError(t, 403, payd.CodeForbidden, "")
}

// metric reads one counter of a listener from a /metrics page.
func metric(t *testing.T, page, name, server string) int {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + name + `\{server="` + server + `"\} (\d+)$`)
	m := re.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("/metrics has no %s{server=%q}", name, server)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
