package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/money"
)

// The seeded rows are the service's own: each payment's rendering is the
// one the service would store for its document, ids and times grow with
// the row, every payment has its event, and every tenth succeeded one a
// refund counted in its document.
func TestSeederRowsAreTheServices(t *testing.T) {
	s := newSeeder("sh_01M8ACYKNMCMKZH0XPCPFY27QC", "mer_01M8ACYKNMCMKZH0XPCPFY27QD", 1000)
	rows, err := s.batch(0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows.payments) != 1000 || len(rows.events) != 1000 {
		t.Fatalf("%d payments, %d events, want 1000 of each", len(rows.payments), len(rows.events))
	}
	refunded := 0
	var lastID string
	var lastAt int64
	for i, r := range rows.payments {
		var p payd.Payment
		if err := json.Unmarshal([]byte(r[10].(string)), &p); err != nil {
			t.Fatal(err)
		}
		view, _ := json.Marshal(p.View(""))
		if string(view) != r[12].(string) || p.ID != r[0].(string) || string(p.Status) != r[3].(string) {
			t.Fatalf("row %d is not its document's: %v", i, r)
		}
		if id, at := r[0].(string), r[7].(int64); id <= lastID || at <= lastAt {
			t.Fatalf("row %d: id %s at %d after %s at %d", i, id, at, lastID, lastAt)
		} else {
			lastID, lastAt = id, at
		}
		if rows.events[i][5] != p.ID {
			t.Fatalf("event %d is about %v, want %s", i, rows.events[i][5], p.ID)
		}
		if p.RefundedAmount > 0 {
			refunded++
		}
	}
	if refunded != len(rows.refunds) || refunded < 80 || refunded > 100 {
		t.Fatalf("%d payments refunded, %d refund rows; want the same, about 90", refunded, len(rows.refunds))
	}
}

// The seeded ledger is one the service could have made: on a running
// service, on both databases, the ledger check finds nothing wrong, the
// balance shows what the registers left in available, a register formed
// by the service from the seeded entries equals the seeded one, and a
// refund of a seeded payment is covered by available and keeps the ledger
// whole.
func TestSeededLedgerPassesTheCheck(t *testing.T) {
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := context.Background()
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		sd, err := seedPayments(ctx, b.Name, env.DatabaseURL, env.DataDir, shop.ID, 600, 50, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		checkLedger := func(when string) {
			t.Helper()
			var res struct {
				OK       bool
				Problems []string
			}
			env.AdminDo("GET", "/admin/v1/ledger/check", nil).Expect(t, 200).Decode(t, &res)
			if !res.OK || len(res.Problems) > 0 {
				t.Fatalf("ledger check %s: %v", when, res.Problems)
			}
		}
		checkLedger("after seeding")

		c := env.As(shop, false)
		var bal struct {
			Items []payd.BalanceJSON `json:"items"`
		}
		c.Get("/v1/balance").Expect(t, 200).Decode(t, &bal)
		if len(bal.Items) != 1 || bal.Items[0].Available.Minor != sd.available || sd.available <= 0 ||
			bal.Items[0].Pending.Minor != 0 || bal.Items[0].PendingRefunds.Minor != 0 {
			t.Fatalf("balance %+v, want available %d and nothing pending", bal.Items, sd.available)
		}

		// Registers: 30 days of payments make about 29 finished days;
		// all but the last two are paid.
		var sts struct {
			Items []payd.SettlementJSON `json:"items"`
		}
		c.Get("/v1/settlements?limit=100").Expect(t, 200).Decode(t, &sts)
		paid, drafts := 0, 0
		for _, st := range sts.Items {
			switch st.Status {
			case payd.SettlementPaid:
				paid++
			case payd.SettlementDraft:
				drafts++
			}
		}
		if paid < 25 || drafts < 1 || drafts > 3 || paid+drafts != len(sts.Items) {
			t.Fatalf("%d registers paid, %d drafts of %d", paid, drafts, len(sts.Items))
		}

		// The service forms the same register from the seeded entries.
		seededSt := sts.Items[len(sts.Items)/2]
		db := openSeeded(t, b.Name, env)
		var doc string
		if err := db.QueryRowContext(ctx, `SELECT doc FROM settlements WHERE id = $1`, seededSt.ID).Scan(&doc); err != nil {
			t.Fatal(err)
		}
		var want payd.Settlement
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `DELETE FROM settlements WHERE id = $1`, seededSt.ID); err != nil {
			t.Fatal(err)
		}
		got, err := env.Service.FormSettlement(ctx, shop.MerchantID, true, money.RUB, want.PeriodFrom)
		if err != nil {
			t.Fatal(err)
		}
		if got.Gross != want.Gross || got.Fees != want.Fees || got.Refunds != want.Refunds || got.Net != want.Net ||
			got.Entries != want.Entries || want.Gross == 0 {
			t.Fatalf("register of %s: the service forms %+v, the seed made %+v", want.PeriodFrom, got, want)
		}

		// The seeded day totals are the seeded payments' (migration 0037):
		// the home page and the limits read them.
		var seededTotals, recount [][3]any
		for q, out := range map[string]*[][3]any{
			`SELECT day, status, SUM(count), SUM(amount) FROM payment_day_totals WHERE shop_id = $1 AND test
				GROUP BY day, status ORDER BY day, status`: &seededTotals,
			`SELECT created_at / 86400000000, status, COUNT(*), SUM(amount) FROM payments WHERE shop_id = $1 AND test
				GROUP BY created_at / 86400000000, status ORDER BY 1, 2`: &recount,
		} {
			rows, err := db.QueryContext(ctx, q, shop.ID)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var day, n, sum int64
				var status string
				if err := rows.Scan(&day, &status, &n, &sum); err != nil {
					t.Fatal(err)
				}
				*out = append(*out, [3]any{fmt.Sprint(day, " ", status), n, sum})
			}
			rows.Close()
		}
		if len(recount) < 28 || fmt.Sprint(seededTotals) != fmt.Sprint(recount) {
			t.Fatalf("seeded day totals %v, the payments' %v", seededTotals, recount)
		}

		// A refund of a seeded payment takes its sum from available, and
		// its success gives the refund's fee part back. The sandbox bank
		// answers at once, so the success may already be there at the
		// first read: the sum is checked once it is.
		var r struct{ ID, Status string }
		c.Post("/v1/refunds", "seeded-refund", map[string]any{"payment_id": sd.paid[3],
			"amount": map[string]string{"value": "1.00", "currency": "RUB"}}).Expect(t, 201).Decode(t, &r)
		checkLedger("after a refund")
		paydtest.Eventually(t, "the refund succeeds", func() bool {
			c.Get("/v1/refunds/"+r.ID).Expect(t, 200).Decode(t, &r)
			return r.Status == string(payd.RefundSucceeded)
		})
		var refund payd.Refund
		if err := db.QueryRowContext(ctx, `SELECT doc FROM refunds WHERE id = $1`, r.ID).Scan(&doc); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(doc), &refund); err != nil {
			t.Fatal(err)
		}
		c.Get("/v1/balance").Expect(t, 200).Decode(t, &bal)
		if want := sd.available - 100 + refund.FeeReturned; bal.Items[0].Available.Minor != want || refund.FeeReturned >= 100 {
			t.Fatalf("available %d after a refund of 1.00 that returned a fee part of %d, want %d",
				bal.Items[0].Available.Minor, refund.FeeReturned, want)
		}
		checkLedger("after the refund succeeded")
	})
}

// openSeeded opens the service's database beside it.
func openSeeded(t *testing.T, backend string, env *paydtest.Env) *sql.DB {
	t.Helper()
	driver, dsn := "pgx", env.DatabaseURL
	if backend == "sqlite" {
		driver, dsn = "sqlite", "file:"+filepath.Join(env.DataDir, "payd.db")+"?_pragma=busy_timeout(10000)"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
