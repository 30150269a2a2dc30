package serve_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/seal"
	"github.com/paydhq/payd/internal/serve"
	"github.com/paydhq/payd/money"
)

// TestSecretsKeyRotation rotates the key-encryption key of a running
// database as docs/security.md tells an operator to: a start with the new
// key first and the old one after it, whose periodic job reseals every
// secret in batches while the service serves; then a start with the new
// key alone, which reads every secret — the service's own keys, a webhook
// signing secret, an idempotent answer — as before. Without the new key,
// the service does not start.
func TestSecretsKeyRotation(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := context.Background()
		url, dir := b.DatabaseURL(t), t.TempDir()
		oldKey, newKey := genKey(t, "2025"), genKey(t, "2026")
		start := func(keys ...string) (*serve.Instance, error) {
			k, err := seal.Parse(strings.Join(keys, "\n"))
			if err != nil {
				t.Fatal(err)
			}
			return serve.New(ctx, serve.Config{DatabaseURL: url, DataDir: dir, SecretsKeys: k, JobPollInterval: 50 * time.Millisecond})
		}
		in, err := start(oldKey)
		if err != nil {
			t.Fatal(err)
		}
		m, err := in.Service.CreateMerchant(ctx, payd.MerchantCreate{Name: "M"})
		if err != nil {
			t.Fatal(err)
		}
		shop, err := in.Service.CreateShop(ctx, payd.ShopCreate{MerchantID: m.ID, Region: payd.RegionRU, Name: "S", DefaultCurrency: money.RUB})
		if err != nil {
			t.Fatal(err)
		}
		p := &payd.Principal{Shop: shop, Mode: payd.ModeTest}
		body := []byte(`{"url":"https://hooks.example.com/h","events":["payment.succeeded"]}`)
		idem := payd.Idempotency{Key: "create-hook", Hash: payd.RequestHash("POST", "/v1/webhook-endpoints", body)}
		create := func(in *serve.Instance) (id, secret string) {
			t.Helper()
			resp, err := in.Service.CreateWebhookEndpoint(ctx, p, idem, payd.WebhookEndpointCreate{URL: "https://hooks.example.com/h",
				Events: []payd.EventType{payd.EventPaymentSucceeded}})
			if err != nil {
				t.Fatal(err)
			}
			var e struct{ ID, Secret string }
			if err := json.Unmarshal(resp.Body, &e); err != nil {
				t.Fatal(err)
			}
			return e.ID, e.Secret
		}
		id, secret := create(in)
		in.Close(ctx)
		underOld := func(in *serve.Instance) int {
			t.Helper()
			n := 0
			for _, q := range []string{`SELECT secret FROM webhook_endpoints`, `SELECT CAST(value AS TEXT) FROM service_secrets`} {
				if b.Name == "postgres" {
					q = strings.Replace(q, "CAST(value AS TEXT)", "convert_from(value, 'UTF8')", 1)
				}
				rows, err := in.Store.DB().QueryContext(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
					var v string
					if err := rows.Scan(&v); err != nil {
						t.Fatal(err)
					}
					if k, _ := seal.KeyID(v); k != "2026" {
						n++
					}
				}
				rows.Close()
			}
			return n
		}

		// The new key first, the old still known: the job reseals.
		in, err = start(newKey, oldKey)
		if err != nil {
			t.Fatal(err)
		}
		if n := underOld(in); n < 4 {
			t.Fatalf("%d values under the old key before the job, want the endpoint's and the service's keys", n)
		}
		if err := in.Start(ctx); err != nil {
			t.Fatal(err)
		}
		paydtest.Eventually(t, "the reseal job", func() bool { return underOld(in) == 0 })
		in.Close(ctx)

		// Without the new key nothing opens: the service does not start.
		if in, err := start(oldKey); err == nil {
			in.Close(ctx)
			t.Fatal("the service started without the key its secrets are sealed under")
		} else if !strings.Contains(err.Error(), `"2026"`) {
			t.Errorf("start without the new key: %v, want an error naming it", err)
		}

		// The old key removed: everything reads as before, the answer
		// replayed too.
		in, err = start(newKey)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close(ctx)
		e, err := in.Service.GetWebhookEndpoint(ctx, p, id)
		if err != nil || e.Secret != secret {
			t.Fatalf("endpoint after the rotation: %v, secret kept %v", err, e != nil && e.Secret == secret)
		}
		if rid, rsecret := create(in); rid != id || rsecret != secret {
			t.Fatalf("the replay after the rotation answers %s, %v", rid, rsecret == secret)
		}
	})
}

func genKey(t *testing.T, id string) string {
	t.Helper()
	k, err := seal.Generate(id)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
