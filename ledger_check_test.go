package payd_test

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/sqlstore"
	"github.com/paydhq/payd/money"
)

// TestCheckLedgerPayoutHolds breaks a payout's hold in each way the check
// must see: an undecided payout holding other than its sum and fee, and a
// final one still holding money.
func TestCheckLedgerPayoutHolds(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, err := sqlstore.Open(ctx, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if _, err := store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	svc := payd.NewService(payd.Config{Store: store})
	ids := payd.NewIDGen()
	now := time.Now().UTC().Truncate(time.Microsecond)
	m := &payd.Merchant{ID: ids.New(payd.PrefixMerchant, now), Name: "M", CreatedAt: now}
	shop := &payd.Shop{ID: ids.NewFor(payd.PrefixShop, now, m.ID), MerchantID: m.ID, Region: payd.RegionRU, Name: "S",
		DefaultCurrency: money.RUB, CreatedAt: now}
	po := &payd.Payout{ID: ids.NewFor(payd.PrefixPayout, now, m.ID), ShopID: shop.ID, MerchantID: m.ID, Test: true,
		Status: payd.PayoutProcessing, Amount: money.New(10000, money.RUB), Fee: 50, CreatedAt: now}
	acct := func(b ledger.Bucket, sub string) ledger.Account {
		return ledger.Account{Owner: m.ID, Test: true, Currency: money.RUB, Bucket: b, Sub: sub}
	}
	post := func(amount int64) {
		t.Helper()
		err := store.Tx(ctx, func(tx payd.Tx) error {
			return tx.LedgerPost(ctx, &ledger.Entry{ID: ids.NewFor(payd.PrefixEntry, now, m.ID), At: now, Kind: "test", RefType: "payout", RefID: po.ID,
				Postings: ledger.Move(acct(ledger.Available, ""), acct(ledger.PendingPayouts, po.ID), amount)})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	check := func(want string) {
		t.Helper()
		problems, err := svc.CheckLedger(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(problems, "; ")
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Fatalf("problems %q, want %q", got, want)
		}
	}
	if err := store.Tx(ctx, func(tx payd.Tx) error {
		if err := tx.MerchantInsert(ctx, m); err != nil {
			return err
		}
		if err := tx.ShopInsert(ctx, shop); err != nil {
			return err
		}
		return tx.PayoutInsert(ctx, po)
	}); err != nil {
		t.Fatal(err)
	}
	// available may go negative here: the check reads holds, not funds.
	post(10000)
	check(po.ID + ": pending_payouts part 10000, want 10050")
	post(50)
	check("")
	po.Status = payd.PayoutSucceeded
	if err := store.Tx(ctx, func(tx payd.Tx) error { return tx.PayoutUpdate(ctx, po) }); err != nil {
		t.Fatal(err)
	}
	check(po.ID + ": pending_payouts part 10050, want 0")
}

// TestCheckLedgerTotals changes a running total behind the service's back
// (raw SQL through the store's own transaction, as a bug or a hand edit
// would): the check must name the account and the bucket whose totals no
// longer match their postings, and nothing else.
func TestCheckLedgerTotals(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := t.Context()
		store, err := sqlstore.Open(ctx, b.DatabaseURL(t), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		if _, err := store.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		svc := payd.NewService(payd.Config{Store: store})
		ids := payd.NewIDGen()
		now := time.Now().UTC().Truncate(time.Microsecond)
		mer := ids.New(payd.PrefixMerchant, now)
		acct := func(b ledger.Bucket, sub string) ledger.Account {
			return ledger.Account{Owner: mer, Test: true, Currency: money.RUB, Bucket: b, Sub: sub}
		}
		clearing := ledger.Account{Owner: ledger.ServiceOwner, Test: true, Currency: money.RUB, Bucket: ledger.ProviderClearing}
		err = store.Tx(ctx, func(tx payd.Tx) error {
			if err := tx.LedgerPost(ctx, &ledger.Entry{ID: ids.NewFor(payd.PrefixEntry, now, mer), At: now, Kind: "test", RefType: "test", RefID: "x",
				Postings: ledger.Move(clearing, acct(ledger.Pending, "pay_1"), 1_000)}); err != nil {
				return err
			}
			return tx.LedgerPost(ctx, &ledger.Entry{ID: ids.NewFor(payd.PrefixEntry, now, mer), At: now, Kind: "test", RefType: "test", RefID: "x",
				Postings: ledger.Move(acct(ledger.Pending, "pay_1"), acct(ledger.Available, ""), 1_000)})
		})
		if err != nil {
			t.Fatal(err)
		}
		check := func() string {
			t.Helper()
			problems, err := svc.CheckLedger(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return strings.Join(problems, "; ")
		}
		if got := check(); got != "" {
			t.Fatalf("problems %q before the damage, want none", got)
		}
		err = store.Tx(ctx, func(tx payd.Tx) error {
			raw := tx.(interface{ SQLTx() *sql.Tx }).SQLTx()
			_, err := raw.ExecContext(ctx, `UPDATE ledger_totals SET amount = amount + 250
				WHERE owner = $1 AND test = $2 AND currency = $3 AND bucket = $4`, mer, true, money.RUB, ledger.Available)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		key := acct(ledger.Available, "").Key()
		want := "running total of account " + key + " is 1250; its postings sum to 1000; " +
			"running total of bucket " + key + " (all sub-accounts) is 1250; its postings sum to 1000"
		if got := check(); got != want {
			t.Errorf("problems %q, want %q", got, want)
		}
	})
}
