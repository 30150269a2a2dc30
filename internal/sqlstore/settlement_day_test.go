package sqlstore_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/sqlstore"
	"github.com/paydhq/payd/money"
)

// TestMigration0026Backfill: the upgrade records the days of the ledger's
// last sixteen days that moved a merchant's money and have no register,
// each on its region's calendar (Moscow for RUB, Almaty for KZT), so that
// the first settlement run after it registers what was due before it.
func TestMigration0026Backfill(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := t.Context()
		s := openUnmigrated(t, b)
		if _, err := s.MigrateTo(ctx, 25); err != nil {
			t.Fatalf("migrate to 0025: %v", err)
		}
		ids := payd.NewIDGen()
		// 2026-03-10 21:30 UTC is 03-11 00:30 in Moscow and 02:30 in Almaty;
		// 19:30 UTC is 03-10 22:30 in Moscow and 03-11 00:30 in Almaty.
		latest := time.Date(2026, 3, 10, 21, 30, 0, 0, time.UTC)
		a, bm := ids.New(payd.PrefixMerchant, latest), ids.New(payd.PrefixMerchant, latest)
		acct := func(owner string, test bool, c money.Currency, bucket ledger.Bucket) ledger.Account {
			return ledger.Account{Owner: owner, Test: test, Currency: c, Bucket: bucket}
		}
		clearing := func(test bool, c money.Currency) ledger.Account {
			return acct(ledger.ServiceOwner, test, c, ledger.ProviderClearing)
		}
		post := func(at time.Time, postings []ledger.Posting) {
			t.Helper()
			insertOldEntry(t, s, ids.New(payd.PrefixEntry, at), at, postings)
		}
		evening := latest.Add(-2 * time.Hour)
		post(latest, ledger.Move(clearing(true, money.RUB), acct(a, true, money.RUB, ledger.Pending), 100))
		post(evening, ledger.Move(clearing(true, money.RUB), acct(a, true, money.RUB, ledger.Pending), 100))
		post(evening, ledger.Move(clearing(false, money.KZT), acct(a, false, money.KZT, ledger.Pending), 100))
		// Fifteen days back: in; seventeen: out (its register was the old
		// run's business, two weeks back at most).
		post(latest.Add(-15*24*time.Hour), ledger.Move(clearing(true, money.RUB), acct(bm, true, money.RUB, ledger.Pending), 5))
		post(latest.Add(-17*24*time.Hour), ledger.Move(clearing(true, money.RUB), acct(bm, true, money.RUB, ledger.Pending), 5))
		// A day with a register already is not recorded.
		post(latest.Add(-3*24*time.Hour), ledger.Move(clearing(true, money.EUR), acct(bm, true, money.EUR, ledger.Pending), 7))
		if err := s.Exec(ctx, `INSERT INTO settlements (id, merchant_id, test, currency, period_from, period_to, status, created_at, doc)
			VALUES ('stl_x', $1, true, 'EUR', '2026-03-08', '2026-03-08', 'draft', 0, '{}')`, bm); err != nil {
			t.Fatalf("insert register: %v", err)
		}
		// Only the service's accounts: no merchant's day.
		post(latest, ledger.Move(clearing(true, money.USD), acct(ledger.ServiceOwner, true, money.USD, ledger.Fees), 1))

		if _, err := s.MigrateTo(ctx, 26); err != nil {
			t.Fatalf("migrate to 0026: %v", err)
		}
		var got []payd.SettlementDay
		if err := s.View(ctx, func(tx payd.Tx) (err error) {
			got, err = tx.SettlementDaysBefore(ctx, "9999-12-31", nil, 100)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		day := func(m string, test bool, c money.Currency, d string) payd.SettlementDay {
			return payd.SettlementDay{MerchantID: m, Test: test, Currency: c, Day: d}
		}
		want := []payd.SettlementDay{
			day(bm, true, money.RUB, "2026-02-24"),
			day(a, true, money.RUB, "2026-03-10"),
			day(a, false, money.KZT, "2026-03-11"),
			day(a, true, money.RUB, "2026-03-11"),
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("settlement days after migration 0026 (-want +got):\n%s", d)
		}
	})
}

// insertOldEntry writes an entry and its postings as a build before the
// migration under test did: rows alone, no totals, no recorded days.
func insertOldEntry(t *testing.T, s *sqlstore.Store, id string, at time.Time, postings []ledger.Posting) {
	t.Helper()
	ctx := t.Context()
	if err := s.Exec(ctx, `INSERT INTO ledger_entries (id, at, kind, ref_type, ref_id) VALUES ($1, $2, 'test', 'test', 'x')`,
		id, at.UnixMicro()); err != nil {
		t.Fatalf("insert old entry: %v", err)
	}
	for i, p := range postings {
		a := p.Account
		if err := s.Exec(ctx, `INSERT INTO ledger_postings (entry_id, seq, account_key, owner, test, currency, bucket, sub, amount, at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			id, i, a.Key(), a.Owner, a.Test, a.Currency, a.Bucket, a.Sub, p.Amount, at.UnixMicro()); err != nil {
			t.Fatalf("insert old posting: %v", err)
		}
	}
}
