package sqlstore_test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/seal"
	"github.com/paydhq/payd/internal/sqlstore"
)

// TestMigration0029SealsSecretsInClear fills the schema of migration 0028
// with secrets in clear, as earlier versions stored them, then migrates.
// Without a key the migration refuses, changing nothing, rather than seal
// under a key that dies with the process; with one, every secret is
// sealed, reads back as it was, and no column holds it in clear — nor, on
// SQLite, the database file or its WAL.
func TestMigration0029SealsSecretsInClear(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := t.Context()
		url, dir := b.DatabaseURL(t), t.TempDir()
		old, err := sqlstore.Open(ctx, url, dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := old.MigrateTo(ctx, 28); err != nil {
			t.Fatalf("migrate to 0028: %v", err)
		}
		r := make([]byte, 8)
		rand.Read(r)
		tag := hex.EncodeToString(r)
		secret, prev := "whsec_now"+tag, "whsec_before"+tag
		totp, pending := "JBSWY3DPEHPK3PXP"+strings.ToUpper(tag), "KRSXG5CTMVRXEZLU"+strings.ToUpper(tag)
		body := `{"id":"whe_1","secret":"whsec_replayed` + tag + `"}`
		service := "formkey" + tag
		now := time.Now().UnixMicro()
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO merchants (id, name, created_at) VALUES ('mer_1', 'M', $1)`, []any{now}},
			{`INSERT INTO shops (id, merchant_id, region, name, default_currency, created_at) VALUES ('sh_1', 'mer_1', 'ru', 'S', 'RUB', $1)`, []any{now}},
			{`INSERT INTO webhook_endpoints (id, shop_id, test, url, events, status, secret, prev_secret, prev_secret_until, created_at)
				VALUES ('whe_1', 'sh_1', TRUE, 'https://example.com/h', '["payment.succeeded"]', 'active', $1, $2, $3, $3)`, []any{secret, prev, now}},
			{`INSERT INTO webhook_endpoints (id, shop_id, test, url, events, status, secret, created_at)
				VALUES ('whe_2', 'sh_1', TRUE, 'https://example.com/h', '["payment.succeeded"]', 'active', $1, $2)`, []any{"whsec_second" + tag, now}},
			{`INSERT INTO dashboard_users (id, merchant_id, email, role, created_at, totp_secret, totp_pending) VALUES ('usr_1', 'mer_1', 'a@example.com', 'admin', $1, $2, $3)`,
				[]any{now, totp, pending}},
			{`INSERT INTO dashboard_users (id, merchant_id, email, role, created_at) VALUES ('usr_2', 'mer_1', 'b@example.com', 'admin', $1)`, []any{now}},
			{`INSERT INTO idempotency_keys (shop_id, mode, idem_key, request_hash, status, body, created_at, expires_at) VALUES ('sh_1', 'test', 'k1', $1, 201, $2, $3, $4)`,
				[]any{[]byte{1}, []byte(body), now, now + time.Hour.Microseconds()}},
			{`INSERT INTO idempotency_keys (shop_id, mode, idem_key, request_hash, status, body, created_at, expires_at) VALUES ('sh_1', 'test', 'k2', $1, 204, NULL, $2, $3)`,
				[]any{[]byte{1}, now, now + time.Hour.Microseconds()}},
			{`INSERT INTO service_secrets (name, value) VALUES ('forms', $1)`, []any{[]byte(service)}},
		} {
			if _, err := old.DB().ExecContext(ctx, q.sql, q.args...); err != nil {
				t.Fatalf("%s: %v", q.sql, err)
			}
		}
		// The old version stops: on SQLite its WAL goes into the file.
		old.Close()
		clear := []string{secret, prev, "whsec_second" + tag, totp, pending, "whsec_replayed" + tag, service}

		// Without a key: refused, nothing sealed, nothing applied.
		keyless, err := sqlstore.Open(ctx, url, dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = keyless.Migrate(ctx)
		if err == nil || !strings.Contains(err.Error(), "0029") || !strings.Contains(err.Error(), "7 secrets stored in clear") ||
			!strings.Contains(err.Error(), "--secrets-key-file") {
			t.Fatalf("migrate without a key: %v", err)
		}
		var got string
		if err := keyless.DB().QueryRowContext(ctx, `SELECT secret FROM webhook_endpoints WHERE id = 'whe_1'`).Scan(&got); err != nil || got != secret {
			t.Fatalf("the refused migration changed the secret: %q, %v", got, err)
		}
		keyless.Close()

		line, err := seal.Generate("k1")
		if err != nil {
			t.Fatal(err)
		}
		keys, err := seal.Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		s, err := sqlstore.OpenWith(ctx, url, dir, sqlstore.Options{Keyring: keys})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if _, err := s.Migrate(ctx); err != nil {
			t.Fatalf("migrate with a key: %v", err)
		}

		// As a dump reads it: every table, every column.
		dump := paydtest.DumpTables(t, s.DB(), s.Dialect())
		for _, c := range clear {
			if bytes.Contains(dump, []byte(c)) {
				t.Errorf("a table holds %q in clear after migration 0029", c)
			}
		}
		if b.Name == "sqlite" {
			for _, f := range []string{"payd.db", "payd.db-wal"} {
				raw, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				for _, c := range clear {
					if bytes.Contains(raw, []byte(c)) {
						t.Errorf("%s holds %q in clear after migration 0029", f, c)
					}
				}
			}
		}

		// And the service reads them as they were.
		err = s.Tx(ctx, func(tx payd.Tx) error {
			e, err := tx.WebhookEndpointGet(ctx, "sh_1", true, "whe_1")
			if err != nil {
				return err
			}
			if e.Secret != secret || e.PrevSecret != prev {
				t.Errorf("endpoint secrets %q, %q after the migration", e.Secret, e.PrevSecret)
			}
			c, err := tx.UserCredentialsGet(ctx, "usr_1")
			if err != nil {
				return err
			}
			if c.TOTPSecret != totp || c.TOTPPending != pending {
				t.Errorf("TOTP secrets %q, %q after the migration", c.TOTPSecret, c.TOTPPending)
			}
			if c, err = tx.UserCredentialsGet(ctx, "usr_2"); err != nil || c.TOTPSecret != "" {
				t.Errorf("a user without a second factor: %q, %v", c.TOTPSecret, err)
			}
			rec, err := tx.IdempotencyGet(ctx, "sh_1", payd.ModeTest, "k1")
			if err != nil {
				return err
			}
			if string(rec.Body) != body {
				t.Errorf("replayed body %q after the migration", rec.Body)
			}
			if rec, err = tx.IdempotencyGet(ctx, "sh_1", payd.ModeTest, "k2"); err != nil || rec.Body != nil {
				t.Errorf("an answer without a body: %q, %v", rec.Body, err)
			}
			v, err := tx.SecretGetOrCreate(ctx, "forms", []byte("new"))
			if err != nil {
				return err
			}
			if string(v) != service {
				t.Errorf("service secret %q after the migration", v)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
