package dashboard_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// The rotation form of a signing secret, submitted twice (a double click,
// a reload of the answer): the secret is rotated once and shown once; the
// second submit says it was already rotated and shows no secret, neither
// the new one nor another. The audit log names the rotation as such, once,
// and not as an edit of the endpoint.
func TestWebhookSecretRotationResubmitted(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, &paydtest.Options{WebhookAllowHosts: []string{"127.0.0.1"}})
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		created := c.Post("/v1/webhook-endpoints", "create-hook-1", map[string]any{"url": "https://127.0.0.1:9/hook", "events": []string{"payment.succeeded"}}).
			Expect(t, 201).JSON(t)
		id, first := created["id"].(string), created["secret"].(string)
		dev := newVisitor(t, env)
		dev.signIn(newUser(t, env, shop.MerchantID, payd.RoleDeveloper))

		rf := formOf(t, dev.get("/dashboard/test/developers/webhooks/"+id).body, "rotate-form")
		rot := dev.post("/dashboard/test/developers/webhooks/"+id+"/rotate", rf)
		m := shownSecret.FindStringSubmatch(rot.body)
		if rot.status != http.StatusOK || m == nil || m[1] == first || !strings.HasPrefix(m[1], "whsec_") {
			t.Fatalf("rotation = %d\n%s", rot.status, rot.body)
		}
		rotated := m[1]

		again := dev.post("/dashboard/test/developers/webhooks/"+id+"/rotate", rf)
		if again.status != http.StatusSeeOther || !strings.Contains(again.location, "done=webhook_already_rotated") {
			t.Fatalf("second submit of the rotation = %d, Location %q\n%s", again.status, again.location, again.body)
		}
		if shownSecret.MatchString(again.body) || strings.Contains(again.body, rotated) {
			t.Fatalf("the second submit shows a secret:\n%s", again.body)
		}
		shown := dev.get(strings.TrimPrefix(again.location, env.API.URL))
		if shown.status != http.StatusOK || !strings.Contains(shown.body, "already rotated the signing secret") ||
			strings.Contains(shown.body, rotated) || shownSecret.MatchString(shown.body) {
			t.Fatalf("the page after the second submit = %d\n%s", shown.status, shown.body)
		}

		// Rotated once: a third rotation's previous secret is the one the
		// first shown, not one the second submit would have made.
		third := c.Do("PATCH", "/v1/webhook-endpoints/"+id, map[string]any{"rotate_secret": true}, "Idempotency-Key", "rotate-hook-3").
			Expect(t, 200).JSON(t)
		if third["secret"] == rotated || third["secret"] == first {
			t.Fatalf("third rotation's secret %v", third["secret"])
		}
		sh, err := env.Service.GetShop(context.Background(), shop.ID)
		if err != nil {
			t.Fatal(err)
		}
		e, err := env.Service.GetWebhookEndpoint(context.Background(), &payd.Principal{Shop: sh, Mode: payd.ModeTest}, id)
		if err != nil {
			t.Fatal(err)
		}
		if e.PrevSecret != rotated {
			t.Fatalf("the secret before the API's rotation was not the one the page showed")
		}

		// One entry of its own for the dashboard's rotation.
		page, err := env.Service.ListAudit(context.Background(), shop.MerchantID, payd.AuditListParams{ListParams: payd.ListParams{Limit: 100}})
		if err != nil {
			t.Fatal(err)
		}
		var rotations int
		for _, a := range page.Items {
			switch a.Action {
			case payd.AuditRotateWebhookSecret:
				rotations++
				if a.ObjectID != id {
					t.Errorf("rotation entry names %q, want %s", a.ObjectID, id)
				}
			case "update webhook endpoint":
				t.Errorf("the rotation is logged as an edit: %+v", a)
			}
		}
		if rotations != 1 {
			t.Fatalf("%d rotation entries, want 1: %+v", rotations, page.Items)
		}
	})
}
