package storetest

import (
	"database/sql"
	"slices"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// macct is an account of a merchant's contour; sacct one of the service.
func macct(owner string, test bool, c money.Currency, b ledger.Bucket, sub string) ledger.Account {
	return ledger.Account{Owner: owner, Test: test, Currency: c, Bucket: b, Sub: sub}
}

func sacct(test bool, c money.Currency, b ledger.Bucket) ledger.Account {
	return ledger.Account{Owner: ledger.ServiceOwner, Test: test, Currency: c, Bucket: b}
}

// newEntry is an entry at at made of the moves given.
func newEntry(at time.Time, kind ledger.EntryKind, moves ...[]ledger.Posting) *ledger.Entry {
	e := &ledger.Entry{ID: newID(payd.PrefixEntry, at), At: at, Kind: kind, RefType: "test", RefID: string(kind)}
	for _, m := range moves {
		e.Postings = append(e.Postings, m...)
	}
	return e
}

// postEntries writes each entry in a transaction of its own.
func postEntries(t *testing.T, s payd.Store, entries ...*ledger.Entry) {
	t.Helper()
	for _, e := range entries {
		mustTx(t, s, func(tx payd.Tx) error { return tx.LedgerPost(t.Context(), e) })
	}
}

// bigSum is eleven times the largest amount: past 2^53, so a sum that went
// through a float64 anywhere would lose its last digit.
const bigSum = 11 * money.MaxMinor

func testLedger(t *testing.T, open func(t *testing.T) payd.Store) {
	// The balances the service reads (the Balance object, refund and
	// payout checks, the settlement run) are exact integer sums of the
	// postings of one account, one bucket or one contour.
	t.Run("Balances", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		mer, other := newID(payd.PrefixMerchant, now), newID(payd.PrefixMerchant, now)
		clr, fees, payouts := sacct(true, money.RUB, ledger.ProviderClearing), sacct(true, money.RUB, ledger.Fees), sacct(true, money.RUB, ledger.Payouts)
		pend1, pend2 := macct(mer, true, money.RUB, ledger.Pending, "pay_1"), macct(mer, true, money.RUB, ledger.Pending, "pay_2")
		res1 := macct(mer, true, money.RUB, ledger.Reserve, "pay_1")
		avail, dep := macct(mer, true, money.RUB, ledger.Available, ""), macct(mer, true, money.RUB, ledger.Deposit, "")
		refunding := macct(mer, true, money.RUB, ledger.PendingRefunds, "rf_1")
		usdPend := macct(mer, true, money.USD, ledger.Pending, "pay_3")
		eurPend := macct(mer, true, money.EUR, ledger.Pending, "pay_4")
		kztRes := macct(mer, true, money.KZT, ledger.Reserve, "pay_5")
		livePend := macct(mer, false, money.RUB, ledger.Pending, "pay_9")
		big := newEntry(now, "capture")
		for range 11 {
			big.Postings = append(big.Postings, ledger.Move(sacct(true, money.KZT, ledger.ProviderClearing), kztRes, money.MaxMinor)...)
		}
		postEntries(t, s,
			newEntry(now, "capture", ledger.Move(clr, pend1, 10_000), ledger.Move(pend1, fees, 300), ledger.Move(pend1, res1, 400)),
			newEntry(now, "capture", ledger.Move(clr, pend2, 5_000)),
			newEntry(now, "pending_released", ledger.Move(pend1, avail, 9_300)),
			newEntry(now, "reserve_released", ledger.Move(res1, avail, 400)),
			newEntry(now, "deposit_withheld", ledger.Move(avail, dep, 1_000)),
			newEntry(now, "refund_created", ledger.Move(avail, refunding, 2_000)),
			newEntry(now, "settlement_paid", ledger.Move(avail, payouts, 10_000)),
			newEntry(now, "capture", ledger.Move(sacct(true, money.USD, ledger.ProviderClearing), usdPend, 777)),
			// A currency whose money all went back still moved.
			newEntry(now, "capture", ledger.Move(sacct(true, money.EUR, ledger.ProviderClearing), eurPend, 50)),
			newEntry(now, "capture_reversed", ledger.Move(eurPend, sacct(true, money.EUR, ledger.ProviderClearing), 50)),
			big,
			// Another contour and another merchant.
			newEntry(now, "capture", ledger.Move(sacct(false, money.RUB, ledger.ProviderClearing), livePend, 123)),
			newEntry(now, "capture", ledger.Move(clr, macct(other, true, money.RUB, ledger.Pending, "pay_o"), 55)),
		)

		buckets := func(owner string, test bool) (got map[money.Currency]map[ledger.Bucket]int64) {
			t.Helper()
			mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.LedgerBuckets(ctx, owner, test); return err })
			return got
		}
		// A bucket whose money all left reads 0 and a currency that ever
		// moved stays: the Balance object lists every such currency, and
		// the settlement run looks at each.
		wantDiff(t, "LedgerBuckets of the merchant's test contour", map[money.Currency]map[ledger.Bucket]int64{
			money.RUB: {ledger.Pending: 5_000, ledger.Reserve: 0, ledger.Available: -3_300, ledger.Deposit: 1_000, ledger.PendingRefunds: 2_000},
			money.USD: {ledger.Pending: 777},
			money.EUR: {ledger.Pending: 0},
			money.KZT: {ledger.Reserve: bigSum},
		}, buckets(mer, true))
		wantDiff(t, "LedgerBuckets of the merchant's live contour", map[money.Currency]map[ledger.Bucket]int64{
			money.RUB: {ledger.Pending: 123},
		}, buckets(mer, false))
		wantDiff(t, "LedgerBuckets of the service's test contour", map[money.Currency]map[ledger.Bucket]int64{
			money.RUB: {ledger.ProviderClearing: -15_055, ledger.Fees: 300, ledger.Payouts: 10_000},
			money.USD: {ledger.ProviderClearing: -777},
			money.EUR: {ledger.ProviderClearing: 0},
			money.KZT: {ledger.ProviderClearing: -bigSum},
		}, buckets(ledger.ServiceOwner, true))
		if got := buckets(newID(payd.PrefixMerchant, now), true); len(got) != 0 {
			t.Errorf("LedgerBuckets of a merchant without postings = %v, want none", got)
		}

		byCurrency := func(owner string, test bool, b ledger.Bucket) (got map[money.Currency]int64) {
			t.Helper()
			mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.LedgerBucketByCurrency(ctx, owner, test, b); return err })
			return got
		}
		wantDiff(t, "LedgerBucketByCurrency pending", map[money.Currency]int64{money.RUB: 5_000, money.USD: 777, money.EUR: 0},
			byCurrency(mer, true, ledger.Pending))
		wantDiff(t, "LedgerBucketByCurrency available", map[money.Currency]int64{money.RUB: -3_300}, byCurrency(mer, true, ledger.Available))
		wantDiff(t, "LedgerBucketByCurrency reserve", map[money.Currency]int64{money.RUB: 0, money.KZT: bigSum}, byCurrency(mer, true, ledger.Reserve))
		wantDiff(t, "LedgerBucketByCurrency live pending", map[money.Currency]int64{money.RUB: 123}, byCurrency(mer, false, ledger.Pending))
		if got := byCurrency(mer, true, ledger.Disputed); len(got) != 0 {
			t.Errorf("LedgerBucketByCurrency of a bucket without postings = %v, want none", got)
		}

		// An account is its key: a bucket's sub-accounts (one per payment)
		// are accounts of their own, not part of the bucket's main one.
		for _, c := range []struct {
			a    ledger.Account
			want int64
		}{
			{pend1, 0}, {pend2, 5_000}, {macct(mer, true, money.RUB, ledger.Pending, ""), 0},
			{res1, 0}, {avail, -3_300}, {dep, 1_000}, {refunding, 2_000},
			{usdPend, 777}, {eurPend, 0}, {kztRes, bigSum}, {livePend, 123},
			{clr, -15_055}, {fees, 300}, {payouts, 10_000},
			{macct(mer, true, money.RUB, ledger.Disputed, ""), 0},
		} {
			var got int64
			mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.LedgerAccountBalance(ctx, c.a); return err })
			if got != c.want {
				t.Errorf("LedgerAccountBalance(%s) = %d, want %d", c.a.Key(), got, c.want)
			}
		}

		// A transaction reads its own postings (the service checks a
		// balance after moving money, before it commits), and a rollback
		// takes them back.
		err := s.Tx(ctx, func(tx payd.Tx) error {
			if err := tx.LedgerPost(ctx, newEntry(now, "deposit_withheld", ledger.Move(avail, dep, 1))); err != nil {
				return err
			}
			got, err := tx.LedgerAccountBalance(ctx, dep)
			if err != nil {
				return err
			}
			if got != 1_001 {
				t.Errorf("LedgerAccountBalance of the deposit inside the transaction that posted = %d, want 1001", got)
			}
			byCur, err := tx.LedgerBucketByCurrency(ctx, mer, true, ledger.Available)
			if err != nil {
				return err
			}
			wantDiff(t, "LedgerBucketByCurrency inside the transaction that posted", map[money.Currency]int64{money.RUB: -3_301}, byCur)
			return errRollback
		})
		wantErr(t, "the transaction rolled back on purpose", err, errRollback)
		wantDiff(t, "LedgerBuckets after the rollback", map[money.Currency]map[ledger.Bucket]int64{
			money.RUB: {ledger.Pending: 5_000, ledger.Reserve: 0, ledger.Available: -3_300, ledger.Deposit: 1_000, ledger.PendingRefunds: 2_000},
			money.USD: {ledger.Pending: 777},
			money.EUR: {ledger.Pending: 0},
			money.KZT: {ledger.Reserve: bigSum},
		}, buckets(mer, true))
	})

	t.Run("Post", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		mer := newID(payd.PrefixMerchant, now)
		avail, dep := macct(mer, true, money.RUB, ledger.Available, ""), macct(mer, true, money.RUB, ledger.Deposit, "")

		// The store is the last guard of the ledger: an entry that does
		// not balance, mixes currencies or moves nothing is refused, and
		// nothing of it is kept.
		usdDep := macct(mer, true, money.USD, ledger.Deposit, "")
		for _, c := range []struct {
			name string
			e    *ledger.Entry
			want error
		}{
			{"unbalanced", &ledger.Entry{ID: newID(payd.PrefixEntry, now), At: now, Kind: "bad", RefType: "test", RefID: "x",
				Postings: []ledger.Posting{{Account: avail, Amount: -100}, {Account: dep, Amount: 99}}}, ledger.ErrUnbalanced},
			{"two currencies", &ledger.Entry{ID: newID(payd.PrefixEntry, now), At: now, Kind: "bad", RefType: "test", RefID: "x",
				Postings: []ledger.Posting{{Account: avail, Amount: -100}, {Account: usdDep, Amount: 100}}}, ledger.ErrCurrencies},
			{"no postings", &ledger.Entry{ID: newID(payd.PrefixEntry, now), At: now, Kind: "bad", RefType: "test", RefID: "x"}, ledger.ErrEmpty},
		} {
			err := s.Tx(ctx, func(tx payd.Tx) error { return tx.LedgerPost(ctx, c.e) })
			wantErr(t, "LedgerPost of an entry with "+c.name, err, c.want)
		}
		var entries []*ledger.Entry
		mustView(t, s, func(tx payd.Tx) (err error) {
			entries, err = tx.LedgerEntriesOf(ctx, mer, true, money.RUB, now.Add(-time.Hour), now.Add(time.Hour))
			return err
		})
		if len(entries) != 0 {
			t.Errorf("LedgerEntriesOf after refused entries: %d entries, want none", len(entries))
		}

		// Entries are never edited: a second entry of an id is refused and
		// the first stays as it was.
		first := newEntry(now, "deposit_withheld", ledger.Move(avail, dep, 500))
		postEntries(t, s, first)
		again := newEntry(now, "deposit_withheld", ledger.Move(avail, dep, 700))
		again.ID = first.ID
		wantErr(t, "LedgerPost of a taken entry id", s.Tx(ctx, func(tx payd.Tx) error { return tx.LedgerPost(ctx, again) }), payd.ErrConflict)
		var got int64
		mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.LedgerAccountBalance(ctx, dep); return err })
		if got != 500 {
			t.Errorf("LedgerAccountBalance of the deposit after the refused repeat = %d, want 500", got)
		}
	})

	// LedgerEntriesOf is what a register is computed from: every entry
	// that moves the merchant's money of one contour and currency in the
	// period, whole (with the service's side of each move), in time order,
	// each once.
	t.Run("EntriesOf", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		from := ts(time.Date(2026, 3, 1, 21, 0, 0, 0, time.UTC))
		to := from.Add(24 * time.Hour)
		mer := newID(payd.PrefixMerchant, from)
		clr, fees := sacct(true, money.RUB, ledger.ProviderClearing), sacct(true, money.RUB, ledger.Fees)
		pend := macct(mer, true, money.RUB, ledger.Pending, "pay_1")
		avail, dep := macct(mer, true, money.RUB, ledger.Available, ""), macct(mer, true, money.RUB, ledger.Deposit, "")

		atStart := newEntry(from, "capture", ledger.Move(clr, pend, 10_000), ledger.Move(pend, fees, 300))
		// Both sides are the merchant's: the entry is still returned once.
		inside := newEntry(from.Add(time.Hour), "deposit_withheld", ledger.Move(avail, dep, 1_000))
		// Two entries of one moment come in id order; the one with the
		// greater id is written first. (Ids of one moment made by parallel
		// tests need not increase.)
		tied := from.Add(2 * time.Hour)
		tiedA, tiedB := newEntry(tied, "pending_released", ledger.Move(pend, avail, 9_700)), newEntry(tied, "deposit_released", ledger.Move(dep, avail, 1))
		if tiedB.ID < tiedA.ID {
			tiedA, tiedB = tiedB, tiedA
		}
		lastIn := newEntry(to.Add(-time.Microsecond), "refund_created", ledger.Move(avail, macct(mer, true, money.RUB, ledger.PendingRefunds, "rf_1"), 50))
		postEntries(t, s, lastIn, tiedB, atStart, tiedA, inside,
			// Out: before the period, at its end, another contour,
			// currency or merchant, and the service's own moves.
			newEntry(from.Add(-time.Microsecond), "capture", ledger.Move(clr, pend, 1)),
			newEntry(to, "capture", ledger.Move(clr, pend, 2)),
			newEntry(from.Add(time.Hour), "capture", ledger.Move(sacct(false, money.RUB, ledger.ProviderClearing), macct(mer, false, money.RUB, ledger.Pending, "pay_2"), 3)),
			newEntry(from.Add(time.Hour), "capture", ledger.Move(sacct(true, money.USD, ledger.ProviderClearing), macct(mer, true, money.USD, ledger.Pending, "pay_3"), 4)),
			newEntry(from.Add(time.Hour), "capture", ledger.Move(clr, macct(newID(payd.PrefixMerchant, from), true, money.RUB, ledger.Pending, "pay_4"), 5)),
			newEntry(from.Add(time.Hour), "fees_collected", ledger.Move(fees, clr, 6)),
		)
		var got []*ledger.Entry
		mustView(t, s, func(tx payd.Tx) (err error) {
			got, err = tx.LedgerEntriesOf(ctx, mer, true, money.RUB, from, to)
			return err
		})
		wantDiff(t, "LedgerEntriesOf", []*ledger.Entry{atStart, inside, tiedA, tiedB, lastIn}, got)

		mustView(t, s, func(tx payd.Tx) (err error) {
			got, err = tx.LedgerEntriesOf(ctx, mer, true, money.RUB, to.Add(time.Microsecond), to.Add(time.Hour))
			return err
		})
		if len(got) != 0 {
			t.Errorf("LedgerEntriesOf of a period without postings: %d entries, want none", len(got))
		}
	})

	// LedgerNegativeAccounts feeds the ledger check: a merchant's pending,
	// reserve, deposit or in-flight part may never be below zero. The
	// available balance may (a refund or a chargeback can take it there),
	// and the service's accounts are negative by design.
	t.Run("NegativeAccounts", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		negatives := func() (got []string) {
			t.Helper()
			mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.LedgerNegativeAccounts(ctx); return err })
			slices.Sort(got)
			return got
		}
		if got := negatives(); len(got) != 0 {
			t.Errorf("LedgerNegativeAccounts of an empty ledger = %v, want none", got)
		}
		m1, m2 := newID(payd.PrefixMerchant, now), newID(payd.PrefixMerchant, now)
		clr := sacct(true, money.RUB, ledger.ProviderClearing)
		payA, payB := macct(m1, true, money.RUB, ledger.Pending, "pay_a"), macct(m1, true, money.RUB, ledger.Pending, "pay_b")
		avail1 := macct(m1, true, money.RUB, ledger.Available, "")
		disputed := macct(m2, false, money.RUB, ledger.Disputed, "dsp_1")
		usdDep := macct(m2, true, money.USD, ledger.Deposit, "")
		postEntries(t, s,
			newEntry(now, "capture", ledger.Move(clr, payA, 100), ledger.Move(clr, payB, 30)),
			newEntry(now, "pending_released", ledger.Move(payA, avail1, 150), ledger.Move(payB, avail1, 30)),
			newEntry(now, "settlement_paid", ledger.Move(avail1, sacct(true, money.RUB, ledger.Payouts), 500)),
			newEntry(now, "dispute_won", ledger.Move(disputed, macct(m2, false, money.RUB, ledger.Available, ""), 20)),
			newEntry(now, "deposit_fee", ledger.Move(usdDep, sacct(true, money.USD, ledger.Fees), 1)),
			newEntry(now, "capture", ledger.Move(sacct(true, money.USD, ledger.ProviderClearing), macct(m2, true, money.USD, ledger.Reserve, "pay_c"), 9)),
		)
		want := []string{payA.Key(), disputed.Key(), usdDep.Key()}
		slices.Sort(want)
		wantDiff(t, "LedgerNegativeAccounts", want, negatives())

		// Once the part is made good it is no longer listed.
		postEntries(t, s, newEntry(now, "correction", ledger.Move(clr, payA, 50)))
		want = slices.DeleteFunc(want, func(k string) bool { return k == payA.Key() })
		wantDiff(t, "LedgerNegativeAccounts after a correction", want, negatives())
	})

	// LedgerUnbalanced feeds the ledger check. LedgerPost refuses the
	// entries it exists to find, so the damage is done behind the store's
	// back, in SQL, where the backend hands out its transaction (sqlstore
	// does, for the job queue); elsewhere only the balanced case runs.
	t.Run("Unbalanced", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		mer := newID(payd.PrefixMerchant, now)
		clr := sacct(true, money.RUB, ledger.ProviderClearing)
		pend := macct(mer, true, money.RUB, ledger.Pending, "pay_1")
		good := newEntry(now, "capture", ledger.Move(clr, pend, 1_000), ledger.Move(pend, sacct(true, money.RUB, ledger.Fees), 30))
		bad := newEntry(now, "capture", ledger.Move(clr, pend, 500))
		postEntries(t, s, good, bad, newEntry(now, "capture", ledger.Move(sacct(false, money.KZT, ledger.ProviderClearing),
			macct(mer, false, money.KZT, ledger.Pending, "pay_2"), money.MaxMinor)))
		unbalanced := func() (got []string) {
			t.Helper()
			mustView(t, s, func(tx payd.Tx) (err error) { got, err = tx.LedgerUnbalanced(ctx); return err })
			return got
		}
		if got := unbalanced(); len(got) != 0 {
			t.Errorf("LedgerUnbalanced of balanced entries = %v, want none", got)
		}

		var raw bool
		mustTx(t, s, func(tx payd.Tx) error {
			sqlTx, ok := tx.(interface{ SQLTx() *sql.Tx })
			if raw = ok && sqlTx.SQLTx() != nil; !raw {
				return nil
			}
			// A third posting of 1 makes bad sum to 1.
			_, err := sqlTx.SQLTx().ExecContext(ctx, `INSERT INTO ledger_postings
				(entry_id, seq, account_key, owner, test, currency, bucket, sub, amount, at, merchant_key)
				VALUES ($1, 2, $2, $3, $4, $5, $6, $7, 1, $8, $9)`,
				bad.ID, pend.Key(), pend.Owner, pend.Test, pend.Currency, pend.Bucket, pend.Sub, now.UnixMicro(), int32(payd.KeyOf(bad.ID)))
			return err
		})
		if !raw {
			t.Skip("the backend gives no access to its transaction; only balanced entries were checked")
		}
		wantDiff(t, "LedgerUnbalanced", []string{bad.ID}, unbalanced())

		// An entry without postings is reported too (as a count).
		mustTx(t, s, func(tx payd.Tx) error {
			_, err := tx.(interface{ SQLTx() *sql.Tx }).SQLTx().ExecContext(ctx,
				`INSERT INTO ledger_entries (id, at, kind, ref_type, ref_id, merchant_key) VALUES ($1, $2, 'capture', 'test', 'x', $3)`,
				newID(payd.PrefixEntry, now), now.UnixMicro(), int32(payd.KeyOf(suiteMerchant)))
			return err
		})
		got := unbalanced()
		if len(got) != 2 || !slices.Contains(got, bad.ID) || slices.Contains(got, good.ID) {
			t.Errorf("LedgerUnbalanced with an entry without postings = %q; want %s and one report of the empty entry", got, bad.ID)
		}
	})

	t.Run("SubBalancesAndContours", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		owner := newID(payd.PrefixMerchant, now)
		acct := func(b ledger.Bucket, sub string, test bool, c money.Currency) ledger.Account {
			return ledger.Account{Owner: owner, Test: test, Currency: c, Bucket: b, Sub: sub}
		}
		clearing := ledger.Account{Owner: ledger.ServiceOwner, Test: true, Currency: money.RUB, Bucket: ledger.ProviderClearing}
		post := func(id string, postings ...[]ledger.Posting) {
			e := &ledger.Entry{ID: newID(payd.PrefixEntry, now), At: now, Kind: "test", RefType: "test", RefID: id}
			for _, p := range postings {
				e.Postings = append(e.Postings, p...)
			}
			mustTx(t, s, func(tx payd.Tx) error { return tx.LedgerPost(ctx, e) })
		}
		post("a", ledger.Move(clearing, acct(ledger.Reserve, "pay_a", true, money.RUB), 500),
			ledger.Move(clearing, acct(ledger.Reserve, "pay_b", true, money.RUB), 300),
			ledger.Move(clearing, acct(ledger.Reserve, "pay_c", true, money.RUB), 100))
		post("b", ledger.Move(acct(ledger.Reserve, "pay_c", true, money.RUB), acct(ledger.Available, "", true, money.RUB), 100),
			ledger.Move(acct(ledger.Reserve, "pay_b", true, money.RUB), acct(ledger.Available, "", true, money.RUB), 50))
		// Other contours, currencies and buckets stay out.
		live := clearing
		live.Test = false
		post("c", ledger.Move(live, acct(ledger.Reserve, "pay_d", false, money.RUB), 70))
		usd := clearing
		usd.Currency = money.USD
		post("d", ledger.Move(usd, acct(ledger.Reserve, "pay_e", true, money.USD), 70))
		var got map[string]int64
		mustView(t, s, func(tx payd.Tx) (err error) {
			got, err = tx.LedgerSubBalances(ctx, owner, true, money.RUB, ledger.Reserve)
			return err
		})
		wantDiff(t, "LedgerSubBalances", map[string]int64{"pay_a": 500, "pay_b": 250}, got)
		// Every contour that ever held money in the bucket, emptied or not.
		var contours []payd.LedgerContour
		mustView(t, s, func(tx payd.Tx) (err error) {
			contours, err = tx.LedgerContours(ctx, ledger.Reserve)
			return err
		})
		wantDiff(t, "LedgerContours", []payd.LedgerContour{{Owner: owner, Test: false, Currency: money.RUB},
			{Owner: owner, Test: true, Currency: money.RUB}, {Owner: owner, Test: true, Currency: money.USD}}, contours)
	})
}
