package sqlstore_test

import (
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/sqlstore"
	"github.com/paydhq/payd/money"
)

// TestPostgresTransactionRoundTrips counts what a transaction of the store
// costs in round trips on PostgreSQL: the BEGIN goes with a first
// statement that may carry it, and the idempotency record of a key found
// absent goes with the COMMIT (pgpipe.go). A creation's shape — the key's
// lock and read, a write, the record — is three round trips, not five;
// with the key claimed and the payment sent with the COMMIT, one.
func TestPostgresTransactionRoundTrips(t *testing.T) {
	var url string
	for _, b := range paydtest.Backends(t) {
		if b.Name == "postgres" {
			url = b.DatabaseURL(t)
		}
	}
	if url == "" {
		t.Skip("round trips are PostgreSQL's; PAYD_TEST_DATABASE_URL is not set")
	}
	ctx := t.Context()
	s, rt, err := sqlstore.OpenCounting(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	err = s.Tx(ctx, func(tx payd.Tx) error {
		if err := tx.MerchantInsert(ctx, &payd.Merchant{ID: "mer_rt", Name: "M", SettlementDelayDays: 1, CreatedAt: now}); err != nil {
			return err
		}
		return tx.ShopInsert(ctx, &payd.Shop{ID: "shop_rt", MerchantID: "mer_rt", Region: payd.RegionRU, Name: "S",
			DefaultCurrency: money.RUB, CreatedAt: now})
	})
	if err != nil {
		t.Fatal(err)
	}
	locked := &payd.Payment{ID: "pay_rt_locked", ShopID: "shop_rt", Test: true, Status: payd.PaymentSucceeded,
		Amount: money.New(100, money.RUB), OrderID: "locked", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	if err := s.Tx(ctx, func(tx payd.Tx) error { return tx.PaymentInsert(ctx, locked) }); err != nil {
		t.Fatal(err)
	}
	record := func(key string) *payd.IdempotencyRecord {
		return &payd.IdempotencyRecord{ShopID: "shop_rt", Mode: payd.ModeTest, Key: key, RequestHash: []byte{1},
			Outcome: payd.OutcomeCreated, Body: []byte(`{}`), CreatedAt: now, ExpiresAt: now.Add(payd.IdempotencyTTL)}
	}
	// paymentAndRecord sends a new payment and the key's record with the
	// COMMIT, as a redirect payment's creation does.
	paymentAndRecord := func(tx payd.Tx, key string) error {
		pay := &payd.Payment{ID: "pay_rt_" + key, ShopID: "shop_rt", Test: true, Status: payd.PaymentPending,
			Amount: money.New(100, money.RUB), OrderID: key, CreatedAt: now, ExpiresAt: now.Add(time.Hour),
			CheckoutTokenHash: []byte(key)}
		if err := tx.PaymentInsertAtCommit(ctx, pay); err != nil {
			return err
		}
		return tx.IdempotencyPut(ctx, record(key))
	}
	errRollback := errors.New("roll back")
	n := 0
	cases := []struct {
		name string
		fn   func(tx payd.Tx) error
		err  error
		want int64
	}{
		{"nothing", func(payd.Tx) error { return nil }, nil, 0},
		{"nothing, rolled back", func(payd.Tx) error { return errRollback }, errRollback, 0},
		{"creation: lock and read, a write, the record", func(tx payd.Tx) error {
			n++
			key := "create-" + string(rune('a'+n))
			if rec, locked, err := tx.IdempotencyLockGet(ctx, "shop_rt", payd.ModeTest, key); err != nil || !locked || rec != nil {
				return errors.Join(err, errors.New("lock and read of a new key"))
			}
			if err := tx.IdempotencyPut(ctx, record(key+"-other")); err != nil {
				return err
			}
			return tx.IdempotencyPut(ctx, record(key))
		}, nil, 3},
		{"creation with the payment at commit: lock and read, then the payment and the record", func(tx payd.Tx) error {
			n++
			key := "create-at-commit-" + string(rune('a'+n))
			if _, _, err := tx.IdempotencyLockGet(ctx, "shop_rt", payd.ModeTest, key); err != nil {
				return err
			}
			return paymentAndRecord(tx, key)
		}, nil, 2},
		{"claimed creation: the claim, the payment and the record go with the BEGIN and the COMMIT", func(tx payd.Tx) error {
			n++
			key := "create-claimed-" + string(rune('a'+n))
			if claimed, err := tx.IdempotencyClaim(ctx, "shop_rt", payd.ModeTest, key); err != nil || !claimed {
				return errors.Join(err, errors.New("a claim of a new key on PostgreSQL"))
			}
			return paymentAndRecord(tx, key)
		}, nil, 1},
		{"claim refused: a recorded key, the transaction and its ROLLBACK", func(tx payd.Tx) error {
			if _, err := tx.IdempotencyClaim(ctx, "shop_rt", payd.ModeTest, "create-b"); err != nil {
				return err
			}
			return tx.IdempotencyPut(ctx, record("create-b"))
		}, payd.ErrClaimRefused, 2},
		// On a cluster a key's directory look-up may go before the
		// claim and send the BEGIN; the claim's refusal is still one.
		{"claim refused after a read sent the BEGIN: the read, the sandbox fence, the claim with the COMMIT, the ROLLBACK", func(tx payd.Tx) error {
			if _, err := tx.IdempotencyGet(ctx, "shop_rt", payd.ModeTest, "create-b"); err != nil {
				return err
			}
			if _, err := tx.IdempotencyClaim(ctx, "shop_rt", payd.ModeTest, "create-b"); err != nil {
				return err
			}
			return tx.IdempotencyPut(ctx, record("create-b"))
		}, payd.ErrClaimRefused, 4},
		{"replay: lock and read of a live record", func(tx payd.Tx) error {
			rec, locked, err := tx.IdempotencyLockGet(ctx, "shop_rt", payd.ModeTest, "create-b")
			if err == nil && (!locked || rec == nil) {
				err = errors.New("lock and read of a recorded key found nothing")
			}
			return err
		}, nil, 2},
		{"a write first", func(tx payd.Tx) error {
			n++
			return tx.IdempotencyPut(ctx, record("write-first-"+string(rune('a'+n))))
		}, nil, 2},
		{"a write first, rolled back", func(tx payd.Tx) error {
			if err := tx.IdempotencyPut(ctx, record("rolled-back")); err != nil {
				return err
			}
			return errRollback
		}, errRollback, 2},
		{"a read first carries the BEGIN", func(tx payd.Tx) error {
			_, err := tx.IdempotencyGet(ctx, "shop_rt", payd.ModeTest, "create-b")
			return err
		}, nil, 2},
		// A refund's shape: the payment's locking read with the BEGIN;
		// the refund's row and a locked row's update kept, then sent with
		// the merchant's lock ahead of the balance read; the COMMIT.
		{"writes of certain outcome and a lock go with the next read", func(tx payd.Tx) error {
			n++
			pay, err := tx.PaymentGetForUpdate(ctx, "pay_rt_locked")
			if err != nil {
				return err
			}
			pay.Description = "update " + string(rune('a'+n))
			if err := tx.RefundInsert(ctx, &payd.Refund{ID: "rf_rt_" + string(rune('a'+n)), ShopID: "shop_rt", MerchantID: "mer_rt",
				PaymentID: pay.ID, Test: true, Status: payd.RefundPending, Amount: money.New(100, money.RUB), CreatedAt: now}); err != nil {
				return err
			}
			if err := tx.PaymentUpdate(ctx, pay); err != nil {
				return err
			}
			if err := tx.MerchantLock(ctx, "mer_rt"); err != nil {
				return err
			}
			_, err = tx.LedgerAccountBalance(ctx, ledger.Account{Owner: "mer_rt", Test: true, Currency: money.RUB, Bucket: ledger.Available})
			return err
		}, nil, 3},
		// The entry, its postings and the lock of the running totals'
		// slots with the BEGIN; the addition to the slots and the opening
		// of new ones (docs/money.md, "Slots") with the COMMIT. The
		// second run adds to the slots the first opened, and opens the
		// new payment's.
		{"a capture's ledger entry", func(tx payd.Tx) error {
			n++
			pay := "pay_rt_ledger_" + string(rune('a'+n))
			clearing := ledger.Account{Owner: ledger.ServiceOwner, Test: true, Currency: money.RUB, Bucket: ledger.ProviderClearing}
			pending := ledger.Account{Owner: "mer_rt", Test: true, Currency: money.RUB, Bucket: ledger.Pending, Sub: pay}
			reserve := ledger.Account{Owner: "mer_rt", Test: true, Currency: money.RUB, Bucket: ledger.Reserve, Sub: pay}
			fees := ledger.Account{Owner: ledger.ServiceOwner, Test: true, Currency: money.RUB, Bucket: ledger.Fees}
			var postings []ledger.Posting
			postings = append(postings, ledger.Move(clearing, pending, 10_000)...)
			postings = append(postings, ledger.Move(pending, fees, 300)...)
			postings = append(postings, ledger.Move(pending, reserve, 500)...)
			return tx.LedgerPost(ctx, &ledger.Entry{ID: "ent_rt_" + pay, At: now, Kind: ledger.KindPaymentCaptured,
				RefType: "payment", RefID: pay, Postings: postings})
		}, nil, 2},
	}
	// Every statement is prepared on its first use, which pgx does in
	// round trips of its own: each case runs once to warm the
	// connection, and is counted the second time.
	for _, c := range cases {
		for i := range 2 {
			before := rt.Count()
			err := s.Tx(ctx, c.fn)
			if !errors.Is(err, c.err) {
				t.Fatalf("%s: Tx: %v, want %v", c.name, err, c.err)
			}
			if got := rt.Count() - before; i == 1 && got != c.want {
				t.Errorf("%s: %d round trips, want %d", c.name, got, c.want)
			}
		}
	}
	// A list page outside a transaction is one batch: BEGIN READ ONLY,
	// the planner settings, the page, COMMIT.
	for i := range 2 {
		before := rt.Count()
		var page payd.Page[*payd.PaymentView]
		err := s.View(ctx, func(tx payd.Tx) (err error) {
			page, err = tx.PaymentViewList(ctx, &payd.PaymentListParams{ShopID: "shop_rt", Test: true,
				ListParams: payd.ListParams{Limit: 1}})
			return err
		})
		if err != nil {
			t.Fatalf("PaymentViewList: %v", err)
		}
		if len(page.Items) != 1 || page.Next == nil {
			t.Fatalf("PaymentViewList of the payments made above: %d items, next %v; want 1 and a next page", len(page.Items), page.Next)
		}
		if got := rt.Count() - before; i == 1 && got != 1 {
			t.Errorf("a list page: %d round trips, want 1", got)
		}
	}
	err = s.View(ctx, func(tx payd.Tx) error {
		_, err := tx.IdempotencyGet(ctx, "shop_rt", payd.ModeTest, "rolled-back")
		return err
	})
	if !errors.Is(err, payd.ErrNoRows) {
		t.Errorf("a rolled-back write first was kept: IdempotencyGet = %v, want ErrNoRows", err)
	}
}

// pipeStore opens a migrated PostgreSQL store whose round trips are
// counted, with a scratch table pipe_t (id, v) and one connection, so a
// transaction that left it in a bad state would fail the next.
func pipeStore(t *testing.T) (*sqlstore.Store, *sqlstore.RoundTrips) {
	t.Helper()
	var url string
	for _, b := range paydtest.Backends(t) {
		if b.Name == "postgres" {
			url = b.DatabaseURL(t)
		}
	}
	if url == "" {
		t.Skip("batching is PostgreSQL's; PAYD_TEST_DATABASE_URL is not set")
	}
	s, rt, err := sqlstore.OpenCounting(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.Pool().SetMaxOpenConns(1)
	if err := s.Exec(t.Context(), `CREATE TABLE pipe_t (id int PRIMARY KEY, v text NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	return s, rt
}

// pgCode is the SQLSTATE of err, or "".
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// TestPostgresPipeKeptStatements pins what pgpipe.go promises of the
// statements it keeps: where each goes, what its Exec answers, and that a
// failure of one is reported and commits nothing.
func TestPostgresPipeKeptStatements(t *testing.T) {
	s, rt := pipeStore(t)
	ctx := t.Context()
	has := func(id int) bool {
		t.Helper()
		var n int
		if err := s.Pool().QueryRowContext(ctx, `SELECT count(*) FROM pipe_t WHERE id = $1`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	insert := `INSERT INTO pipe_t (id, v) VALUES ($1, 'x')`
	if err := s.Exec(ctx, insert, 1); err != nil {
		t.Fatal(err)
	}
	// Each case runs once to prepare its statements, which pgx does in
	// round trips of its own, and is counted the second time; a case
	// that commits rows deletes them first.
	cases := []struct {
		name    string
		readTx  bool
		fn      func(tx *sql.Tx) error
		code    string // the SQLSTATE the transaction fails with
		rows    []int  // rows it leaves
		noRows  []int  // rows it does not leave
		trips   int64
		cleanup []int
	}{
		{"a kept statement has no count of rows", false, func(tx *sql.Tx) error {
			for _, m := range []sqlstore.PipeMark{sqlstore.KeepForNext, sqlstore.WriteWithNext, sqlstore.SendWithCommit} {
				res, err := tx.ExecContext(sqlstore.Mark(ctx, m), `SELECT 1`)
				if err != nil {
					return err
				}
				if n, err := res.RowsAffected(); err == nil {
					return fmt.Errorf("mark %d: a kept statement reported %d rows", m, n)
				}
			}
			return nil
		}, "", nil, nil, 1, nil},
		{"a statement run at once has its true count", false, func(tx *sql.Tx) error {
			for _, want := range []int64{1, 0} {
				res, err := tx.ExecContext(ctx, `UPDATE pipe_t SET v = 'y' WHERE id = $1`, 2-want)
				if err != nil {
					return err
				}
				if n, err := res.RowsAffected(); err != nil || n != want {
					return fmt.Errorf("an update of %d rows reported %d, %v", want, n, err)
				}
			}
			return nil
		}, "", nil, nil, 3, nil},
		{"a kept write goes with the next statement, which sees it", false, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(sqlstore.Mark(ctx, sqlstore.WriteWithNext), insert, 2); err != nil {
				return err
			}
			var v string
			return tx.QueryRowContext(sqlstore.Mark(ctx, sqlstore.SendWithBegin), `SELECT v FROM pipe_t WHERE id = 2`).Scan(&v)
		}, "", []int{2}, nil, 2, []int{2}},
		{"a kept write with nothing after goes with the COMMIT", false, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(sqlstore.Mark(ctx, sqlstore.WriteWithNext), insert, 3)
			return err
		}, "", []int{3}, nil, 1, []int{3}},
		{"a failing kept write fails the statement that carried it, and nothing commits", false, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(sqlstore.Mark(ctx, sqlstore.WriteWithNext), insert, 4); err != nil {
				return err
			}
			if _, err := tx.ExecContext(sqlstore.Mark(ctx, sqlstore.WriteWithNext), insert, 1); err != nil {
				return err
			}
			var n int
			return tx.QueryRowContext(sqlstore.Mark(ctx, sqlstore.SendWithBegin), `SELECT 1`).Scan(&n)
		}, "23505", nil, []int{4}, 2, nil},
		{"a failing write at the COMMIT fails the commit, and nothing commits", false, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(sqlstore.Mark(ctx, sqlstore.WriteWithNext), insert, 5); err != nil {
				return err
			}
			_, err := tx.ExecContext(sqlstore.Mark(ctx, sqlstore.SendWithCommit), insert, 1)
			return err
		}, "23505", nil, []int{5}, 2, nil},
		{"a statement kept for the next is dropped when none follows", false, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(sqlstore.Mark(ctx, sqlstore.KeepForNext), insert, 6)
			return err
		}, "", nil, []int{6}, 0, nil},
		{"a query that cannot carry the BEGIN goes after it", false, func(tx *sql.Tx) error {
			var n int
			return tx.QueryRowContext(ctx, `SELECT 1`).Scan(&n)
		}, "", nil, nil, 3, nil},
		{"a query with the COMMIT after it: one batch", true, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(sqlstore.Mark(ctx, sqlstore.KeepForNext), `SELECT set_config('enable_sort', 'off', true)`); err != nil {
				return err
			}
			var ids []int
			rows, err := tx.QueryContext(sqlstore.Mark(ctx, sqlstore.CommitAfter), `SELECT g FROM generate_series(1, 3) AS g`)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var id int
				if err := rows.Scan(&id); err != nil {
					return err
				}
				ids = append(ids, id)
			}
			if !slices.Equal(ids, []int{1, 2, 3}) {
				return fmt.Errorf("rows read whole: %v, want [1 2 3]", ids)
			}
			return rows.Err()
		}, "", nil, nil, 1, nil},
		{"a failing query with the COMMIT after it ends the transaction", true, func(tx *sql.Tx) error {
			var n int
			return tx.QueryRowContext(sqlstore.Mark(ctx, sqlstore.CommitAfter), `SELECT 1 / 0`).Scan(&n)
		}, "22012", nil, nil, 2, nil},
	}
	for _, c := range cases {
		for i := range 2 {
			for _, id := range c.cleanup {
				if err := s.Exec(ctx, `DELETE FROM pipe_t WHERE id = $1`, id); err != nil {
					t.Fatal(err)
				}
			}
			before := rt.Count()
			err := s.PipeTx(ctx, c.readTx, c.fn)
			trips := rt.Count() - before
			if got := pgCode(err); got != c.code || (c.code == "" && err != nil) {
				t.Fatalf("%s: %v, want SQLSTATE %q", c.name, err, c.code)
			}
			if i == 1 && trips != c.trips {
				t.Errorf("%s: %d round trips, want %d", c.name, trips, c.trips)
			}
			for _, id := range c.rows {
				if !has(id) {
					t.Errorf("%s: row %d is missing", c.name, id)
				}
			}
			for _, id := range c.noRows {
				if has(id) {
					t.Errorf("%s: row %d was kept", c.name, id)
				}
			}
			// The one connection is idle again: the next transaction
			// of the pool works on it.
			if err := s.PipeTx(ctx, false, func(tx *sql.Tx) error { _, err := tx.ExecContext(ctx, `SELECT 1`); return err }); err != nil {
				t.Fatalf("%s: the next transaction: %v", c.name, err)
			}
		}
	}
}

// TestPostgresPipeClaim pins how a claim's refusal, its division by zero,
// is reported: as payd.ErrClaimRefused by what carried it and by the
// rollback after, wherever in its batch it went, and only the claim's.
func TestPostgresPipeClaim(t *testing.T) {
	s, _ := pipeStore(t)
	ctx := t.Context()
	const (
		refuse = `SELECT 1 / count(*) FROM (SELECT 1) AS one WHERE false`
		hold   = `SELECT 1 / count(*) FROM (SELECT 1) AS one`
	)
	claim := func(tx *sql.Tx, q string) error {
		_, err := tx.ExecContext(sqlstore.Mark(ctx, sqlstore.ClaimGuard), q)
		return err
	}
	query := func(tx *sql.Tx, q string) error {
		var n int
		return tx.QueryRowContext(sqlstore.Mark(ctx, sqlstore.SendWithBegin), q).Scan(&n)
	}
	write := func(tx *sql.Tx, id int) error {
		_, err := tx.ExecContext(sqlstore.Mark(ctx, sqlstore.WriteWithNext), `INSERT INTO pipe_t (id, v) VALUES ($1, 'x')`, id)
		return err
	}
	cases := []struct {
		name    string
		fn      func(tx *sql.Tx) error
		refused bool
		code    string
	}{
		{"refused behind the BEGIN, carried by a query", func(tx *sql.Tx) error {
			return errors.Join(claim(tx, refuse), query(tx, `SELECT 1`))
		}, true, ""},
		{"refused behind the BEGIN, carried by the COMMIT", func(tx *sql.Tx) error {
			_, err := tx.ExecContext(sqlstore.Mark(ctx, sqlstore.SendWithCommit), `SELECT 1`)
			return errors.Join(claim(tx, refuse), err)
		}, true, ""},
		{"refused behind kept writes", func(tx *sql.Tx) error {
			return errors.Join(query(tx, `SELECT 1`), write(tx, 10), claim(tx, refuse), write(tx, 11))
		}, true, ""},
		// A statement that could not carry the BEGIN went first: the
		// claim then ran on its own, and its division by zero was an
		// internal error instead of a refusal.
		{"refused after the BEGIN was sent", func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT 1`).Scan(&n); err != nil {
				return err
			}
			return errors.Join(claim(tx, refuse), write(tx, 12))
		}, true, ""},
		{"held after the BEGIN was sent", func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT 1`).Scan(&n); err != nil {
				return err
			}
			return errors.Join(claim(tx, hold), query(tx, `SELECT 1`))
		}, false, ""},
		{"another statement's division by zero is its own error", func(tx *sql.Tx) error {
			return errors.Join(claim(tx, hold), query(tx, `SELECT 1 / 0`))
		}, false, "22012"},
	}
	for _, c := range cases {
		err := s.PipeTx(ctx, false, c.fn)
		switch {
		case c.refused && !errors.Is(err, payd.ErrClaimRefused):
			t.Errorf("%s: %v, want ErrClaimRefused", c.name, err)
		case !c.refused && errors.Is(err, payd.ErrClaimRefused):
			t.Errorf("%s: %v, want no refusal", c.name, err)
		case pgCode(err) != c.code && !c.refused:
			t.Errorf("%s: %v, want SQLSTATE %q", c.name, err, c.code)
		}
	}
	var n int
	if err := s.Pool().QueryRowContext(ctx, `SELECT count(*) FROM pipe_t WHERE id >= 10`).Scan(&n); err != nil || n != 0 {
		t.Errorf("writes of refused transactions kept: %d, %v", n, err)
	}
	// Outside a transaction begun here the claim runs at once.
	if _, err := s.Pool().ExecContext(sqlstore.Mark(ctx, sqlstore.ClaimGuard), refuse); !errors.Is(err, payd.ErrClaimRefused) {
		t.Errorf("a claim outside a transaction: %v, want ErrClaimRefused", err)
	}
}

// TestPostgresPipeValues: rows read in a batch (pipeValue) are the values
// pgx's stdlib driver gives for the same columns.
func TestPostgresPipeValues(t *testing.T) {
	s, _ := pipeStore(t)
	ctx := t.Context()
	const q = `SELECT true, false, 7::int2, 70000::int4, 9000000000::int8, 1.5::float4, 2.25::float8,
		'\x00ff'::bytea, '{"a": 1}'::json, '{"b": 2}'::jsonb, '2026-01-02 03:04:05.123456+00'::timestamptz,
		'2026-01-02 03:04:05'::timestamp, 'text', 'pay_1'::varchar, NULL::text, NULL::int8, NULL::bytea, 12.50::numeric`
	read := func(r interface{ Scan(...any) error }) ([]any, error) {
		vals := make([]any, 18)
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		return vals, r.Scan(ptrs...)
	}
	want, err := read(s.Pool().QueryRowContext(ctx, q))
	if err != nil {
		t.Fatal(err)
	}
	var got []any
	err = s.PipeTx(ctx, false, func(tx *sql.Tx) (err error) {
		got, err = read(tx.QueryRowContext(sqlstore.Mark(ctx, sqlstore.SendWithBegin), q))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("column %d: batched %#v, stdlib %#v", i+1, got[i], want[i])
		}
	}
}
