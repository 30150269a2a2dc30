package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/seal"
	"github.com/paydhq/payd/internal/serve"
	"github.com/paydhq/payd/internal/sqlstore"
	"github.com/paydhq/payd/money"
)

// floor is the database floor: the least a payment creation must write —
// an idempotency record, a payment row, an event row and a job row — as one
// transaction of four INSERTs and nothing else: no HTTP, no reads, no
// authentication. Its tables are made by payd's own migrations (and
// River's, for river_job) in a scratch database, so they have exactly the
// columns, indexes and constraints of the service's. The pool is the
// store's own (SQLite: one writer connection, BEGIN IMMEDIATE, WAL with
// synchronous=FULL; PostgreSQL: up to 32 connections, synchronous_commit as
// the server has it), so durability and concurrency are the service's.
type floor struct {
	store   *sqlstore.Store
	db      *sql.DB
	sqlite  bool
	ids     *payd.IDGen
	shopID  string
	merchID string
	run     string
	// seq numbers transactions across phases and runs: idempotency keys
	// and order ids must stay unique in the one scratch database.
	seq atomic.Int64
	// Documents of the size the service writes for a 100.00 RUB redirect
	// payment; their content does not matter to the database.
	payDoc, respBody, eventBody []byte
	reqHash                     []byte
	// idemBody is the create response as its idempotency record keeps
	// it: sealed (internal/sqlstore/seal.go), which makes it longer.
	idemBody []byte
}

// openFloor migrates a scratch database — a SQLite file in dir, or the
// PostgreSQL database at url (its search_path a fresh schema) — and adds
// the merchant and shop the payments' foreign key needs.
func openFloor(ctx context.Context, url, dir, run string) (*floor, error) {
	store, err := sqlstore.Open(ctx, url, dir)
	if err != nil {
		return nil, err
	}
	if err := serve.Migrate(ctx, store, payd.SystemClock{}); err != nil {
		store.Close()
		return nil, err
	}
	f := &floor{store: store, db: store.DB(), sqlite: store.Dialect() == "sqlite", ids: payd.NewIDGen(), run: run}
	now := time.Now().UTC()
	f.merchID, f.shopID = f.ids.New(payd.PrefixMerchant, now), f.ids.New(payd.PrefixShop, now)
	if _, err := f.db.ExecContext(ctx, `INSERT INTO merchants (id, name, created_at) VALUES ($1, $2, $3)`,
		f.merchID, "Floor Merchant", now.UnixMicro()); err != nil {
		store.Close()
		return nil, fmt.Errorf("floor: %w", err)
	}
	if _, err := f.db.ExecContext(ctx, `INSERT INTO shops (id, merchant_id, region, name, default_currency, created_at)
		VALUES ($1, $2, $3, $4, $5, $6)`, f.shopID, f.merchID, string(payd.RegionRU), "Floor Shop", "RUB", now.UnixMicro()); err != nil {
		store.Close()
		return nil, fmt.Errorf("floor: %w", err)
	}
	if err := f.documents(now); err != nil {
		store.Close()
		return nil, err
	}
	return f, nil
}

// documents renders the payment document, the create response and the
// event body once, through the service's own types, so the rows are the
// size the service's are.
func (f *floor) documents(now time.Time) error {
	pay := &payd.Payment{
		ID: f.ids.New(payd.PrefixPayment, now), ShopID: f.shopID, MerchantID: f.merchID, Region: payd.RegionRU,
		Test: true, Status: payd.PaymentPending, Amount: money.New(10000, money.RUB), OrderID: "bench-order-000000000",
		CreatedAt: now, Description: "paydbench order", Capture: true, ConfirmationType: payd.ConfirmationRedirect,
		ReturnURL: "https://shop.example.com/return", CheckoutTokenHash: make([]byte, 32),
		MerchantDisplayName: "Demo Shop", StatementDescriptor: "DEMO SHOP", ExpiresAt: now.Add(24 * time.Hour),
	}
	var err error
	if f.payDoc, err = json.Marshal(pay); err != nil {
		return err
	}
	view := pay.View("http://127.0.0.1:8080/checkout/" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	if f.respBody, err = json.Marshal(view); err != nil {
		return err
	}
	f.eventBody, err = json.Marshal(map[string]any{
		"id": f.ids.New(payd.PrefixEvent, now), "type": "payment.created", "created_at": now, "test": true,
		"data": map[string]any{"object_type": "payment", "object": view},
	})
	if err != nil {
		return err
	}
	f.reqHash = make([]byte, 32)
	rand.Read(f.reqHash)
	line, err := seal.Generate("floor")
	if err != nil {
		return err
	}
	keys, err := seal.Parse(line)
	if err != nil {
		return err
	}
	f.idemBody = []byte(keys.Seal(f.respBody, "idempotency_keys.body"))
	return nil
}

func (f *floor) close() error { return f.store.Close() }

// insert is one floor transaction.
func (f *floor) insert(ctx context.Context, _ int64) error {
	now := time.Now().UTC()
	nowMicro := now.UnixMicro()
	payID := f.ids.New(payd.PrefixPayment, now)
	key := fmt.Sprintf("floor-%s-%d", f.run, f.seq.Add(1))
	token := make([]byte, 32) // checkout_token_hash has a unique index
	rand.Read(token)
	// River keeps times as text in SQLite and as timestamptz in PostgreSQL.
	var runAt any = now.Add(24 * time.Hour)
	if f.sqlite {
		runAt = now.Add(24 * time.Hour).Format("2006-01-02 15:04:05.000000")
	}
	tx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO idempotency_keys (shop_id, mode, idem_key, request_hash, status, body, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		f.shopID, string(payd.ModeTest), key, f.reqHash, 201, f.idemBody, nowMicro, nowMicro+int64(24*time.Hour/time.Microsecond)); err != nil {
		return fmt.Errorf("idempotency_keys: %w", err)
	}
	// expires_at and the rendering are written as the service writes
	// them (the creation answer stands in for the rendering: the same
	// object with its confirmation_url), so the row and its index entries
	// are the service's.
	if _, err := tx.ExecContext(ctx, `INSERT INTO payments (id, shop_id, test, status, order_id, amount, currency, created_at,
		checkout_token_hash, provider, provider_payment_id, doc, expires_at, view)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
		payID, f.shopID, true, string(payd.PaymentPending), key, int64(10000), "RUB", nowMicro, token, "", "", string(f.payDoc),
		nowMicro+int64(24*time.Hour/time.Microsecond), string(f.respBody)); err != nil {
		return fmt.Errorf("payments: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO events (id, shop_id, merchant_id, test, type, object_id, created_at, body, delivery_status, delivery_attempts)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		f.ids.New(payd.PrefixEvent, now), f.shopID, f.merchID, true, "payment.created", payID, nowMicro, string(f.eventBody),
		payd.DeliveryPending, 0); err != nil {
		return fmt.Errorf("events: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO river_job (args, kind, max_attempts, priority, queue, scheduled_at, state)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		`{"payment_id":"`+payID+`"}`, (payd.PaymentExpireArgs{}).Kind(), 25, 1, "default", runAt, "scheduled"); err != nil {
		return fmt.Errorf("river_job: %w", err)
	}
	return tx.Commit()
}

func (f *floor) worker(int) op { return f.insert }

// version is the database's own version string.
func (f *floor) version(ctx context.Context) string {
	q := `SELECT 'PostgreSQL ' || current_setting('server_version')`
	if f.sqlite {
		q = `SELECT 'SQLite ' || sqlite_version() || ' (modernc.org/sqlite)'`
	}
	var v string
	if err := f.db.QueryRowContext(ctx, q).Scan(&v); err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return v
}
