package sqlstore_test

import (
	"errors"
	"testing"
	"time"

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
