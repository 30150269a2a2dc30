package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
)

// The store's half of a sandbox reset (payd.ResetSandbox; migration 0020).

func (t *tx) ShopSandboxResetMark(ctx context.Context, shopID string, at time.Time) (time.Time, error) {
	if err := t.fence(ctx, shopID, false); err != nil {
		return time.Time{}, err
	}
	// The fence, held exclusively, orders the markings of one shop, so
	// the mark read here is the last one set.
	var mark int64
	err := t.q.QueryRowContext(ctx, `UPDATE shops SET sandbox_reset_at =
		CASE WHEN sandbox_reset_at >= $2 THEN sandbox_reset_at + 1 ELSE $2 END
		WHERE id = $1`+onKey(t.d, "merchant_key", 3)+` RETURNING sandbox_reset_at`, shopID, micros(at), keyOf(shopID)).Scan(&mark)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, payd.ErrNoRows
	}
	return fromMicros(mark), err
}

func (t *tx) ShopSandboxResetHeld(ctx context.Context, shopID string, mark time.Time) (bool, error) {
	if err := t.fence(ctx, shopID, true); err != nil {
		return false, err
	}
	var held bool
	err := t.q.QueryRowContext(ctx, `SELECT COALESCE(sandbox_reset_at = $2, FALSE) FROM shops WHERE id = $1`+onKey(t.d, "merchant_key", 3),
		shopID, micros(mark), keyOf(shopID)).Scan(&held)
	if errors.Is(err, sql.ErrNoRows) {
		return false, payd.ErrNoRows
	}
	return held, err
}

func (t *tx) ShopSandboxResetClear(ctx context.Context, shopID string, mark time.Time) (bool, error) {
	res, err := t.exec(ctx, `UPDATE shops SET sandbox_reset_at = NULL WHERE id = $1 AND sandbox_reset_at = $2`+onKey(t.d, "merchant_key", 3),
		shopID, micros(mark), keyOf(shopID))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (t *tx) ShopSandboxResetMarked(ctx context.Context, shopID string) (bool, error) {
	var marked bool
	err := t.q.QueryRowContext(ctx, `SELECT sandbox_reset_at IS NOT NULL FROM shops WHERE id = $1`+onKey(t.d, "merchant_key", 2),
		shopID, keyOf(shopID)).Scan(&marked)
	if errors.Is(err, sql.ErrNoRows) {
		return false, payd.ErrNoRows
	}
	return marked, err
}

// SandboxBatching is how a sandbox reset sizes its batches here
// (payd.Config.SandboxBatching). On SQLite every other shop's write waits
// for the batch under way, and shares the process's CPU with it: batches
// are timed to about 10 ms, about 40 payments with their ledger or a few
// hundred events: another shop's p99 during a reset went from 68 times
// its idle one to about 2.3 times at 2*10^4 payments and 3.7 times at
// 10^5 (docs/benchmarks-history.md, "Sandbox reset: answers past the
// write timeout, batches per database"). On
// PostgreSQL a batch holds up only its own merchant's money operations
// (the merchant's row), and batches of 1,000 objects spend less on
// commits and round trips than smaller ones.
func (s *Store) SandboxBatching() payd.SandboxBatching {
	if s.d.Name() == "sqlite" {
		return payd.SandboxBatching{Size: 50, Time: 10 * time.Millisecond}
	}
	return payd.SandboxBatching{Size: 1000}
}

// fence takes the shop's sandbox fence until the transaction ends: shared
// by the changes of the shop's test data (IdempotencyLockGet of a test
// key), exclusive for setting the reset mark, which so waits for every
// change under way, and which a change that comes later waits for. A
// change reads the mark in a statement after the one that took the fence:
// under READ COMMITTED each statement has a snapshot of its own, taken
// after the previous statement ended, so it sees a mark committed while
// the fence was awaited. On PostgreSQL the shared fence goes to the
// database with the statement after it, in one round trip (pgpipe.go).
// SQLite's single writer orders the two without it.
func (t *tx) fence(ctx context.Context, shopID string, shared bool) error {
	q := t.d.fenceLock(shared)
	if q == "" {
		return nil
	}
	if shared {
		ctx = context.WithValue(ctx, keepForNext, true)
	}
	_, err := t.q.ExecContext(ctx, q, fenceKey(shopID))
	return err
}

// ids runs a query of one column of ids.
func (t *tx) ids(ctx context.Context, query string, args ...any) ([]string, error) {
	var out []string
	err := eachRow(ctx, t.q, query, args, func(r *sql.Rows) error {
		var id string
		if err := r.Scan(&id); err != nil {
			return err
		}
		out = append(out, id)
		return nil
	})
	return out, err
}

// deleteIn deletes the rows of table whose column is one of ids, bound as
// one JSON array so that the statement's text is the same for any batch,
// in the shard group of merchant key mkey.
func (t *tx) deleteIn(ctx context.Context, mkey int32, table, column string, ids []string) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	list, _ := json.Marshal(ids)
	res, err := t.exec(ctx, `DELETE FROM `+table+` WHERE `+column+` IN (`+t.d.jsonStrings(1)+`)`+onKey(t.d, "merchant_key", 2), string(list), mkey)
	if err != nil {
		return 0, fmt.Errorf("delete %s: %w", table, err)
	}
	return res.RowsAffected()
}

// resetOrder orders a batch's pick of a shop's objects (or events) as
// their list index does (shop_id, test, created_at DESC, id DESC), so that
// the pick is a walk of that index. Without an order PostgreSQL scans the
// table when the shop holds most of its rows, and each batch then reads
// again past every row the batches before it deleted, which stay in the
// heap until vacuum. The pick says "test = TRUE", not "test": SQLite
// matches an index column only to an equality, and would otherwise sort
// the shop's every row for each batch.
const resetOrder = ` ORDER BY created_at DESC, id DESC`

// pickDelete deletes a batch of the shop's test rows of table: at most
// p.Limit, picked in list order (resetOrder) by the statement that deletes
// them, which so locks only what it deletes. It returns what scan reads
// of each deleted row: its id first, then the columns of more.
func (t *tx) pickDelete(ctx context.Context, table string, p *payd.SandboxDeleteParams, mkey int32, more string,
	scan func(*sql.Rows) (string, error)) ([]string, error) {
	query := `DELETE FROM ` + table + ` WHERE id IN (SELECT id FROM ` + table + ` WHERE shop_id = $1 AND test = TRUE` +
		onKey(t.d, "merchant_key", 3) + resetOrder + ` LIMIT $2)` + onKey(t.d, "merchant_key", 3) + ` RETURNING id` + more
	args := []any{p.ShopID, p.Limit, mkey}
	if err := recordPlan(ctx, t.d, t.q, query, args); err != nil {
		return nil, err
	}
	var ids []string
	err := eachRow(ctx, t.q, query, args, func(r *sql.Rows) error {
		id, err := scan(r)
		ids = append(ids, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("delete %s: %w", table, err)
	}
	return ids, nil
}

// scanID is pickDelete's scan of a row that returns its id alone.
func scanID(r *sql.Rows) (string, error) {
	var id string
	return id, r.Scan(&id)
}

func (t *tx) SandboxDelete(ctx context.Context, p *payd.SandboxDeleteParams) (c payd.SandboxResetCounts, n int64, err error) {
	// A shop's test data is its merchant's: one shard group.
	mkey := merchantKey(p.MerchantID)
	// objects deletes a batch of one object table whose rows belong to the
	// shop's test data, with their ledger entries (refType) and the rows
	// of other tables that hang on them (deps: table and column).
	objects := func(table, refType string, deps ...[2]string) (int64, error) {
		// The objects go first, in the statement that picks them: the
		// delete locks them as a pick FOR UPDATE would, so a job changing
		// one of them (a refund's outcome and its entry) commits before
		// the entries are read, and one that comes later finds the object
		// gone. Then the merchant's row, as every money operation on an
		// object takes them (the object's, then the merchant's, which a
		// refund's decision takes last): a movement of the merchant's
		// money under way commits before the entries' sums come off its
		// totals. Nothing refers to an object by a foreign key, so what
		// hangs on it may go after it in the same transaction.
		var ids []string
		var err error
		if table == "payments" {
			ids, err = t.deletePayments(ctx, p, mkey)
		} else {
			ids, err = t.pickDelete(ctx, table, p, mkey, "", scanID)
		}
		if err != nil || len(ids) == 0 {
			return 0, err
		}
		if err := t.MerchantLock(ctx, p.MerchantID); err != nil {
			return 0, err
		}
		if refType != "" {
			if c.LedgerEntries, err = t.LedgerEntriesDelete(ctx, refType, ids); err != nil {
				return 0, err
			}
		}
		for _, d := range deps {
			if _, err := t.deleteIn(ctx, mkey, d[0], d[1], ids); err != nil {
				return 0, err
			}
		}
		return int64(len(ids)), nil
	}
	switch p.Kind {
	case payd.SandboxRefunds:
		c.Refunds, err = objects("refunds", "refund")
		n = c.Refunds
	case payd.SandboxEvidenceFiles:
		// Files written before their shop was kept beside them (0014)
		// are found by their dispute.
		var ids []string
		ids, err = t.ids(ctx, `SELECT id FROM evidence_files WHERE ((shop_id = $1 AND test)
			OR dispute_id IN (SELECT id FROM disputes WHERE shop_id = $1 AND test`+onKey(t.d, "merchant_key", 3)+`))`+
			onKey(t.d, "merchant_key", 3)+` LIMIT $2`, p.ShopID, p.Limit, mkey)
		if err == nil {
			_, err = t.deleteIn(ctx, mkey, "evidence_chunks", "file_id", ids)
		}
		if err == nil {
			c.EvidenceFiles, err = t.deleteIn(ctx, mkey, "evidence_files", "id", ids)
		}
		n = c.EvidenceFiles
	case payd.SandboxDisputes:
		c.Disputes, err = objects("disputes", "dispute")
		n = c.Disputes
	case payd.SandboxPayouts:
		c.Payouts, err = objects("payouts", "payout")
		n = c.Payouts
	case payd.SandboxPaymentLinks:
		c.PaymentLinks, err = objects("payment_links", "", [2]string{"link_payments", "link_id"})
		n = c.PaymentLinks
	case payd.SandboxPayments:
		c.Payments, err = objects("payments", "payment", [2]string{"sandbox_attempts", "payment_id"}, [2]string{"link_payments", "payment_id"})
		n = c.Payments
		if err == nil && n < int64(p.Limit) {
			// The last batch: the day totals are all zero now, in
			// rows that would otherwise stay.
			err = t.dropPayTotals(ctx, p.ShopID, mkey)
		}
	case payd.SandboxSettlements:
		// Registers are the merchant's, of all its shops.
		// The merchant's row first, as the settlement run takes it before
		// it writes a register: one under way commits before the
		// registers are read.
		if err = t.MerchantLock(ctx, p.MerchantID); err != nil {
			break
		}
		var ids []string
		if ids, err = t.ids(ctx, `SELECT id FROM settlements WHERE merchant_id = $1 AND test `+onKey(t.d, "merchant_key", 3)+` LIMIT $2`+t.d.forUpdate(), p.MerchantID, p.Limit, keyOf(p.MerchantID)); err != nil {
			break
		}
		if c.LedgerEntries, err = t.LedgerEntriesDelete(ctx, "settlement", ids); err != nil {
			break
		}
		if c.Settlements, err = t.deleteIn(ctx, mkey, "settlements", "id", ids); err != nil {
			break
		}
		n = c.Settlements
		if n < int64(p.Limit) {
			// The last batch: the test contour's deposit movements,
			// which registers withheld and released.
			var more int64
			more, err = t.LedgerEntriesDelete(ctx, "merchant", []string{p.MerchantID})
			c.LedgerEntries += more
		}
	case payd.SandboxEvents:
		// The events first, then their deliveries and attempt logs.
		var ids []string
		if ids, err = t.pickDelete(ctx, "events", p, mkey, "", scanID); err != nil {
			break
		}
		if _, err = t.deleteIn(ctx, mkey, "delivery_attempts", "event_id", ids); err != nil {
			break
		}
		if c.WebhookDeliveries, err = t.deleteIn(ctx, mkey, "webhook_deliveries", "event_id", ids); err != nil {
			break
		}
		c.Events = int64(len(ids))
		n = c.Events
	case payd.SandboxIdempotency:
		var res sql.Result
		res, err = t.exec(ctx, `DELETE FROM idempotency_keys WHERE shop_id = $1 AND mode = $2`+onKey(t.d, "merchant_key", 4)+` AND idem_key IN
			(SELECT idem_key FROM idempotency_keys WHERE shop_id = $1 AND mode = $2`+onKey(t.d, "merchant_key", 4)+` LIMIT $3)`,
			p.ShopID, payd.ModeTest, p.Limit, mkey)
		if err == nil {
			c.IdempotencyRecords, err = res.RowsAffected()
		}
		n = c.IdempotencyRecords
	default:
		return c, 0, fmt.Errorf("sandbox delete: unknown kind %q", p.Kind)
	}
	return c, n, err
}

// LedgerEntriesDelete is the one statement group that removes entries from
// the ledger (store.go). It deletes the postings, reading them as they go,
// then their entries, takes their sums off the running totals in the way a
// posting adds them (addTotals: slots no other transaction holds, a new one
// named after the batch otherwise), and deletes the totals left without
// any posting, which the ledger check would otherwise report. Each step is
// one statement for the whole batch.
// Only test entries are ever deleted: an entry with a live posting is left
// alone.
func (t *tx) LedgerEntriesDelete(ctx context.Context, refType string, refIDs []string) (int64, error) {
	if len(refIDs) == 0 {
		return 0, nil
	}
	list, _ := json.Marshal(refIDs)
	// The objects of one call are one merchant's.
	mkey, err := t.idKey(ctx, refIDs[0])
	if err != nil {
		return 0, err
	}
	// The postings go in the statement that finds them: their entries'
	// ids and the sums to take off the totals come back from the delete.
	var entries []string
	seen := map[string]bool{}
	var postings []ledger.Posting
	err = eachRow(ctx, t.q, `DELETE FROM ledger_postings WHERE entry_id IN (SELECT e.id FROM ledger_entries e
			WHERE e.ref_type = $1 AND e.ref_id IN (`+t.d.jsonStrings(2)+`)`+onKey(t.d, "e.merchant_key", 3)+`
				AND NOT EXISTS (SELECT 1 FROM ledger_postings l WHERE l.entry_id = e.id AND l.merchant_key = e.merchant_key AND NOT l.test))`+
		onKey(t.d, "merchant_key", 3)+`
		RETURNING entry_id, owner, test, currency, bucket, sub, amount`, []any{refType, string(list), mkey}, func(r *sql.Rows) error {
		var id string
		var a ledger.Account
		var amount int64
		if err := r.Scan(&id, &a.Owner, &a.Test, &a.Currency, &a.Bucket, &a.Sub, &amount); err != nil {
			return err
		}
		if !seen[id] {
			seen[id] = true
			entries = append(entries, id)
		}
		postings = append(postings, ledger.Posting{Account: a, Amount: amount})
		return nil
	})
	if err != nil || len(entries) == 0 {
		return 0, err
	}
	// The first entry's id names the slot opened below, whatever order
	// the delete returned them in.
	slices.Sort(entries)
	n, err := t.deleteIn(ctx, mkey, "ledger_entries", "id", entries)
	if err != nil {
		return 0, err
	}
	// Totals left without postings go (most of a reset's: each payment's
	// own sub-accounts); the few others, the buckets and the service's
	// accounts, have the sums taken off as a posting adds them.
	deltas := totalsOf(postings)
	emptied, err := t.dropEmptyTotals(ctx, mkey, deltas)
	if err != nil {
		return 0, err
	}
	rest := map[totalKey]int64{}
	for k, v := range deltas {
		if !emptied[k] && v != 0 {
			rest[k] = -v
		}
	}
	return n, t.addTotals(ctx, mkey, "reset:"+entries[0], rest)
}

// dropEmptyTotals deletes the totals among keys whose account or bucket
// has no posting left, and returns them. The accounts, nearly all of a
// batch's keys (each object's own sub-accounts), go in one statement per
// contour: the keys are bound as one JSON array of rows, and each row's
// probe of the postings is correlated to it, so that it stays a walk of
// the postings' index of account keys and the delete a walk of the
// totals' primary key, however many rows either table holds (a list of
// keys matched as a set was planned by PostgreSQL as a scan of every
// posting). A bucket, of which a batch touches a few, is probed through
// the index of owner, contour, currency and bucket.
//
// On a cluster, "no posting left" is within the shard group of merchant
// key mkey, whose part of the service's totals it is.
func (t *tx) dropEmptyTotals(ctx context.Context, mkey int32, deltas map[totalKey]int64) (map[totalKey]bool, error) {
	empty := map[totalKey]bool{}
	accounts := map[bool][][5]string{}
	var buckets []totalKey
	for k := range deltas {
		if k.kind == totalAccount {
			key := ledger.Account{Owner: k.owner, Test: k.test, Currency: k.currency, Bucket: k.bucket, Sub: k.sub}.Key()
			accounts[k.test] = append(accounts[k.test], [5]string{k.owner, string(k.currency), string(k.bucket), k.sub, key})
			continue
		}
		buckets = append(buckets, k)
	}
	for test, rows := range accounts {
		// In key order: the totals' rows are locked in the order
		// addTotals locks them.
		slices.SortFunc(rows, func(a, b [5]string) int { return slices.Compare(a[:4], b[:4]) })
		list, _ := json.Marshal(rows)
		err := eachRow(ctx, t.q, `DELETE FROM ledger_totals WHERE kind = $1 AND test = $2`+onKey(t.d, "merchant_key", 4)+`
			AND (owner, currency, bucket, sub) IN (SELECT k.v->>0, k.v->>1, k.v->>2, k.v->>3 FROM `+t.d.jsonArrays(3)+`
				WHERE NOT EXISTS (SELECT 1 FROM ledger_postings p WHERE p.account_key = k.v->>4`+onKey(t.d, "p.merchant_key", 4)+`))
			RETURNING owner, currency, bucket, sub`, []any{totalAccount, test, string(list), mkey}, func(r *sql.Rows) error {
			k := totalKey{kind: totalAccount, test: test}
			if err := r.Scan(&k.owner, &k.currency, &k.bucket, &k.sub); err != nil {
				return err
			}
			empty[k] = true
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("drop emptied ledger totals: %w", err)
		}
	}
	slices.SortFunc(buckets, compareTotalKeys)
	for _, k := range buckets {
		var posted bool
		if err := t.q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM ledger_postings
			WHERE owner = $1 AND test = $2 AND currency = $3 AND bucket = $4`+onKey(t.d, "merchant_key", 5)+`)`,
			k.owner, k.test, k.currency, k.bucket, mkey).Scan(&posted); err != nil {
			return nil, fmt.Errorf("drop emptied ledger totals: %w", err)
		}
		if posted {
			continue
		}
		if _, err := t.exec(ctx, `DELETE FROM ledger_totals WHERE kind = $1 AND owner = $2 AND test = $3 AND currency = $4
			AND bucket = $5 AND sub = $6`+onKey(t.d, "merchant_key", 7), k.kind, k.owner, k.test, k.currency, k.bucket, k.sub, mkey); err != nil {
			return nil, fmt.Errorf("drop emptied ledger totals: %w", err)
		}
		empty[k] = true
	}
	return empty, nil
}
