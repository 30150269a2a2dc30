package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// rawTx is the backend's own transaction under tx, when it hands it out
// (sqlstore does, for the job queue); the cases below use it to damage or
// count the running totals behind the store's back.
func rawTx(tx payd.Tx) *sql.Tx {
	if r, ok := tx.(interface{ SQLTx() *sql.Tx }); ok {
		return r.SQLTx()
	}
	return nil
}

// readsEverything lets raw run the suite's own inspection of a whole
// table: a cluster under the check that merchant work touches one shard
// group (sqlstore/fanout.go) would refuse it.
func readsEverything(t *testing.T, s payd.Store, raw *sql.Tx) error {
	if dialect(s) != "postgres" {
		return nil
	}
	_, err := raw.ExecContext(t.Context(), `SELECT set_config('citus.multi_task_query_log_level', 'off', true)`)
	return err
}

// mostSlots returns the largest number of slots any running total of
// sqlstore's ledger_totals has, or -1 when the backend gives no access to
// its transaction.
func mostSlots(t *testing.T, s payd.Store) int {
	t.Helper()
	n := -1
	mustTx(t, s, func(tx payd.Tx) error {
		raw := rawTx(tx)
		if raw == nil {
			return nil
		}
		if err := readsEverything(t, s, raw); err != nil {
			return err
		}
		return raw.QueryRowContext(t.Context(), `SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM ledger_totals
			GROUP BY kind, owner, test, currency, bucket, sub) x`).Scan(&n)
	})
	return n
}

// totalMismatches returns LedgerTotalMismatches in the order of their
// accounts' keys, buckets after accounts: the stores' collations may
// order the owners differently.
func totalMismatches(t *testing.T, s payd.Store) []payd.LedgerTotalMismatch {
	t.Helper()
	var got []payd.LedgerTotalMismatch
	mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.LedgerTotalMismatches(t.Context()); return err })
	slices.SortFunc(got, func(a, b payd.LedgerTotalMismatch) int {
		if a.Bucket != b.Bucket {
			return compareFalseFirst(a.Bucket, b.Bucket)
		}
		return strings.Compare(a.Account.Key(), b.Account.Key())
	})
	return got
}

func compareFalseFirst(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// testLedgerTotals checks the running totals the balance reads come from:
// the ledger check's comparison of them with the postings, and that
// concurrent postings keep them exact without waiting for each other.
func testLedgerTotals(t *testing.T, open func(t *testing.T) payd.Store) {
	// LedgerTotalMismatches feeds the ledger check. LedgerPost keeps the
	// totals right, so the damage is done in SQL, where the backend hands
	// out its transaction (as for LedgerUnbalanced).
	t.Run("Mismatches", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		mer := newID(payd.PrefixMerchant, now)
		clr, fees := sacct(true, money.RUB, ledger.ProviderClearing), sacct(true, money.RUB, ledger.Fees)
		pend1, pend2 := macct(mer, true, money.RUB, ledger.Pending, "pay_1"), macct(mer, true, money.RUB, ledger.Pending, "pay_2")
		avail, dep := macct(mer, true, money.RUB, ledger.Available, ""), macct(mer, true, money.RUB, ledger.Deposit, "")
		if got := totalMismatches(t, s); len(got) != 0 {
			t.Errorf("LedgerTotalMismatches of an empty ledger = %v, want none", got)
		}
		postEntries(t, s,
			newEntry(now, "capture", ledger.Move(clr, pend1, 10_000), ledger.Move(pend1, fees, 300)),
			newEntry(now, "capture", ledger.Move(clr, pend2, 5_000)),
			newEntry(now, "pending_released", ledger.Move(pend1, avail, 9_700)),
			// Postings that cancel out in a bucket leave its total at 0.
			newEntry(now, "correction", ledger.Move(pend2, pend1, 1)),
			newEntry(now, "capture", ledger.Move(sacct(false, money.KZT, ledger.ProviderClearing),
				macct(mer, false, money.KZT, ledger.Reserve, "pay_3"), money.MaxMinor)),
		)
		// Two entries of one transaction add to the same slots.
		mustTx(t, s, func(tx payd.Tx) error {
			if err := tx.LedgerPost(ctx, newEntry(now, "deposit_withheld", ledger.Move(avail, dep, 700))); err != nil {
				return err
			}
			return tx.LedgerPost(ctx, newEntry(now, "deposit_released", ledger.Move(dep, avail, 200)))
		})
		if got := totalMismatches(t, s); len(got) != 0 {
			t.Errorf("LedgerTotalMismatches after postings through the store = %v, want none", got)
		}
		if n := mostSlots(t, s); n > 1 {
			t.Errorf("a total has %d slots after postings that never ran at once; want 1", n)
		}

		var raw bool
		mustTx(t, s, func(tx payd.Tx) error {
			sqlTx := rawTx(tx)
			if raw = sqlTx != nil; !raw {
				return nil
			}
			if err := readsEverything(t, s, sqlTx); err != nil {
				return err
			}
			// The deposit's total gains 7 that no posting made.
			if _, err := sqlTx.ExecContext(ctx, `UPDATE ledger_totals SET amount = amount + 7
				WHERE kind = 'account' AND owner = $1 AND test = $2 AND currency = $3 AND bucket = $4 AND sub = $5`,
				dep.Owner, dep.Test, dep.Currency, dep.Bucket, dep.Sub); err != nil {
				return err
			}
			// The pending bucket loses its total.
			if _, err := sqlTx.ExecContext(ctx, `DELETE FROM ledger_totals
				WHERE kind = 'bucket' AND owner = $1 AND test = $2 AND currency = $3 AND bucket = $4`,
				mer, true, money.RUB, ledger.Pending); err != nil {
				return err
			}
			// A total of an account that never had a posting.
			if _, err := sqlTx.ExecContext(ctx, `INSERT INTO ledger_totals (kind, owner, test, currency, bucket, sub, slot, amount)
				VALUES ('account', $1, $2, $3, $4, '', 'x', 5)`, mer, true, money.USD, ledger.Available); err != nil {
				return err
			}
			// A posting written without its totals.
			e := newEntry(now, "capture", ledger.Move(fees, clr, 40))
			if _, err := sqlTx.ExecContext(ctx, `INSERT INTO ledger_entries (id, at, kind, ref_type, ref_id) VALUES ($1, $2, 'capture', 'test', 'x')`,
				e.ID, now.UnixMicro()); err != nil {
				return err
			}
			for i, p := range e.Postings {
				a := p.Account
				if _, err := sqlTx.ExecContext(ctx, `INSERT INTO ledger_postings
					(entry_id, seq, account_key, owner, test, currency, bucket, sub, amount, at)
					VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
					e.ID, i, a.Key(), a.Owner, a.Test, a.Currency, a.Bucket, a.Sub, p.Amount, now.UnixMicro()); err != nil {
					return err
				}
			}
			return nil
		})
		if !raw {
			t.Skip("the backend gives no access to its transaction; only exact totals were checked")
		}
		bucketOf := func(a ledger.Account) ledger.Account { a.Sub = ""; return a }
		want := []payd.LedgerTotalMismatch{
			{Account: dep, Total: 507, Postings: 500, Stored: true, Posted: true},
			{Account: macct(mer, true, money.USD, ledger.Available, ""), Total: 5, Stored: true},
			{Account: clr, Total: -15_000, Postings: -14_960, Stored: true, Posted: true},
			{Account: fees, Total: 300, Postings: 260, Stored: true, Posted: true},
			{Account: clr, Bucket: true, Total: -15_000, Postings: -14_960, Stored: true, Posted: true},
			{Account: fees, Bucket: true, Total: 300, Postings: 260, Stored: true, Posted: true},
			{Account: bucketOf(pend1), Bucket: true, Postings: 5_000, Posted: true},
		}
		slices.SortFunc(want, func(a, b payd.LedgerTotalMismatch) int {
			if a.Bucket != b.Bucket {
				return compareFalseFirst(a.Bucket, b.Bucket)
			}
			return strings.Compare(a.Account.Key(), b.Account.Key())
		})
		wantDiff(t, "LedgerTotalMismatches after damage behind the store's back", want, totalMismatches(t, s))
	})

	// An entry may move many accounts: a dispute's cascade takes from the
	// reserve part of every payment it needs. Past what one statement of
	// either database can bind, postings and totals must still all be
	// written.
	t.Run("LargeEntry", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		mer := newID(payd.PrefixMerchant, now)
		clr := sacct(true, money.RUB, ledger.ProviderClearing)
		held := macct(mer, true, money.RUB, ledger.Disputed, "dsp_1")
		const parts = 1_500
		capture := newEntry(now, "capture")
		cascade := newEntry(now, "dispute_hold")
		for i := range parts {
			res := macct(mer, true, money.RUB, ledger.Reserve, fmt.Sprintf("pay_%04d", i))
			capture.Postings = append(capture.Postings, ledger.Move(clr, res, 10)...)
			cascade.Postings = append(cascade.Postings, ledger.Move(res, held, int64(1+i%2))...)
		}
		postEntries(t, s, capture, cascade)
		var buckets map[money.Currency]map[ledger.Bucket]int64
		var subs map[string]int64
		var last, disputed int64
		mustView(t, s, func(tx payd.Tx) (err error) {
			if buckets, err = tx.LedgerBuckets(ctx, mer, true); err != nil {
				return err
			}
			if subs, err = tx.LedgerSubBalances(ctx, mer, true, money.RUB, ledger.Reserve); err != nil {
				return err
			}
			if last, err = tx.LedgerAccountBalance(ctx, macct(mer, true, money.RUB, ledger.Reserve, fmt.Sprintf("pay_%04d", parts-1))); err != nil {
				return err
			}
			disputed, err = tx.LedgerAccountBalance(ctx, held)
			return err
		})
		wantDiff(t, "LedgerBuckets after entries of many accounts", map[money.Currency]map[ledger.Bucket]int64{
			money.RUB: {ledger.Reserve: 10*parts - 3*parts/2, ledger.Disputed: 3 * parts / 2},
		}, buckets)
		if len(subs) != parts || last != 8 || disputed != 3*parts/2 {
			t.Errorf("after entries of many accounts: %d reserve parts, the last at %d, disputed %d; want %d, 8 and %d",
				len(subs), last, disputed, parts, 3*parts/2)
		}
		if got := totalMismatches(t, s); len(got) != 0 {
			t.Errorf("LedgerTotalMismatches after entries of many accounts = %v, want none", got)
		}
	})

	// Many transactions post to one merchant's accounts at once, most of
	// them to the same few (available, the deposit, the pending and fees
	// buckets, the service's clearing account) and without any lock of
	// the service's around them: every total must come out exact, with no
	// more slots than transactions that ran at once. SQLite serialises the
	// transactions, which must give the same totals.
	t.Run("Concurrent", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		mer := newID(payd.PrefixMerchant, now)
		clr, fees := sacct(true, money.RUB, ledger.ProviderClearing), sacct(true, money.RUB, ledger.Fees)
		avail, dep := macct(mer, true, money.RUB, ledger.Available, ""), macct(mer, true, money.RUB, ledger.Deposit, "")
		const workers, each = 12, 15
		eachWorker(t, workers, each, func(w, i int) error {
			pend := macct(mer, true, money.RUB, ledger.Pending, fmt.Sprintf("pay_%d_%d", w, i))
			e := newEntry(now, "capture", ledger.Move(clr, pend, 1_000), ledger.Move(pend, fees, 30),
				ledger.Move(pend, avail, 970), ledger.Move(avail, dep, 10))
			return s.Tx(ctx, func(tx payd.Tx) error { return tx.LedgerPost(ctx, e) })
		})
		const n = workers * each
		var merBuckets, svcBuckets map[money.Currency]map[ledger.Bucket]int64
		var gotAvail, gotDep int64
		var availByCur map[money.Currency]int64
		mustView(t, s, func(tx payd.Tx) (err error) {
			if merBuckets, err = tx.LedgerBuckets(ctx, mer, true); err != nil {
				return err
			}
			if svcBuckets, err = tx.LedgerBuckets(ctx, ledger.ServiceOwner, true); err != nil {
				return err
			}
			if availByCur, err = tx.LedgerBucketByCurrency(ctx, mer, true, ledger.Available); err != nil {
				return err
			}
			if gotAvail, err = tx.LedgerAccountBalance(ctx, avail); err != nil {
				return err
			}
			gotDep, err = tx.LedgerAccountBalance(ctx, dep)
			return err
		})
		wantDiff(t, "LedgerBuckets of the merchant", map[money.Currency]map[ledger.Bucket]int64{
			money.RUB: {ledger.Pending: 0, ledger.Available: 960 * n, ledger.Deposit: 10 * n},
		}, merBuckets)
		wantDiff(t, "LedgerBuckets of the service", map[money.Currency]map[ledger.Bucket]int64{
			money.RUB: {ledger.ProviderClearing: -1_000 * n, ledger.Fees: 30 * n},
		}, svcBuckets)
		wantDiff(t, "LedgerBucketByCurrency of available", map[money.Currency]int64{money.RUB: 960 * n}, availByCur)
		if gotAvail != 960*n || gotDep != 10*n {
			t.Errorf("LedgerAccountBalance of available and deposit = %d and %d, want %d and %d", gotAvail, gotDep, 960*n, 10*n)
		}
		if got := totalMismatches(t, s); len(got) != 0 {
			t.Errorf("LedgerTotalMismatches after concurrent postings = %v, want none", got)
		}
		// A transaction opens a slot only when every slot its statement
		// sees is held by one of the other workers' transactions (at most
		// workers-1); under READ COMMITTED it may also miss slots opened by
		// transactions that committed after its statement began (one per
		// other worker at most). So at most 2*workers-1, and far fewer than
		// one slot per transaction, which is what the rule is about.
		if slots, most := mostSlots(t, s), 2*workers-1; slots > most {
			t.Errorf("a total has %d slots after %d transactions posted at once; want at most %d", slots, workers, most)
		}

		// The fold leaves one slot per total and every total as it was.
		var folded int
		mustTx(t, s, func(tx payd.Tx) (err error) { folded, _, err = tx.LedgerTotalsFold(ctx, 1000); return err })
		if slots := mostSlots(t, s); slots > 1 {
			t.Errorf("a total has %d slots after LedgerTotalsFold (%d folded); want 1", slots, folded)
		}
		var folds map[money.Currency]map[ledger.Bucket]int64
		mustView(t, s, func(tx payd.Tx) (err error) { folds, err = tx.LedgerBuckets(ctx, mer, true); return err })
		wantDiff(t, "LedgerBuckets of the merchant after the fold", merBuckets, folds)
		if got := totalMismatches(t, s); len(got) != 0 {
			t.Errorf("LedgerTotalMismatches after the fold = %v, want none", got)
		}
	})

	// A posting must not wait for another transaction that holds a total
	// it adds to, however long that one stays open: a busy total is never
	// a row every posting queues for. A later posting takes one free slot
	// and leaves the others; the fold takes back the spare slots nobody
	// holds, and waits for none.
	t.Run("PostingDoesNotWait", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		needPostgres(t, s, "concurrent transactions")
		ctx := t.Context()
		now := ts(time.Now())
		mer := newID(payd.PrefixMerchant, now)
		clr := sacct(true, money.RUB, ledger.ProviderClearing)
		avail := macct(mer, true, money.RUB, ledger.Available, "")
		capture := func(sub string, amount int64) *ledger.Entry {
			pend := macct(mer, true, money.RUB, ledger.Pending, sub)
			return newEntry(now, "capture", ledger.Move(clr, pend, amount), ledger.Move(pend, avail, amount))
		}
		// The totals exist before A takes them.
		postEntries(t, s, capture("pay_0", 1))
		// fold runs LedgerTotalsFold in a transaction of its own, which
		// must not wait for A's either.
		fold := func(who string) int {
			fctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			var n int
			if err := s.Tx(fctx, func(tx payd.Tx) (err error) { n, _, err = tx.LedgerTotalsFold(fctx, 1000); return err }); err != nil {
				t.Fatalf("LedgerTotalsFold %s: %v", who, err)
			}
			return n
		}

		done := make(chan error, 1)
		err := s.Tx(ctx, func(tx payd.Tx) error {
			if err := tx.LedgerPost(ctx, capture("pay_a", 100)); err != nil {
				return err
			}
			// B posts to the same totals while A's transaction is open.
			go func() {
				bctx, cancel := context.WithTimeout(ctx, 20*time.Second)
				defer cancel()
				done <- s.Tx(bctx, func(tx payd.Tx) error { return tx.LedgerPost(bctx, capture("pay_b", 20)) })
			}()
			select {
			case err := <-done:
				done <- err
			case <-time.After(20 * time.Second):
				t.Errorf("B's posting still waits after 20 s while A holds the totals; want it to take a slot of its own")
			}
			// Each shared total now has A's slot, held, and B's, free:
			// nothing to fold.
			if n := fold("while A holds its slots"); n != 0 {
				t.Errorf("LedgerTotalsFold while A holds one of two slots of each total folded %d; want 0", n)
			}
			if !foldWaiting(t, s) {
				t.Error("after a fold that found A's slots held, no total is left for the next fold")
			}
			return nil
		})
		if err != nil {
			t.Fatalf("posting A: %v", err)
		}
		if err := <-done; err != nil {
			t.Fatalf("posting B: %v", err)
		}
		if n := mostSlots(t, s); n != 2 {
			t.Errorf("totals taken by two transactions at once have at most %d slots; want 2", n)
		}
		postEntries(t, s, capture("pay_c", 3))
		if n := mostSlots(t, s); n != 2 {
			t.Errorf("after a posting that found both slots free, a total has at most %d slots; want 2 (it takes one and leaves the other)", n)
		}
		// Clearing's account and bucket, the pending bucket, available's
		// account and bucket: five totals of two slots.
		if n := fold("after both committed"); n != 5 {
			t.Errorf("LedgerTotalsFold folded %d slots; want 5", n)
		}
		if n := mostSlots(t, s); n != 1 {
			t.Errorf("after LedgerTotalsFold a total has at most %d slots; want 1", n)
		}
		if foldWaiting(t, s) {
			t.Error("after a fold that left one slot a total, totals are still left for the next fold")
		}
		var got map[money.Currency]map[ledger.Bucket]int64
		mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.LedgerBuckets(ctx, mer, true); return err })
		wantDiff(t, "LedgerBuckets after concurrent postings and the fold", map[money.Currency]map[ledger.Bucket]int64{
			money.RUB: {ledger.Pending: 0, ledger.Available: 124},
		}, got)
		if got := totalMismatches(t, s); len(got) != 0 {
			t.Errorf("LedgerTotalMismatches = %v, want none", got)
		}
	})
}

// foldWaiting reports whether any total waits for the next fold: a fold
// that may look at none says whether there are more.
func foldWaiting(t *testing.T, s payd.Store) (more bool) {
	t.Helper()
	mustTx(t, s, func(tx payd.Tx) (err error) { _, more, err = tx.LedgerTotalsFold(t.Context(), 0); return err })
	return more
}
