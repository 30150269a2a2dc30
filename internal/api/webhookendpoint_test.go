package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

func TestWebhookEndpointLifecycle(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)

		created := c.Post("/v1/webhook-endpoints", "whe-create-1", map[string]any{
			"url": "https://Example.COM:443/hooks?x=1", "events": []string{"payment.succeeded", "refund.succeeded"},
		}).Expect(t, 201).JSON(t)
		id := created["id"].(string)
		secret, _ := created["secret"].(string)
		if !payd.ValidID(payd.PrefixWebhookEndpoint, id) || created["status"] != "active" || len(secret) < 32 {
			t.Fatalf("created = %v", created)
		}
		if created["url"] != "https://example.com/hooks?x=1" {
			t.Fatalf("url stored as %v, want the canonical form", created["url"])
		}
		// The secret is shown once.
		got := c.Get("/v1/webhook-endpoints/"+id).Expect(t, 200).JSON(t)
		if _, ok := got["secret"]; ok {
			t.Fatal("GET shows the secret")
		}
		list := c.Get("/v1/webhook-endpoints").Expect(t, 200).JSON(t)
		if strings.Contains(string(c.Get("/v1/webhook-endpoints").Body), secret) || len(list["items"].([]any)) != 1 {
			t.Fatalf("list = %v", list)
		}

		// PATCH: status rules of the endpoint state table.
		patch := func(key string, body map[string]any) *paydtest.Response {
			return c.Do("PATCH", "/v1/webhook-endpoints/"+id, body, "Idempotency-Key", key)
		}
		patch("whe-patch-01", map[string]any{"status": "failing"}).ExpectError(t, 400, payd.CodeInvalidRequest, "status")
		patch("whe-patch-02", map[string]any{"status": "paused"}).ExpectError(t, 400, payd.CodeInvalidRequest, "status")
		if r := patch("whe-patch-03", map[string]any{"status": "disabled"}).Expect(t, 200).JSON(t); r["status"] != "disabled" {
			t.Fatalf("after disable: %v", r)
		}
		if r := patch("whe-patch-04", map[string]any{"status": "active", "events": []string{"payment.canceled"}}).Expect(t, 200).JSON(t); r["status"] != "active" || len(r["events"].([]any)) != 1 {
			t.Fatalf("after revive: %v", r)
		}
		patch("whe-patch-05", map[string]any{"events": []string{}}).ExpectError(t, 400, payd.CodeInvalidRequest, "events")
		patch("whe-patch-06", map[string]any{"url": "https://127.0.0.1/x"}).ExpectError(t, 400, payd.CodeInvalidRequest, "url")
		// Rotation returns the new secret once.
		rot := patch("whe-patch-07", map[string]any{"rotate_secret": true}).Expect(t, 200).JSON(t)
		if s, _ := rot["secret"].(string); s == "" || s == secret {
			t.Fatalf("rotation answer = %v", rot)
		}
		if r := patch("whe-patch-08", map[string]any{"description": "d"}).Expect(t, 200).JSON(t); r["secret"] != nil {
			t.Fatal("a PATCH without rotation shows the secret")
		}
		ep, err := env.Service.GetWebhookEndpoint(t.Context(), &payd.Principal{Shop: &payd.Shop{ID: shop.ID}, Mode: payd.ModeTest}, id)
		if err != nil || ep.PrevSecret != secret || ep.PrevSecretUntil == nil ||
			ep.PrevSecretUntil.Sub(env.Clock.Now()) > 24*time.Hour || ep.PrevSecretUntil.Sub(env.Clock.Now()) < 23*time.Hour {
			t.Fatalf("rotated endpoint = %+v, %v", ep, err)
		}

		// Scope: another shop and the live key see nothing.
		other := env.NewShop(payd.RegionRU, "")
		env.As(other, false).Get("/v1/webhook-endpoints/"+id).ExpectError(t, 404, payd.CodeNotFound, "")
		env.As(other, false).Do("DELETE", "/v1/webhook-endpoints/"+id, nil).ExpectError(t, 404, payd.CodeNotFound, "")
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
		live := env.As(shop, true)
		live.Get("/v1/webhook-endpoints/"+id).ExpectError(t, 404, payd.CodeNotFound, "")
		if n := len(live.Get("/v1/webhook-endpoints").Expect(t, 200).JSON(t)["items"].([]any)); n != 0 {
			t.Fatalf("live key lists %d test endpoints", n)
		}
		// Live endpoints also must be public; test keys get no loosening
		// for webhooks either, since deliveries leave the service.
		live.Post("/v1/webhook-endpoints", "whe-live-1", map[string]any{"url": "https://localhost/h", "events": []string{"payment.succeeded"}}).
			ExpectError(t, 400, payd.CodeInvalidRequest, "url")
		c.Post("/v1/webhook-endpoints", "whe-test-2", map[string]any{"url": "https://localhost/h", "events": []string{"payment.succeeded"}}).
			ExpectError(t, 400, payd.CodeInvalidRequest, "url")

		// DELETE answers 204 and the endpoint is gone.
		r := c.Do("DELETE", "/v1/webhook-endpoints/"+id, nil)
		r.Expect(t, 204)
		if len(r.Body) != 0 {
			t.Fatalf("204 with a body: %s", r.Body)
		}
		c.Get("/v1/webhook-endpoints/"+id).ExpectError(t, 404, payd.CodeNotFound, "")
		c.Do("DELETE", "/v1/webhook-endpoints/"+id, nil).ExpectError(t, 404, payd.CodeNotFound, "")
		patch("whe-patch-09", map[string]any{"status": "active"}).ExpectError(t, 404, payd.CodeNotFound, "")
	})
}

func TestWebhookEndpointAllowHost(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, &paydtest.Options{WebhookAllowHosts: []string{"localhost"}})
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		c.Post("/v1/webhook-endpoints", "allow-key-1", map[string]any{"url": "https://localhost:8443/h", "events": []string{"payment.succeeded"}}).Expect(t, 201)
		// Only the exact host is loosened.
		c.Post("/v1/webhook-endpoints", "allow-key-2", map[string]any{"url": "https://127.0.0.1/h", "events": []string{"payment.succeeded"}}).
			ExpectError(t, 400, payd.CodeInvalidRequest, "url")
		c.Post("/v1/webhook-endpoints", "allow-key-3", map[string]any{"url": "http://localhost/h", "events": []string{"payment.succeeded"}}).
			ExpectError(t, 400, payd.CodeInvalidRequest, "url")
	})
}

// TestWebhookURLSyntaxAndPlatformRules: an empty port, an IP address in a
// non-canonical notation (public ones included) and a link-local or cloud
// platform address or name are refused as a webhook url in both contours,
// at creation and on PATCH, even for hosts the operator allowed
// (docs/security.md).
func TestWebhookURLSyntaxAndPlatformRules(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, &paydtest.Options{WebhookAllowHosts: []string{"169.254.169.254", "metadata.google.internal"}})
		shop := env.NewShop(payd.RegionRU, "")
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
		refuse := []string{
			"https://hooks.example.com:/payd", "https://hooks.example.com:", "https://8.8.8.8:/h", "https://[2606:4700:4700::1111]:/h",
			"https://1572395042/h", "https://0x5db8d822/h", "https://013556154042/h", "https://0135.0270.0330.042/h",
			"https://93.184.55330/h", "https://93.12114978/h", "https://010.8.8.8/h", "https://8.8.8.8./h",
			"https://[::ffff:8.8.8.8]/h", "https://[::ffff:5db8:d822]/h", "https://[2606:4700:4700:0:0:0:0:1111]/h",
			"https://169.254.169.254/latest/meta-data/", "https://168.63.129.16/machine", "https://100.100.100.200/h",
			"https://192.0.0.192/h", "https://169.254.170.2/h", "https://[fd00:ec2::254]/h", "https://[fd20:ce::254]/h",
			"https://[fe80::a9fe:a9fe]/h", "https://[64:ff9b::a9fe:a9fe]/h", "https://[64:ff9b::a83f:8110]/h",
			"https://[2002:a9fe:a9fe::1]/h", "https://[2002:a83f:8110::1]/h", "https://metadata.google.internal/computeMetadata/v1/",
			"https://metadata/h", "https://metadata.goog/h", "https://instance-data/h",
		}
		accept := []string{"https://hooks.example.com:8443/payd", "https://93.184.216.34/h", "https://[2606:4700:4700::1111]/h", "https://168.63.129.17/h"}
		events := []string{"payment.succeeded"}
		for _, mode := range []struct {
			name string
			c    *paydtest.Client
		}{{"test", env.As(shop, false)}, {"live", env.As(shop, true)}} {
			for _, u := range accept {
				mode.c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": u, "events": events}).Expect(t, 201)
			}
			ep := mode.c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": "https://hooks.example.com/x", "events": events}).Expect(t, 201).JSON(t)
			for _, u := range refuse {
				r := mode.c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": u, "events": events})
				if r.Status != 400 || r.ErrorCode() != string(payd.CodeInvalidRequest) || r.JSON(t)["parameter"] != "url" {
					t.Errorf("%s key, POST %q: %d %s; want 400 url", mode.name, u, r.Status, r.Body)
				}
				r = mode.c.Do("PATCH", "/v1/webhook-endpoints/"+ep["id"].(string), map[string]any{"url": u}, "Idempotency-Key", key())
				if r.Status != 400 || r.ErrorCode() != string(payd.CodeInvalidRequest) || r.JSON(t)["parameter"] != "url" {
					t.Errorf("%s key, PATCH %q: %d %s; want 400 url", mode.name, u, r.Status, r.Body)
				}
			}
		}
	})
}
