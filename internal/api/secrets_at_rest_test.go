package api_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pquerna/otp/totp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestNoSecretInADatabaseDump runs every flow that hands out a secret —
// a webhook endpoint's creation and its secret's rotation (each replayed,
// which must answer the secret again), an embedded payment's confirmation
// token and a hosted page's token (replayed too), dashboard setup links, a
// password, a session, a second factor's enrolment, API keys — then reads
// every column of every row of every table, as a dump would, and finds
// none of those secrets in clear; on SQLite, nor in the database file or
// its WAL.
func TestNoSecretInADatabaseDump(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := context.Background()
		env := paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM5, WebhookAllowHosts: []string{"127.0.0.1"}})
		shop := env.NewShop(payd.RegionRU, "")
		env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"embed_origins": []string{"https://shop.example.com"}}).Expect(t, 200)
		c := env.As(shop, false)
		secrets := map[string]string{"test key": shop.TestKey, "live key": shop.LiveKey, "operator token": env.Token}

		// Answered once, replayed with the same secret: the replay is
		// the contract's ("the original response").
		twice := func(what, method, path, key string, body map[string]any, first int, pick func(map[string]any) string) string {
			t.Helper()
			a := pick(c.Do(method, path, body, "Idempotency-Key", key).Expect(t, first).JSON(t))
			r := pick(c.Do(method, path, body, "Idempotency-Key", key).Expect(t, 200).JSON(t))
			if a == "" || a != r {
				t.Fatalf("%s: first answer %q, replay %q", what, a, r)
			}
			secrets[what] = a
			return a
		}
		str := func(k string) func(map[string]any) string {
			return func(m map[string]any) string { s, _ := m[k].(string); return s }
		}
		conf := func(k string) func(map[string]any) string {
			return func(m map[string]any) string { s, _ := m["confirmation"].(map[string]any)[k].(string); return s }
		}
		hook := c.Post("/v1/webhook-endpoints", "hook-create", map[string]any{"url": "https://127.0.0.1:9/hook", "events": []string{"payment.succeeded"}}).
			Expect(t, 201).JSON(t)["id"].(string)
		twice("webhook secret", "POST", "/v1/webhook-endpoints", "hook-create",
			map[string]any{"url": "https://127.0.0.1:9/hook", "events": []string{"payment.succeeded"}}, 200, str("secret"))
		twice("rotated webhook secret", "PATCH", "/v1/webhook-endpoints/"+hook, "hook-rotate", map[string]any{"rotate_secret": true}, 200, str("secret"))
		twice("confirmation token", "POST", "/v1/payments", "pay-embedded", map[string]any{
			"amount": map[string]any{"value": "15.00", "currency": "RUB"}, "order_id": "embedded-1",
			"confirmation": map[string]any{"type": "embedded"}}, 201, conf("confirmation_token"))
		page := twice("checkout address", "POST", "/v1/payments", "pay-redirect", map[string]any{
			"amount": map[string]any{"value": "16.00", "currency": "RUB"}, "order_id": "redirect-1",
			"confirmation": map[string]any{"type": "redirect", "return_url": "https://shop.example.com/back"}}, 201, conf("confirmation_url"))
		secrets["checkout token"] = page[strings.LastIndex(page, "/")+1:]
		if !strings.HasPrefix(secrets["confirmation token"], payd.EmbedTokenPrefix) || len(secrets["checkout token"]) < 20 {
			t.Fatalf("tokens %q, %q", secrets["confirmation token"], secrets["checkout token"])
		}

		// The dashboard's: setup links, a password, sessions, a second
		// factor.
		u, setup, err := env.Accounts.CreateUser(ctx, nil, shop.MerchantID, "owner@shop.example", payd.RoleAdmin)
		if err != nil {
			t.Fatal(err)
		}
		password := "correct horse battery staple 42"
		if _, err := env.Accounts.SetPassword(ctx, setup, password, "192.0.2.1"); err != nil {
			t.Fatal(err)
		}
		other, _, err := env.Accounts.CreateUser(ctx, nil, shop.MerchantID, "clerk@shop.example", payd.RoleViewer)
		if err != nil {
			t.Fatal(err)
		}
		again, err := env.Accounts.NewSetupToken(ctx, nil, shop.MerchantID, other.ID)
		if err != nil {
			t.Fatal(err)
		}
		session, _, err := env.Accounts.SignIn(ctx, "owner@shop.example", password, "192.0.2.1", "test")
		if err != nil {
			t.Fatal(err)
		}
		actor := &payd.Actor{UserID: u.ID, Email: u.Email, Addr: "192.0.2.1"}
		totpSecret, _, err := env.Accounts.BeginTOTP(ctx, actor, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		code, err := totp.GenerateCode(totpSecret, env.Clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		enrolled, _, err := env.Accounts.ConfirmTOTP(ctx, actor, session, code)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range map[string]string{"setup link": setup, "second setup link": again, "password": password,
			"session": session, "session after enrolment": enrolled, "TOTP secret": totpSecret} {
			secrets[k] = v
		}

		dump := paydtest.DumpTables(t, env.InspectDB(), env.Instance.Store.Dialect())
		files := map[string][]byte{"a table": dump}
		if b.Name == "sqlite" {
			for _, f := range []string{"payd.db", "payd.db-wal"} {
				raw, err := os.ReadFile(filepath.Join(env.DataDir, f))
				if err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				files[f] = raw
			}
		}
		for where, raw := range files {
			for what, s := range secrets {
				if bytes.Contains(raw, []byte(s)) {
					t.Errorf("%s holds the %s in clear", where, what)
				}
			}
		}
		// The dump did read the rows that hold them, sealed.
		if !bytes.Contains(dump, []byte(hook)) || !bytes.Contains(dump, []byte("sealed:")) {
			t.Fatalf("the dump lacks the endpoint %s or any sealed value", hook)
		}
	})
}
