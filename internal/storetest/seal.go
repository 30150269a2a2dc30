package storetest

import (
	"bytes"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/seal"
)

// RunSealing runs the cases of the secrets a store keeps sealed (webhook
// signing secrets, TOTP secrets, idempotent answers, service secrets),
// which open one database with several keyrings in turn. open(t) makes the
// test's database and returns a function that opens a store of it sealing
// under keys; the store must offer its connections as DB() for the cases
// to read the columns as a dump would.
func RunSealing(t *testing.T, open func(t *testing.T) func(keys *seal.Keyring) payd.Store) {
	t.Helper()
	t.Run("AtRest", func(t *testing.T) {
		t.Parallel()
		testSealedAtRest(t, open(t))
	})
	t.Run("BoundToRow", func(t *testing.T) {
		t.Parallel()
		testSealedBoundToRow(t, open(t))
	})
	t.Run("Reseal", func(t *testing.T) {
		t.Parallel()
		testReseal(t, open(t))
	})
}

func keyring(t *testing.T, ids ...string) *seal.Keyring {
	t.Helper()
	var lines []string
	for _, id := range ids {
		line, err := seal.Generate(id)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	k, err := seal.Parse(strings.Join(lines, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// also is a keyring of the keys of a and b, a's first.
func also(t *testing.T, a, b string) *seal.Keyring {
	t.Helper()
	k, err := seal.Parse(a + "\n" + b)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func rawDB(t *testing.T, s payd.Store) *sql.DB {
	t.Helper()
	d, ok := s.(interface{ DB() *sql.DB })
	if !ok {
		t.Fatalf("%T does not offer its connections (DB)", s)
	}
	return d.DB()
}

// sealedSecrets are the secrets of one row of each sealed column.
type sealedSecrets struct {
	endpoint   *payd.WebhookEndpoint
	userID     string
	totp, pend string
	shopID     string
	idemKey    string
	body       []byte
	service    []byte
}

// writeSecrets stores one secret of each kind through s, n rows of the
// endpoints and idempotency records so that a walk takes several batches.
func writeSecrets(t *testing.T, s payd.Store, n int) []sealedSecrets {
	t.Helper()
	ctx := t.Context()
	now := ts(time.Now())
	m := addMerchant(t, s, now)
	sh := addShop(t, s, m.ID, now)
	var out []sealedSecrets
	for i := range n {
		u := addUser(t, s, m.ID, newID("x", now)+"@example.com", payd.RoleAdmin, now)
		x := sealedSecrets{
			endpoint: &payd.WebhookEndpoint{ID: newID(payd.PrefixWebhookEndpoint, now), ShopID: sh.ID, Test: true,
				URL: "https://example.com/hooks", Events: []payd.EventType{payd.EventPaymentSucceeded}, Status: payd.WebhookActive,
				Secret: "whsec_now" + newID("", now), PrevSecret: "whsec_before" + newID("", now), PrevSecretUntil: ptr(now.Add(time.Hour)), CreatedAt: now},
			userID: u.ID, totp: "JBSWY3DPEHPK3PXP" + strings.ToUpper(newID("", now)), pend: "KRSXG5CTMVRXEZLU" + strings.ToUpper(newID("", now)),
			shopID: sh.ID, idemKey: "key-" + newID("", now), body: []byte(`{"id":"whe_1","secret":"whsec_body` + newID("", now) + `"}`),
		}
		if i == 0 {
			x.body = []byte{} // an answer without a body is kept too
		}
		mustTx(t, s, func(tx payd.Tx) error {
			if err := tx.WebhookEndpointInsert(ctx, x.endpoint); err != nil {
				return err
			}
			c, err := tx.UserCredentialsGet(ctx, u.ID)
			if err != nil {
				return err
			}
			c.TOTPSecret, c.TOTPPending = x.totp, x.pend
			if err := tx.UserCredentialsUpdate(ctx, c); err != nil {
				return err
			}
			if err := tx.IdempotencyPut(ctx, &payd.IdempotencyRecord{ShopID: sh.ID, Mode: payd.ModeTest, Key: x.idemKey,
				RequestHash: []byte{1}, Outcome: payd.OutcomeCreated, Body: x.body, CreatedAt: now, ExpiresAt: now.Add(payd.IdempotencyTTL)}); err != nil {
				return err
			}
			x.service, err = tx.SecretGetOrCreate(ctx, "sealing_"+x.idemKey, []byte("service secret "+x.idemKey))
			return err
		})
		out = append(out, x)
	}
	return out
}

// readSecrets reads back through s what writeSecrets stored and fails
// unless every value is what was written.
func readSecrets(t *testing.T, s payd.Store, want []sealedSecrets) {
	t.Helper()
	ctx := t.Context()
	for _, x := range want {
		mustView(t, s, func(tx payd.Tx) error {
			e, err := tx.WebhookEndpointGet(ctx, x.endpoint.ShopID, true, x.endpoint.ID)
			if err != nil {
				return err
			}
			wantDiff(t, "WebhookEndpointGet of a sealed secret", x.endpoint, e)
			c, err := tx.UserCredentialsGet(ctx, x.userID)
			if err != nil {
				return err
			}
			wantDiff(t, "UserCredentialsGet of a sealed TOTP secret", []string{x.totp, x.pend}, []string{c.TOTPSecret, c.TOTPPending})
			r, err := tx.IdempotencyGet(ctx, x.shopID, payd.ModeTest, x.idemKey)
			if err != nil {
				return err
			}
			wantDiff(t, "IdempotencyGet of a sealed body", x.body, r.Body)
			return nil
		})
		mustTx(t, s, func(tx payd.Tx) error {
			v, err := tx.SecretGetOrCreate(ctx, "sealing_"+x.idemKey, []byte("another"))
			wantDiff(t, "SecretGetOrCreate of a sealed secret", x.service, v)
			return err
		})
	}
}

// rawSealed reads every sealed column of the rows of want as a dump
// would, and returns the ids of the keys that sealed them; it fails when
// a value holds a secret in clear or is not sealed.
func rawSealed(t *testing.T, s payd.Store, want []sealedSecrets) map[string]int {
	t.Helper()
	db := rawDB(t, s)
	keys := map[string]int{}
	check := func(what string, v []byte, secrets ...string) {
		t.Helper()
		id, ok := seal.KeyID(string(v))
		if !ok {
			t.Errorf("%s is not sealed: %q", what, v)
			return
		}
		keys[id]++
		for _, sec := range secrets {
			if sec != "" && bytes.Contains(v, []byte(sec)) {
				t.Errorf("%s holds its secret in clear: %q", what, v)
			}
		}
	}
	for _, x := range want {
		var secret, prev, totp, pend, body, service []byte
		row := func(q string, args []any, dst ...any) {
			t.Helper()
			if err := db.QueryRowContext(t.Context(), q, args...).Scan(dst...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		row(`SELECT secret, prev_secret FROM webhook_endpoints WHERE id = $1 AND merchant_key = $2`, []any{x.endpoint.ID, rowKey(x.endpoint.ID)}, &secret, &prev)
		row(`SELECT totp_secret, totp_pending FROM dashboard_users WHERE id = $1`, []any{x.userID}, &totp, &pend)
		row(`SELECT body FROM idempotency_keys WHERE shop_id = $1 AND idem_key = $2 AND merchant_key = $3`,
			[]any{x.shopID, x.idemKey, rowKey(x.shopID)}, &body)
		row(`SELECT value FROM service_secrets WHERE name = $1`, []any{"sealing_" + x.idemKey}, &service)
		check("webhook_endpoints.secret", secret, x.endpoint.Secret)
		check("webhook_endpoints.prev_secret", prev, x.endpoint.PrevSecret)
		check("dashboard_users.totp_secret", totp, x.totp)
		check("dashboard_users.totp_pending", pend, x.pend)
		check("idempotency_keys.body", body, string(x.body))
		check("service_secrets.value", service, string(x.service))
	}
	return keys
}

func testSealedAtRest(t *testing.T, open func(*seal.Keyring) payd.Store) {
	s := open(keyring(t, "k1"))
	x := writeSecrets(t, s, 2)
	readSecrets(t, s, x)
	wantDiff(t, "keys of the sealed values", map[string]int{"k1": 12}, rawSealed(t, s, x))

	// No secret stays no secret: an empty column says so (a user without
	// a second factor), and an empty one is not sealed.
	ctx := t.Context()
	mustTx(t, s, func(tx payd.Tx) error {
		c, err := tx.UserCredentialsGet(ctx, x[0].userID)
		if err != nil {
			return err
		}
		c.TOTPSecret, c.TOTPPending = "", ""
		return tx.UserCredentialsUpdate(ctx, c)
	})
	var totp string
	if err := rawDB(t, s).QueryRowContext(ctx, `SELECT totp_secret FROM dashboard_users WHERE id = $1`, x[0].userID).Scan(&totp); err != nil || totp != "" {
		t.Errorf("totp_secret turned off: %q, %v", totp, err)
	}
	u, err := func() (u *payd.User, err error) {
		err = s.View(ctx, func(tx payd.Tx) error { u, err = tx.UserGet(ctx, x[0].userID); return err })
		return u, err
	}()
	if err != nil || u.TOTPEnabled {
		t.Errorf("UserGet after the TOTP secret was emptied: TOTPEnabled %v, %v", u != nil && u.TOTPEnabled, err)
	}

	// Another key does not open them.
	other := open(keyring(t, "k1"))
	mustView(t, other, func(tx payd.Tx) error {
		_, err := tx.WebhookEndpointGet(ctx, x[1].endpoint.ShopID, true, x[1].endpoint.ID)
		wantErr(t, "WebhookEndpointGet under another key of the same id", err, seal.ErrOpen)
		_, err = tx.IdempotencyGet(ctx, x[1].shopID, payd.ModeTest, x[1].idemKey)
		wantErr(t, "IdempotencyGet under another key of the same id", err, seal.ErrOpen)
		return nil
	})
}

// A sealed value copied into another row, or another column of its row,
// does not open there: a reader of the database cannot make payd sign
// with, or show, a secret it was not given for that place.
func testSealedBoundToRow(t *testing.T, open func(*seal.Keyring) payd.Store) {
	s := open(keyring(t, "k1"))
	x := writeSecrets(t, s, 2)
	ctx := t.Context()
	db := rawDB(t, s)
	// The sealed value of one row is copied into another, read and
	// written apart (a cluster runs no UPDATE that reads another row).
	for _, q := range [][2]string{
		{`SELECT secret FROM webhook_endpoints WHERE id = $1 AND merchant_key = $2`, `UPDATE webhook_endpoints SET secret = $1 WHERE id = $2 AND merchant_key = $3`},
		{`SELECT totp_secret FROM dashboard_users WHERE id = $1`, `UPDATE dashboard_users SET totp_secret = $1 WHERE id = $2`},
	} {
		var v string
		key := func(q string, id string) []any {
			if strings.Contains(q, "merchant_key") {
				return []any{rowKey(id)}
			}
			return nil
		}
		if err := db.QueryRowContext(ctx, q[0], append([]any{idOf(q[0], x[0])}, key(q[0], idOf(q[0], x[0]))...)...).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, q[1], append([]any{v, idOf(q[1], x[1])}, key(q[1], idOf(q[1], x[1]))...)...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, `UPDATE webhook_endpoints SET secret = prev_secret WHERE id = $1 AND merchant_key = $2`,
		x[0].endpoint.ID, rowKey(x[0].endpoint.ID)); err != nil {
		t.Fatal(err)
	}
	var body []byte
	if err := db.QueryRowContext(ctx, `SELECT body FROM idempotency_keys WHERE idem_key = $1 AND merchant_key = $2`,
		x[1].idemKey, rowKey(x[1].shopID)).Scan(&body); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE idempotency_keys SET body = $1 WHERE idem_key = $2 AND merchant_key = $3`,
		body, x[0].idemKey, rowKey(x[0].shopID)); err != nil {
		t.Fatal(err)
	}
	err := s.View(ctx, func(tx payd.Tx) error {
		_, err := tx.WebhookEndpointGet(ctx, x[1].endpoint.ShopID, true, x[1].endpoint.ID)
		return err
	})
	wantErr(t, "WebhookEndpointGet of another row's secret", err, seal.ErrOpen)
	err = s.View(ctx, func(tx payd.Tx) error {
		_, err := tx.WebhookEndpointGet(ctx, x[0].endpoint.ShopID, true, x[0].endpoint.ID)
		return err
	})
	wantErr(t, "WebhookEndpointGet of the previous secret in the secret's column", err, seal.ErrOpen)
	err = s.View(ctx, func(tx payd.Tx) error {
		_, err := tx.UserCredentialsGet(ctx, x[1].userID)
		return err
	})
	wantErr(t, "UserCredentialsGet of another user's TOTP secret", err, seal.ErrOpen)
	err = s.View(ctx, func(tx payd.Tx) error {
		_, err := tx.IdempotencyGet(ctx, x[0].shopID, payd.ModeTest, x[0].idemKey)
		return err
	})
	wantErr(t, "IdempotencyGet of another key's answer", err, seal.ErrOpen)
}

// rowKey is the merchant key (sqlstore, migration 0032) of the row of an
// object with identifier id: a statement of the suite's own that names it
// touches one shard group on a cluster.
func rowKey(id string) int32 { return int32(payd.KeyOf(id)) }

func idOf(q string, x sealedSecrets) string {
	if strings.Contains(q, "dashboard_users") {
		return x.userID
	}
	return x.endpoint.ID
}

// A rotation of the key-encryption key: a keyring with a new first key
// reads what the old one sealed and writes under the new one; the walk
// in batches reseals every row under it, after which the old key can go.
func testReseal(t *testing.T, open func(*seal.Keyring) payd.Store) {
	oldLine, err := seal.Generate("old")
	if err != nil {
		t.Fatal(err)
	}
	newLine, err := seal.Generate("new")
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	oldOnly := open(also(t, oldLine, ""))
	x := writeSecrets(t, oldOnly, 3)

	// With one key there is nothing to reseal, and nothing changes.
	mustTx(t, oldOnly, func(tx payd.Tx) error {
		next, n, err := tx.SecretsReseal(ctx, "", 2)
		wantDiff(t, "SecretsReseal with one key", []any{"", 0}, []any{next, n})
		return err
	})

	// The new key may not be missing from an instance that reads what
	// another sealed under it.
	newOnly := open(also(t, newLine, ""))
	err = newOnly.View(ctx, func(tx payd.Tx) error {
		_, err := tx.UserCredentialsGet(ctx, x[0].userID)
		return err
	})
	wantErr(t, "UserCredentialsGet under a keyring without the old key", err, seal.ErrOpen)

	// A walk that meets a value under a key it does not know fails,
	// naming the key, rather than skip a value no later walk could open.
	otherLine, err := seal.Generate("other")
	if err != nil {
		t.Fatal(err)
	}
	err = open(also(t, newLine, otherLine)).Tx(ctx, func(tx payd.Tx) error {
		_, _, err := tx.SecretsReseal(ctx, "", 100)
		return err
	})
	if !errors.Is(err, seal.ErrOpen) || !strings.Contains(err.Error(), `"old"`) {
		t.Errorf("SecretsReseal of values under an unknown key: %v, want seal.ErrOpen naming it", err)
	}

	both := open(also(t, newLine, oldLine))
	readSecrets(t, both, x)
	wantDiff(t, "keys before the reseal", map[string]int{"old": 18}, rawSealed(t, both, x))
	// Written now, under the new key.
	fresh := writeSecrets(t, both, 1)

	// In batches of 2 rows, each its own transaction, until the walk
	// ends; a second walk has nothing left to do.
	walk := func() (batches, changed int) {
		cursor := ""
		for {
			var next string
			var n int
			mustTx(t, both, func(tx payd.Tx) (err error) {
				next, n, err = tx.SecretsReseal(ctx, cursor, 2)
				return err
			})
			batches, changed = batches+1, changed+n
			if next == "" {
				return batches, changed
			}
			if batches > 1000 {
				t.Fatal("SecretsReseal does not end")
			}
			cursor = next
		}
	}
	batches, changed := walk()
	// 3 endpoints, 3 users, 3 service secrets, 3 answers; the rows
	// written during the rotation need nothing.
	if changed != 12 {
		t.Errorf("SecretsReseal changed %d rows, want 12", changed)
	}
	if batches < 6 {
		t.Errorf("SecretsReseal walked in %d batches of 2; want one per 2 rows", batches)
	}
	if _, changed := walk(); changed != 0 {
		t.Errorf("a second walk changed %d rows, want 0", changed)
	}
	wantDiff(t, "keys after the reseal", map[string]int{"new": 18}, rawSealed(t, both, x))
	wantDiff(t, "keys of values written during the rotation", map[string]int{"new": 6}, rawSealed(t, both, fresh))

	// The old key is removed: everything still opens.
	after := open(also(t, newLine, ""))
	readSecrets(t, after, x)
	readSecrets(t, after, fresh)
}
