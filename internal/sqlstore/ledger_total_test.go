package sqlstore_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/money"
)

// TestMigration0016Backfill fills the ledger of migration 0015, which kept
// no totals, then migrates: every account and bucket gets the total of its
// postings, the balance reads answer as the sums did, the ledger check
// finds nothing, and postings after the migration add to those totals.
func TestMigration0016Backfill(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := t.Context()
		s := openUnmigrated(t, b)
		if _, err := s.MigrateTo(ctx, 15); err != nil {
			t.Fatalf("migrate to 0015: %v", err)
		}
		ids := payd.NewIDGen()
		now := time.Now().UTC().Truncate(time.Microsecond)
		mer := ids.New(payd.PrefixMerchant, now)
		acct := func(test bool, c money.Currency, b ledger.Bucket, sub string) ledger.Account {
			return ledger.Account{Owner: mer, Test: test, Currency: c, Bucket: b, Sub: sub}
		}
		svc := func(test bool, c money.Currency, b ledger.Bucket) ledger.Account {
			return ledger.Account{Owner: ledger.ServiceOwner, Test: test, Currency: c, Bucket: b}
		}
		clr, fees := svc(true, money.RUB, ledger.ProviderClearing), svc(true, money.RUB, ledger.Fees)
		pend1, pend2 := acct(true, money.RUB, ledger.Pending, "pay_1"), acct(true, money.RUB, ledger.Pending, "pay_2")
		res1, avail := acct(true, money.RUB, ledger.Reserve, "pay_1"), acct(true, money.RUB, ledger.Available, "")
		eurPend := acct(true, money.EUR, ledger.Pending, "pay_3")
		livePend := acct(false, money.RUB, ledger.Pending, "pay_4")
		entries := [][]ledger.Posting{
			append(append(ledger.Move(clr, pend1, 10_000), ledger.Move(pend1, fees, 300)...), ledger.Move(pend1, res1, 400)...),
			ledger.Move(clr, pend2, 5_000),
			ledger.Move(pend1, avail, 9_300),
			ledger.Move(res1, avail, 400),
			ledger.Move(svc(true, money.EUR, ledger.ProviderClearing), eurPend, 50),
			ledger.Move(eurPend, svc(true, money.EUR, ledger.ProviderClearing), 50),
			ledger.Move(svc(false, money.RUB, ledger.ProviderClearing), livePend, 123),
		}
		for _, postings := range entries {
			insertOldEntry(t, s, ids.New(payd.PrefixEntry, now), now, postings)
		}

		applied, err := s.MigrateTo(ctx, 16)
		if err != nil {
			t.Fatalf("migrate: %v", err)
		}
		if d := cmp.Diff([]string{"0016_ledger_totals.sql"}, applied); d != "" {
			t.Errorf("migrations applied mismatch (-want +got):\n%s", d)
		}
		if _, err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}

		type reads struct {
			Merchant, MerchantLive, Service map[money.Currency]map[ledger.Bucket]int64
			Pend1, Pend2, Avail             int64
			Mismatches                      []payd.LedgerTotalMismatch
		}
		read := func() (r reads) {
			t.Helper()
			err := s.View(ctx, func(tx payd.Tx) (err error) {
				if r.Merchant, err = tx.LedgerBuckets(ctx, mer, true); err != nil {
					return err
				}
				if r.MerchantLive, err = tx.LedgerBuckets(ctx, mer, false); err != nil {
					return err
				}
				if r.Service, err = tx.LedgerBuckets(ctx, ledger.ServiceOwner, true); err != nil {
					return err
				}
				for _, c := range []struct {
					a   ledger.Account
					out *int64
				}{{pend1, &r.Pend1}, {pend2, &r.Pend2}, {avail, &r.Avail}} {
					if *c.out, err = tx.LedgerAccountBalance(ctx, c.a); err != nil {
						return err
					}
				}
				r.Mismatches, err = tx.LedgerTotalMismatches(ctx)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		want := reads{
			Merchant: map[money.Currency]map[ledger.Bucket]int64{
				money.RUB: {ledger.Pending: 5_000, ledger.Reserve: 0, ledger.Available: 9_700},
				money.EUR: {ledger.Pending: 0},
			},
			MerchantLive: map[money.Currency]map[ledger.Bucket]int64{money.RUB: {ledger.Pending: 123}},
			Service: map[money.Currency]map[ledger.Bucket]int64{
				money.RUB: {ledger.ProviderClearing: -15_000, ledger.Fees: 300},
				money.EUR: {ledger.ProviderClearing: 0},
			},
			Pend1: 0, Pend2: 5_000, Avail: 9_700,
		}
		if d := cmp.Diff(want, read()); d != "" {
			t.Errorf("reads after the backfill mismatch (-want +got):\n%s", d)
		}

		// A posting after the migration adds to the backfilled totals.
		err = s.Tx(ctx, func(tx payd.Tx) error {
			return tx.LedgerPost(ctx, &ledger.Entry{ID: ids.New(payd.PrefixEntry, now), At: now, Kind: "test", RefType: "test", RefID: "y",
				Postings: ledger.Move(pend2, avail, 5_000)})
		})
		if err != nil {
			t.Fatal(err)
		}
		want.Merchant[money.RUB][ledger.Pending], want.Merchant[money.RUB][ledger.Available] = 0, 14_700
		want.Pend2, want.Avail = 0, 14_700
		if d := cmp.Diff(want, read()); d != "" {
			t.Errorf("reads after a posting on the backfilled totals mismatch (-want +got):\n%s", d)
		}
	})
}

// TestMigration0027Backfill: the upgrade records every slot of the
// owner-level totals that have more than one, so the first fold after it
// folds the spare slots left before it; single-slot totals and the totals
// of sub-accounts are not recorded.
func TestMigration0027Backfill(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := t.Context()
		s := openUnmigrated(t, b)
		if _, err := s.MigrateTo(ctx, 26); err != nil {
			t.Fatalf("migrate to 0026: %v", err)
		}
		for _, row := range []struct {
			kind, owner, bucket, sub, slot string
		}{
			{"bucket", "mer_a", "available", "", "ent_1"}, {"bucket", "mer_a", "available", "", "ent_2"},
			{"account", "mer_a", "available", "", "ent_1"},
			{"account", "mer_a", "pending", "pay_1", "ent_1"}, {"account", "mer_a", "pending", "pay_1", "ent_2"},
		} {
			if err := s.Exec(ctx, `INSERT INTO ledger_totals (kind, owner, test, currency, bucket, sub, slot, amount)
				VALUES ($1, $2, true, 'RUB', $3, $4, $5, 1)`, row.kind, row.owner, row.bucket, row.sub, row.slot); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.MigrateTo(ctx, 27); err != nil {
			t.Fatalf("migrate to 0027: %v", err)
		}
		rows, err := s.DB().QueryContext(ctx, `SELECT kind, owner, bucket, slot FROM ledger_totals_opened ORDER BY kind, owner, bucket, slot`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var got []string
		for rows.Next() {
			var kind, owner, bucket, slot string
			if err := rows.Scan(&kind, &owner, &bucket, &slot); err != nil {
				t.Fatal(err)
			}
			got = append(got, kind+" "+owner+" "+bucket+" "+slot)
		}
		if d := cmp.Diff([]string{"bucket mer_a available ent_1", "bucket mer_a available ent_2"}, got); d != "" {
			t.Errorf("recorded slots after migration 0027 (-want +got):\n%s", d)
		}
	})
}
