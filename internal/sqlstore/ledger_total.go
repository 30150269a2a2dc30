package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// The running totals of the ledger (migration 0016; docs/money.md,
// "Running totals"). Every posting adds its amount to two totals in the
// transaction that writes it: its account's and its bucket's (all the
// sub-accounts of one owner, contour, currency and bucket). A total is
// kept in slots, rows whose amounts sum to it, and a transaction adds to
// a slot it alone holds:
//
//   - it locks one free slot of each total it touches, skipping those
//     another transaction holds (FOR UPDATE SKIP LOCKED; SQLite's single
//     writer holds them all, and a total there is one slot), and adds to
//     it in place;
//   - a total none of whose slots is free (or that has none yet) gets a
//     new slot named after the entry, a key no other transaction can
//     insert.
//
// So no posting ever waits for another transaction to add to a total,
// however busy the total: a merchant's pending bucket under concurrent
// captures, the service's clearing account under every merchant's. A
// new slot is opened only while every slot of its total is held by
// another transaction, so a total has at most as many slots as
// transactions ever posted to it at once (bounded by the connections open
// to the database). Under a steady load the slots are the same rows,
// updated in place (heap-only on PostgreSQL, as no indexed column
// changes): a posting that took every free slot and folded them, as an
// earlier design did, left the next ones none and made them open new
// slots, and the rows opened and deleted by the thousand left the hot
// totals' index ranges full of dead entries that every lock and read then
// stepped over (docs/benchmarks-history.md, "Slots that stay"). Spare slots are
// folded back into one by a periodic job (LedgerTotalsFold), which takes
// only the slots nobody holds.
//
// On SQLite, and for every account the service only posts to under a lock
// it already holds (the merchant's row for deposit, the payment's,
// refund's, dispute's or payout's for its own sub-account), a total is one
// slot; available, which refunds post to before they take the merchant's
// lock (docs/money.md), has more only while they do so at once.
//
// A read sums a total's slots in one statement, which sees one committed
// state (PostgreSQL takes a snapshot per statement) plus its own
// transaction's writes. A slot and the postings that made it commit in one
// transaction, so no state holds one without the other.

// The kinds of a total: one account's, or a whole bucket's (empty sub).
const (
	totalAccount = "account"
	totalBucket  = "bucket"
)

// totalKey names one running total.
type totalKey struct {
	kind     string
	owner    string
	test     bool
	currency money.Currency
	bucket   ledger.Bucket
	sub      string
}

func compareTotalKeys(a, b totalKey) int {
	return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.owner, b.owner), compareBool(a.test, b.test),
		cmp.Compare(a.currency, b.currency), cmp.Compare(a.bucket, b.bucket), cmp.Compare(a.sub, b.sub))
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// totalsOf adds up what postings move into each account and bucket they
// touch. A total whose postings cancel out is kept at 0: the bucket still
// moved, and the Balance object lists every currency and bucket that ever
// did.
func totalsOf(postings []ledger.Posting) map[totalKey]int64 {
	out := map[totalKey]int64{}
	for _, p := range postings {
		a := p.Account
		out[totalKey{totalAccount, a.Owner, a.Test, a.Currency, a.Bucket, a.Sub}] += p.Amount
		out[totalKey{totalBucket, a.Owner, a.Test, a.Currency, a.Bucket, ""}] += p.Amount
	}
	return out
}

// totalsMatch writes the condition "the row belongs to one of keys" (and,
// when slots is not nil, "is slot slots[i] of keys[i]") in the shard group
// of merchant key mkey, its placeholders numbered after those already in
// args.
func totalsMatch(d dialect, keys []totalKey, mkey int32, slots []string, args []any) (string, []any) {
	var b strings.Builder
	b.WriteString("(")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(" OR ")
		}
		n := len(args)
		fmt.Fprintf(&b, "(kind = $%d AND owner = $%d AND test = $%d AND currency = $%d AND bucket = $%d AND sub = $%d",
			n+1, n+2, n+3, n+4, n+5, n+6)
		args = append(args, k.kind, k.owner, k.test, k.currency, k.bucket, k.sub)
		if slots != nil {
			fmt.Fprintf(&b, " AND slot = $%d", n+7)
			args = append(args, slots[i])
		}
		b.WriteString(")")
	}
	b.WriteString(")")
	args = append(args, mkey)
	return b.String() + onKey(d, "merchant_key", len(args)), args
}

// addTotals adds deltas to their totals, in slots no other transaction
// holds; slot names the slot opened for a total that has none free. It is
// two statements (lock, add) per totalsBatch totals.
//
// The totals an entry moves are kept in the shard group of its merchant,
// of key mkey: a merchant's own, and its part of the service's (citus.go,
// rebuildServiceTotals).
func (t *tx) addTotals(ctx context.Context, mkey int32, slot string, deltas map[totalKey]int64) error {
	keys := make([]totalKey, 0, len(deltas))
	for k := range deltas {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareTotalKeys)
	for from := 0; from < len(keys); from += totalsBatch {
		if _, err := t.addTotalsOf(ctx, slot, mkey, keys[from:min(from+totalsBatch, len(keys))], deltas, false); err != nil {
			return err
		}
	}
	return nil
}

// totalsBatch is how many totals one statement locks or folds at most:
// SQLite parses a list of conditions joined by OR one level deeper per
// term, and refuses an expression deeper than 1,000 levels. An entry
// touches a few totals; only a long cascade takes more than one batch.
const totalsBatch = 100

// addTotalsOf is addTotals for some of the keys, at most totalsBatch.
// With fold it takes every free slot of each total instead of one, folds
// the spare ones into the first, and opens none (LedgerTotalsFold). It
// returns how many spare slots it folded.
func (t *tx) addTotalsOf(ctx context.Context, slot string, mkey int32, keys []totalKey, deltas map[totalKey]int64, fold bool) (int, error) {
	free, err := t.lockFreeSlots(ctx, keys, mkey, fold)
	if err != nil {
		return 0, fmt.Errorf("lock ledger totals: %w", err)
	}

	// Spare slots (only a fold finds any) are folded into the first:
	// deleted, their amounts added to it. The rows are this transaction's
	// now, so the amounts returned are the last committed ones.
	var spareKeys []totalKey
	var spareSlots []string
	for _, k := range keys {
		for _, s := range free[k][min(1, len(free[k])):] {
			spareKeys, spareSlots = append(spareKeys, k), append(spareSlots, s)
		}
	}
	add := map[totalKey]int64{}
	for _, k := range keys {
		add[k] = deltas[k]
	}
	for from := 0; from < len(spareKeys); from += totalsBatch {
		to := min(from+totalsBatch, len(spareKeys))
		where, args := totalsMatch(t.d, spareKeys[from:to], mkey, spareSlots[from:to], nil)
		err := eachRow(ctx, t.q, `DELETE FROM ledger_totals WHERE `+where+` RETURNING kind, owner, test, currency, bucket, sub, amount`,
			args, func(r *sql.Rows) error {
				var k totalKey
				var amount int64
				if err := r.Scan(&k.kind, &k.owner, &k.test, &k.currency, &k.bucket, &k.sub, &amount); err != nil {
					return err
				}
				add[k] += amount
				return nil
			})
		if err != nil {
			return 0, fmt.Errorf("fold ledger total slots: %w", err)
		}
	}

	// One statement adds to the slots taken and opens the new ones: a
	// taken slot's row is there (and this transaction's), so its insert
	// turns into the addition; a new slot's key exists nowhere else.
	var q strings.Builder
	q.WriteString(`INSERT INTO ledger_totals (kind, owner, test, currency, bucket, sub, slot, amount, merchant_key) VALUES `)
	var vals []any
	for _, k := range keys {
		s := slot
		switch {
		case len(free[k]) > 0 && add[k] == 0:
			continue
		case len(free[k]) > 0:
			s = free[k][0]
		case fold:
			continue
		}
		if len(vals) > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(" + placeholders(len(vals)+1, 9) + ")")
		vals = append(vals, k.kind, k.owner, k.test, k.currency, k.bucket, k.sub, s, add[k], mkey)
	}
	if len(vals) == 0 {
		return len(spareSlots), nil
	}
	q.WriteString(` ON CONFLICT (kind, owner, test, currency, bucket, sub, slot` + keyTarget(t.d) + `) DO UPDATE SET amount = ledger_totals.amount + excluded.amount`)
	// The slots are this transaction's or new under the entry's id: the
	// addition cannot fail on them, and goes out later.
	if err := t.later(ctx, q.String(), vals...); err != nil {
		return 0, fmt.Errorf("add to ledger totals: %w", err)
	}
	if !fold {
		if err := t.recordOpenedSlots(ctx, slot, mkey, keys, free); err != nil {
			return 0, err
		}
	}
	return len(spareSlots), nil
}

// recordOpenedSlots records the owner-level totals this posting opened a
// slot of (ledger_totals_opened, migration 0027), for the fold to look at:
// only a total that gained a slot can have a spare one. A slot's key is
// the posting's own (slot, the entry's id), so the record is written
// without waiting for any other transaction, and goes out with the next
// statement. Under steady load postings find a free slot and record
// nothing; a total's first slot is recorded once.
func (t *tx) recordOpenedSlots(ctx context.Context, slot string, mkey int32, keys []totalKey, free map[totalKey][]string) error {
	var q strings.Builder
	var vals []any
	for _, k := range keys {
		if len(free[k]) > 0 || k.sub != "" {
			continue
		}
		if len(vals) == 0 {
			q.WriteString(`INSERT INTO ledger_totals_opened (kind, owner, test, currency, bucket, slot, merchant_key) VALUES `)
		} else {
			q.WriteString(", ")
		}
		q.WriteString("(" + placeholders(len(vals)+1, 7) + ")")
		vals = append(vals, k.kind, k.owner, k.test, k.currency, k.bucket, slot, mkey)
	}
	if len(vals) == 0 {
		return nil
	}
	q.WriteString(` ON CONFLICT DO NOTHING`)
	if err := t.later(ctx, q.String(), vals...); err != nil {
		return fmt.Errorf("record opened ledger total slots: %w", err)
	}
	return nil
}

// lockFreeSlots locks free slots of each total and returns them by total,
// in slot order: one each, or with all every free one. On SQLite every
// slot is free (its one writer holds them all) and a total is one slot, so
// all its slots are returned either way.
func (t *tx) lockFreeSlots(ctx context.Context, keys []totalKey, mkey int32, all bool) (map[totalKey][]string, error) {
	var query string
	var args []any
	if all || t.d.Name() != "postgres" {
		var where string
		where, args = totalsMatch(t.d, keys, mkey, nil, nil)
		query = `SELECT kind, owner, test, currency, bucket, sub, slot FROM ledger_totals WHERE ` + where +
			` ORDER BY kind, owner, test, currency, bucket, sub, slot` + t.d.skipLocked()
	} else {
		// Each total's first slot nobody holds: a walk of the primary
		// key per total that stops at it, in the keys' order.
		var b strings.Builder
		b.WriteString(`SELECT k.kind, k.owner, k.test, k.currency, k.bucket, k.sub, s.slot FROM (VALUES `)
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			n := len(args)
			fmt.Fprintf(&b, "($%d, $%d, $%d::boolean, $%d, $%d, $%d)", n+1, n+2, n+3, n+4, n+5, n+6)
			args = append(args, k.kind, k.owner, k.test, k.currency, k.bucket, k.sub)
		}
		args = append(args, mkey)
		b.WriteString(`) AS k (kind, owner, test, currency, bucket, sub) CROSS JOIN LATERAL (
			SELECT slot FROM ledger_totals l WHERE l.kind = k.kind AND l.owner = k.owner AND l.test = k.test
				AND l.currency = k.currency AND l.bucket = k.bucket AND l.sub = k.sub` + onKey(t.d, "l.merchant_key", len(args)) + `
			ORDER BY l.slot LIMIT 1 FOR UPDATE SKIP LOCKED) s`)
		query = b.String()
	}
	free := map[totalKey][]string{}
	err := eachRow(ctx, t.q, query, args, func(r *sql.Rows) error {
		var k totalKey
		var s string
		if err := r.Scan(&k.kind, &k.owner, &k.test, &k.currency, &k.bucket, &k.sub, &s); err != nil {
			return err
		}
		free[k] = append(free[k], s)
		return nil
	})
	return free, err
}

// openedTotalsSQL lists the owner-level totals postings opened a slot of
// since the last fold, at most $1: a walk of ledger_totals_opened's key,
// which holds what concurrency left and nothing else.
const openedTotalsSQL = `SELECT DISTINCT kind, owner, test, currency, bucket, merchant_key FROM ledger_totals_opened
	ORDER BY kind, owner, test, currency, bucket LIMIT $1`

// LedgerTotalsFold folds the spare slots of the owner-level totals (the
// empty sub) that postings opened a slot of since the last fold: the free
// ones of each are locked, all but the first deleted and their amounts
// added to it. Slots other transactions hold are left as they are, with
// their records, for a later run; the records of totals left with one
// slot, and of slots folded away, are deleted. The totals of sub-accounts
// are left out: each is posted to under its object's lock (a payment's, a
// refund's), so it stays one slot. The fold's reads cost the slots
// concurrency opened, not the number of totals or merchants.
func (t *tx) ledgerTotalsFold(ctx context.Context, limit int) (int, bool, error) {
	var keys []totalKey
	var mkeys []int32
	err := eachRow(ctx, t.q, openedTotalsSQL, []any{limit + 1}, func(r *sql.Rows) error {
		var k totalKey
		var mkey int32
		if err := r.Scan(&k.kind, &k.owner, &k.test, &k.currency, &k.bucket, &mkey); err != nil {
			return err
		}
		keys, mkeys = append(keys, k), append(mkeys, mkey)
		return nil
	})
	if err != nil || len(keys) == 0 {
		return 0, false, err
	}
	more := len(keys) > limit
	keys = keys[:min(len(keys), limit)]
	var folded int
	zero := map[totalKey]int64{}
	// A batch is one shard group's.
	groups := map[int32][]totalKey{}
	var order []int32
	for i, k := range keys {
		if groups[mkeys[i]] == nil {
			order = append(order, mkeys[i])
		}
		groups[mkeys[i]] = append(groups[mkeys[i]], k)
	}
	for _, mkey := range order {
		group := groups[mkey]
		for from := 0; from < len(group); from += totalsBatch {
			batch := group[from:min(from+totalsBatch, len(group))]
			n, err := t.addTotalsOf(ctx, "", mkey, batch, zero, true)
			if err != nil {
				return folded, false, err
			}
			folded += n
			if err := t.forgetOpenedSlots(ctx, mkey, batch); err != nil {
				return folded, false, err
			}
		}
	}
	return folded, more, nil
}

// forgetOpenedSlots deletes the records of keys' slots that are gone, and
// all of a total's once it has one slot left.
func (t *tx) forgetOpenedSlots(ctx context.Context, mkey int32, keys []totalKey) error {
	var b strings.Builder
	var args []any
	for i, k := range keys {
		if i > 0 {
			b.WriteString(" OR ")
		}
		n := len(args)
		fmt.Fprintf(&b, "(kind = $%d AND owner = $%d AND test = $%d AND currency = $%d AND bucket = $%d)", n+1, n+2, n+3, n+4, n+5)
		args = append(args, k.kind, k.owner, k.test, k.currency, k.bucket)
	}
	args = append(args, mkey)
	n := len(args)
	sameTotal := `l.kind = o.kind AND l.owner = o.owner AND l.test = o.test AND l.currency = o.currency
		AND l.bucket = o.bucket AND l.sub = ''` + onKey(t.d, "l.merchant_key", n)
	_, err := t.exec(ctx, `DELETE FROM ledger_totals_opened AS o WHERE (`+b.String()+`)`+onKey(t.d, "o.merchant_key", n)+` AND (
		NOT EXISTS (SELECT 1 FROM ledger_totals l WHERE `+sameTotal+` AND l.slot = o.slot)
		OR (SELECT COUNT(*) FROM ledger_totals l WHERE `+sameTotal+`) <= 1)`, args...)
	if err != nil {
		return fmt.Errorf("forget folded ledger total slots: %w", err)
	}
	return nil
}

// LedgerTotalMismatches compares every running total with the postings it
// stands for, in one statement (one snapshot on PostgreSQL, where the
// check runs it in a REPEATABLE READ transaction anyway).
func (t *tx) ledgerTotalMismatches(ctx context.Context) ([]payd.LedgerTotalMismatch, error) {
	var out []payd.LedgerTotalMismatch
	err := eachRow(ctx, t.q, `SELECT kind, owner, test, currency, bucket, sub, SUM(total), SUM(posted), SUM(slots), SUM(postings)
		FROM (
			SELECT kind, owner, test, currency, bucket, sub, amount AS total, 0 AS posted, 1 AS slots, 0 AS postings FROM ledger_totals
			UNION ALL
			SELECT '`+totalAccount+`', owner, test, currency, bucket, sub, 0, amount, 0, 1 FROM ledger_postings
			UNION ALL
			SELECT '`+totalBucket+`', owner, test, currency, bucket, '', 0, amount, 0, 1 FROM ledger_postings
		) x
		GROUP BY kind, owner, test, currency, bucket, sub
		HAVING SUM(total) <> SUM(posted) OR SUM(slots) = 0 OR SUM(postings) = 0
		ORDER BY kind, owner, test, currency, bucket, sub`, nil, func(r *sql.Rows) error {
		var m payd.LedgerTotalMismatch
		var kind string
		var slots, postings int64
		if err := r.Scan(&kind, &m.Account.Owner, &m.Account.Test, &m.Account.Currency, &m.Account.Bucket, &m.Account.Sub,
			&m.Total, &m.Postings, &slots, &postings); err != nil {
			return err
		}
		m.Bucket, m.Stored, m.Posted = kind == totalBucket, slots > 0, postings > 0
		out = append(out, m)
		return nil
	})
	return out, err
}
