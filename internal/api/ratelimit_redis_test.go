package api_test

import (
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/api"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/ratelimit"
)

// secondInstance serves env's service through a merchant API with a Redis
// limiter of its own on the same Redis and prefix: what a second instance
// behind the load balancer holds.
func secondInstance(t *testing.T, env *paydtest.Env, url, prefix string, failuresPerMinute int) string {
	t.Helper()
	lim, err := ratelimit.NewRedis(url, ratelimit.RedisOptions{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lim.Close() })
	srv := httptest.NewServer(api.New(api.Config{Service: env.Service, Limiter: lim, AuthFailuresPerMinute: failuresPerMinute}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// With the limits in Redis a shop gets its allowance once across instances:
// the request rate, the payment creation rate and the failed-authentication
// throttle all count requests wherever they arrive, and the 429 carries the
// Retry-After of the shared count.
func TestRateLimitSharedAcrossInstances(t *testing.T) {
	t.Parallel()
	url, prefix := paydtest.RedisURL(t), paydtest.NewRedisPrefix()
	env := paydtest.Start(t, paydtest.Backend{Name: "sqlite"}, &paydtest.Options{
		RedisURL: url, RedisPrefix: prefix, AuthFailuresPerMinute: 3})
	other := secondInstance(t, env, url, prefix, 3)

	t.Run("request rate", func(t *testing.T) {
		shop := env.NewShop(payd.RegionRU, "")
		env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"requests_per_minute": 6}).Expect(t, 200)
		a, b := env.As(shop, false), env.As(shop, false).At(other)
		start := time.Now()
		for i := range 6 {
			c := a
			if i%2 == 1 {
				c = b
			}
			c.Get("/v1/shop").Expect(t, 200)
		}
		for _, c := range []*paydtest.Client{a, b} {
			r := c.Get("/v1/shop")
			r.ExpectError(t, 429, payd.CodeTooManyRequests, "")
			// 6 a minute: the next token 10 seconds after the first.
			retryAfterOf(t, r, start, 10)
		}
	})

	t.Run("payment creation rate", func(t *testing.T) {
		shop := env.NewShop(payd.RegionRU, "")
		env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"payments_per_minute": 2}).Expect(t, 200)
		a, b := env.As(shop, false), env.As(shop, false).At(other)
		start := time.Now()
		a.Post("/v1/payments", key(), newPayment("100.00", nil)).Expect(t, 201)
		b.Post("/v1/payments", key(), newPayment("100.00", nil)).Expect(t, 201)
		for _, c := range []*paydtest.Client{a, b} {
			r := c.Post("/v1/payments", key(), newPayment("100.00", nil))
			r.ExpectError(t, 429, payd.CodeTooManyRequests, "")
			retryAfterOf(t, r, start, 30)
		}
		// Reads still pass: only creations are used up.
		b.Get("/v1/payments").Expect(t, 200)
	})

	// Last: it throttles the test's own address.
	t.Run("failed authentication", func(t *testing.T) {
		shop := env.NewShop(payd.RegionRU, "")
		a, b := env.As(shop, false), env.As(shop, false).At(other)
		start := time.Now()
		a.WithKey("sk_test_wrong1").Get("/v1/shop").ExpectError(t, 401, payd.CodeInvalidCredentials, "")
		b.WithKey("sk_test_wrong2").Get("/v1/shop").ExpectError(t, 401, payd.CodeInvalidCredentials, "")
		a.WithKey("sk_test_wrong3").Get("/v1/shop").ExpectError(t, 401, payd.CodeInvalidCredentials, "")
		for _, c := range []*paydtest.Client{a, b} {
			r := c.Get("/v1/shop")
			r.ExpectError(t, 429, payd.CodeTooManyRequests, "")
			retryAfterOf(t, r, start, 20)
		}
	})
}

// retryAfterOf checks a 429's Retry-After against a shared allowance whose
// next token comes period seconds after the first request, made at start
// or later: period less the whole seconds since start, up to period. A
// per-instance count would not refuse at all; a wrong rate gives another
// period. (The requests take a second or two on a loaded machine.)
func retryAfterOf(t *testing.T, r *paydtest.Response, start time.Time, period int) {
	t.Helper()
	elapsed := time.Since(start)
	got, err := strconv.Atoi(r.Header.Get("Retry-After"))
	lo := max(1, period-int(math.Ceil(elapsed.Seconds())))
	if err != nil || got < lo || got > period {
		t.Fatalf("Retry-After = %q, want %d..%d (the next token %d s after the first request, made %s ago)",
			r.Header.Get("Retry-After"), lo, period, period, elapsed.Round(time.Millisecond))
	}
}

// When Redis goes away, money operations answer 503 provider_unavailable
// with Retry-After while reads keep working; the outage shows in /metrics,
// and when Redis is back the same Idempotency-Key goes through.
func TestRateLimitRedisOutage(t *testing.T) {
	t.Parallel()
	srv := paydtest.StartRedis(t)
	env := paydtest.Start(t, paydtest.Backend{Name: "sqlite"}, &paydtest.Options{RedisURL: srv.URL(), RedisPrefix: paydtest.NewRedisPrefix()})
	shop := env.NewShop(payd.RegionRU, "")
	c := env.As(shop, false)
	paid := c.Post("/v1/payments", key(), newPayment("100.00", nil)).Expect(t, 201).JSON(t)
	id := paid["id"].(string)

	srv.Stop()
	createKey := key()
	money := []struct{ path, key string }{
		{"/v1/payments", createKey},
		{"/v1/payments/" + id + "/capture", key()},
		{"/v1/payments/" + id + "/cancel", key()},
		{"/v1/test/payments/" + id + "/simulate", key()},
		{"/v1/refunds", key()},
	}
	bodies := map[string]any{
		"/v1/payments":                          newPayment("100.00", nil),
		"/v1/payments/" + id + "/capture":       map[string]any{},
		"/v1/payments/" + id + "/cancel":        map[string]any{},
		"/v1/test/payments/" + id + "/simulate": map[string]any{"outcome": "succeed"},
		"/v1/refunds":                           map[string]any{"payment_id": id, "amount": map[string]any{"value": "1.00", "currency": "RUB"}},
	}
	for _, op := range money {
		r := c.Post(op.path, op.key, bodies[op.path])
		r.ExpectError(t, 503, payd.CodeProviderUnavailable, "")
		if got := r.Header.Get("Retry-After"); got != "2" {
			t.Fatalf("POST %s: Retry-After = %q, want 2", op.path, got)
		}
	}
	for _, path := range []string{"/v1/shop", "/v1/payments", "/v1/payments/" + id, "/v1/balance"} {
		c.Get(path).Expect(t, 200)
	}
	// A change of settings is not money: it goes on.
	c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": "https://hooks.example.com/payd", "events": []string{"payment.succeeded"}}).Expect(t, 201)
	m := string(env.Do("GET", env.Admin.URL, "/metrics", nil, nil).Expect(t, 200).Body)
	for _, want := range []string{"payd_ratelimit_redis_up 0", "payd_ratelimit_redis_outages_total 1"} {
		if !strings.Contains(m, want+"\n") {
			t.Fatalf("/metrics lacks %q during the outage", want)
		}
	}
	// The body of the refused creation was not kept: once Redis is back
	// the same key creates the payment, and a replay gives that answer.
	srv.Start()
	var created *paydtest.Response
	paydtest.Eventually(t, "payment creation after Redis is back", func() bool {
		created = c.Post("/v1/payments", createKey, bodies["/v1/payments"])
		return created.Status == http.StatusCreated
	})
	// A replay answers 200 with the first body (docs/api.md).
	again := c.Post("/v1/payments", createKey, bodies["/v1/payments"]).Expect(t, 200).JSON(t)
	if again["id"] != created.JSON(t)["id"] {
		t.Fatalf("replay after recovery gave %v, first answer %v", again["id"], created.JSON(t)["id"])
	}
	m = string(env.Do("GET", env.Admin.URL, "/metrics", nil, nil).Expect(t, 200).Body)
	for _, want := range []string{"payd_ratelimit_redis_up 1", "payd_ratelimit_redis_outages_total 1"} {
		if !strings.Contains(m, want+"\n") {
			t.Fatalf("/metrics lacks %q after recovery", want)
		}
	}
}
