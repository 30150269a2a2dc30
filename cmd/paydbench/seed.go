package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// seedBatch is how many payments the loader writes per statement (SQLite)
// or COPY (PostgreSQL); a SQLite transaction takes several.
const seedBatch = 500

// seedRows are the rows of one batch of seeded payments: each payment, an
// event about it, and for every tenth succeeded payment a refund.
type seedRows struct {
	payments, events, refunds [][]any
}

var (
	seedPaymentCols = []string{"id", "shop_id", "test", "status", "order_id", "amount", "currency", "created_at",
		"provider", "provider_payment_id", "doc", "expires_at", "view", "method"}
	seedEventCols  = []string{"id", "shop_id", "merchant_id", "test", "type", "object_id", "created_at", "body", "delivery_status"}
	seedRefundCols = []string{"id", "shop_id", "test", "payment_id", "status", "created_at", "doc"}
)

// seeder makes the rows of n payments of one shop, created a few seconds
// apart and ending an hour before the run, so that the run's own payments
// are the newest and a list walks through the seeded ones after them.
// Nine in ten succeeded with a card (fee fixed), the rest were declined;
// every payment has the event of its outcome, every tenth succeeded one a
// refund of a tenth of it. The rows are the service's own: documents and
// renderings are encoded from the domain types. They have no ledger
// postings: the seeded shop serves reads and lists, not balances.
type seeder struct {
	shopID, merchantID string
	n                  int
	start              time.Time
	step               time.Duration
	ids                *payd.IDGen
}

func newSeeder(shopID, merchantID string, n int) *seeder {
	end := time.Now().UTC().Add(-time.Hour)
	step := 30 * 24 * time.Hour / time.Duration(max(n, 1))
	return &seeder{shopID: shopID, merchantID: merchantID, n: n, start: end.Add(-time.Duration(n) * step), step: step, ids: payd.NewIDGen()}
}

// batch returns the rows of payments from..to-1.
func (s *seeder) batch(from, to int) (*seedRows, error) {
	rows := &seedRows{}
	for i := from; i < to; i++ {
		created := s.start.Add(time.Duration(i) * s.step).Truncate(time.Microsecond)
		at := created.Add(40 * time.Second)
		p := &payd.Payment{ID: s.ids.New(payd.PrefixPayment, created), ShopID: s.shopID, MerchantID: s.merchantID,
			Region: payd.RegionRU, Test: true, Amount: money.New(int64(10000+i%500000), money.RUB),
			OrderID: fmt.Sprintf("seed-%d", i), CreatedAt: created, Description: "Order of two books and a lamp",
			Capture: true, Metadata: map[string]string{"cart": fmt.Sprint(i % 9973), "channel": "web"},
			ConfirmationType: payd.ConfirmationRedirect, ReturnURL: "https://shop.example.com/return",
			MerchantDisplayName: "Demo shop", StatementDescriptor: "DEMO SHOP", ExpiresAt: created.Add(24 * time.Hour),
			Provider: "sandbox", ProviderPaymentID: fmt.Sprintf("sbx_seed_%d", i),
			PaymentMethod: &payd.PaymentMethodData{Type: payd.MethodBankCard,
				Card: &payd.CardData{First6: "555555", Last4: fmt.Sprintf("%04d", i%10000), Brand: "MasterCard", IssuerCountry: "RU"}}}
		event := payd.EventPaymentSucceeded
		if i%10 == 9 {
			p.Status, p.CanceledAt = payd.PaymentCanceled, &at
			p.Cancellation = &payd.CancellationDetails{Party: payd.PartyPaymentNetwork, Reason: "insufficient_funds"}
			event = payd.EventPaymentCanceled
		} else {
			p.Status, p.CapturedAmount, p.CapturedAt, p.AuthorizedAt = payd.PaymentSucceeded, p.Amount.Minor, &at, &at
			p.FeeFixed, p.FeeAmount = true, p.Amount.Minor*155/10000
			p.Authorization = &payd.AuthorizationDetails{RRN: fmt.Sprintf("%012d", i), AuthCode: "A1B2C3"}
		}
		if p.Status == payd.PaymentSucceeded && i%100 < 10 {
			r := &payd.Refund{ID: s.ids.New(payd.PrefixRefund, at), ShopID: s.shopID, MerchantID: s.merchantID, PaymentID: p.ID,
				Test: true, Status: payd.RefundSucceeded, Amount: money.New(p.Amount.Minor/10, money.RUB), OrderID: p.OrderID,
				CreatedAt: at, SucceededAt: &at}
			p.RefundedAmount = r.Amount.Minor
			doc, err := json.Marshal(r)
			if err != nil {
				return nil, err
			}
			rows.refunds = append(rows.refunds, []any{r.ID, s.shopID, true, p.ID, string(r.Status), micros(at), string(doc)})
		}
		doc, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		view, err := json.Marshal(p.View(""))
		if err != nil {
			return nil, err
		}
		rows.payments = append(rows.payments, []any{p.ID, s.shopID, true, string(p.Status), p.OrderID, p.Amount.Minor, "RUB",
			micros(created), p.Provider, p.ProviderPaymentID, string(doc), micros(p.ExpiresAt), string(view), p.KnownMethod()})
		evID := s.ids.New(payd.PrefixEvent, at)
		body, err := json.Marshal(map[string]any{"id": evID, "type": event, "created_at": at, "test": true,
			"data": map[string]any{"object_type": "payment", "object": json.RawMessage(view)}})
		if err != nil {
			return nil, err
		}
		rows.events = append(rows.events, []any{evID, s.shopID, s.merchantID, true, string(event), p.ID, micros(at), string(body), payd.DeliveryNone})
	}
	return rows, nil
}

func micros(t time.Time) int64 { return t.UnixMicro() }

// seedPayments loads n payments (with their events and refunds) into the
// shop of a running server's database: PostgreSQL by COPY, SQLite by
// multi-row INSERTs in large transactions beside the idle server (WAL
// lets it read meanwhile). It reports how long it took and returns the
// ids of up to keep payments spread over all of them, for the reads.
func seedPayments(ctx context.Context, database, pgURL, dataDir, shopID string, n, keep int, log io.Writer) (sample []string, err error) {
	started := time.Now()
	var load func(rows *seedRows) error
	var merchantID string
	var finish func() error
	if database == "postgres" {
		conn, err := pgx.Connect(ctx, pgURL)
		if err != nil {
			return nil, err
		}
		defer conn.Close(context.Background())
		if err := conn.QueryRow(ctx, `SELECT merchant_id FROM shops WHERE id = $1`, shopID).Scan(&merchantID); err != nil {
			return nil, fmt.Errorf("seed: the shop: %w", err)
		}
		copyRows := func(table string, cols []string, rows [][]any) error {
			if len(rows) == 0 {
				return nil
			}
			_, err := conn.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
			return err
		}
		load = func(r *seedRows) error {
			for _, t := range []struct {
				name string
				cols []string
				rows [][]any
			}{{"payments", seedPaymentCols, r.payments}, {"events", seedEventCols, r.events}, {"refunds", seedRefundCols, r.refunds}} {
				if err := copyRows(t.name, t.cols, t.rows); err != nil {
					return fmt.Errorf("seed %s: %w", t.name, err)
				}
			}
			return nil
		}
		// Statistics as after a day of traffic, so that what is measured is
		// not a planner surprised by an unanalyzed table.
		finish = func() error {
			_, err := conn.Exec(ctx, `ANALYZE payments; ANALYZE events; ANALYZE refunds`)
			return err
		}
	} else {
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir, "payd.db")+"?_pragma=busy_timeout(60000)&_pragma=synchronous(NORMAL)")
		if err != nil {
			return nil, err
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		if err := db.QueryRowContext(ctx, `SELECT merchant_id FROM shops WHERE id = $1`, shopID).Scan(&merchantID); err != nil {
			return nil, fmt.Errorf("seed: the shop: %w", err)
		}
		var tx *sql.Tx
		inTx := 0
		insert := func(table string, cols []string, rows [][]any) error {
			if len(rows) == 0 {
				return nil
			}
			var b strings.Builder
			b.WriteString("INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES ")
			args := make([]any, 0, len(rows)*len(cols))
			for i, r := range rows {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString("(")
				for j := range cols {
					if j > 0 {
						b.WriteString(", ")
					}
					fmt.Fprintf(&b, "$%d", len(args)+j+1)
				}
				b.WriteString(")")
				args = append(args, r...)
			}
			_, err := tx.ExecContext(ctx, b.String(), args...)
			return err
		}
		load = func(r *seedRows) error {
			if tx == nil {
				if tx, err = db.BeginTx(ctx, nil); err != nil {
					return err
				}
			}
			// SQLite binds at most 32,766 values a statement: 100 rows of
			// 13 columns stay far below.
			for _, t := range []struct {
				name string
				cols []string
				rows [][]any
			}{{"payments", seedPaymentCols, r.payments}, {"events", seedEventCols, r.events}, {"refunds", seedRefundCols, r.refunds}} {
				for len(t.rows) > 0 {
					k := min(len(t.rows), 100)
					if err := insert(t.name, t.cols, t.rows[:k]); err != nil {
						return fmt.Errorf("seed %s: %w", t.name, err)
					}
					t.rows = t.rows[k:]
				}
			}
			if inTx++; inTx == 40 {
				inTx = 0
				err := tx.Commit()
				tx = nil
				return err
			}
			return nil
		}
		finish = func() error {
			if tx != nil {
				if err := tx.Commit(); err != nil {
					return err
				}
			}
			if _, err := db.ExecContext(ctx, `ANALYZE`); err != nil {
				return err
			}
			// The load went through the write-ahead log; folding it into
			// the database now keeps that work out of the first phase.
			_, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
			return err
		}
	}
	s := newSeeder(shopID, merchantID, n)
	every := max(1, n/max(keep, 1))
	for from := 0; from < n; from += seedBatch {
		rows, err := s.batch(from, min(from+seedBatch, n))
		if err != nil {
			return nil, err
		}
		for i, p := range rows.payments {
			if (from+i)%every == 0 && len(sample) < keep {
				sample = append(sample, p[0].(string))
			}
		}
		if err := load(rows); err != nil {
			return nil, err
		}
	}
	if err := finish(); err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	fmt.Fprintf(log, "%s: seeded %d payments in %.1f s\n", database, n, time.Since(started).Seconds())
	return sample, nil
}
