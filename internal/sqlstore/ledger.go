package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// ledgerBatch is how many postings one statement writes at most: 10,000
// bound values, within the limits of both databases (PostgreSQL 65,535,
// SQLite 32,766).
const ledgerBatch = 1000

func (t *tx) LedgerPost(ctx context.Context, e *ledger.Entry) error {
	if err := e.Validate(); err != nil {
		return err
	}
	// The entry and its postings are new rows under the entry's new id:
	// they go out with the totals' first statement (later).
	if err := t.later(ctx, `INSERT INTO ledger_entries (id, at, kind, ref_type, ref_id, merchant_key) VALUES ($1, $2, $3, $4, $5, $6)`,
		e.ID, micros(e.At), string(e.Kind), e.RefType, e.RefID, keyOf(e.ID)); err != nil {
		return err
	}
	// The postings in one statement, or one per ledgerBatch of them (a
	// dispute's cascade may take from the reserve parts of many payments).
	for from := 0; from < len(e.Postings); from += ledgerBatch {
		var q strings.Builder
		q.WriteString(`INSERT INTO ledger_postings (entry_id, seq, account_key, owner, test, currency, bucket, sub, amount, at, merchant_key) VALUES `)
		var args []any
		for i := from; i < min(from+ledgerBatch, len(e.Postings)); i++ {
			a := e.Postings[i].Account
			if i > from {
				q.WriteString(", ")
			}
			q.WriteString("(" + placeholders(len(args)+1, 11) + ")")
			args = append(args, e.ID, i, a.Key(), a.Owner, a.Test, a.Currency, a.Bucket, a.Sub, e.Postings[i].Amount, micros(e.At), keyOf(e.ID))
		}
		if err := t.later(ctx, q.String(), args...); err != nil {
			return err
		}
	}
	mkey, err := t.idKey(ctx, e.ID)
	if err != nil {
		return err
	}
	return t.addTotals(ctx, mkey, e.ID, totalsOf(e.Postings))
}

// LedgerAccountBalance reads the account's total: its few slots
// (ledger_total.go).
func (t *tx) ledgerAccountBalance(ctx context.Context, a ledger.Account) (int64, error) {
	var sum *int64
	err := t.q.QueryRowContext(ctx, `SELECT SUM(amount) FROM ledger_totals
		WHERE kind = $1 AND owner = $2 AND test = $3 AND currency = $4 AND bucket = $5 AND sub = $6`+t.onOwner(a.Owner, 7),
		totalAccount, a.Owner, a.Test, a.Currency, a.Bucket, a.Sub, keyOf(a.Owner)).Scan(&sum)
	if sum == nil {
		return 0, err
	}
	return *sum, err
}

// ledgerBucketsSQL sums the bucket totals of a contour. The kind and the
// empty sub are written out, not bound, so that both databases see the
// query within ledger_totals_owner_level (migration 0025), an index of the
// owner-level totals only.
func (t *tx) ledgerBucketsSQL(owner string) string {
	return `SELECT currency, bucket, SUM(amount) FROM ledger_totals
	WHERE kind = '` + totalBucket + `' AND sub = '' AND owner = $1 AND test = $2` + t.onOwner(owner, 3) + ` GROUP BY currency, bucket`
}

// LedgerBuckets reads the bucket totals of a contour: a few rows per
// currency and bucket, whatever the number of postings or sub-accounts.
func (t *tx) ledgerBuckets(ctx context.Context, owner string, test bool) (map[money.Currency]map[ledger.Bucket]int64, error) {
	rows, err := t.q.QueryContext(ctx, t.ledgerBucketsSQL(owner), owner, test, keyOf(owner))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[money.Currency]map[ledger.Bucket]int64{}
	for rows.Next() {
		var c money.Currency
		var b ledger.Bucket
		var sum int64
		if err := rows.Scan(&c, &b, &sum); err != nil {
			return nil, err
		}
		if out[c] == nil {
			out[c] = map[ledger.Bucket]int64{}
		}
		out[c][b] = sum
	}
	return out, rows.Err()
}

// LedgerUnbalanced returns the ids of entries whose postings do not sum to
// zero, for the invariant check.
func (t *tx) ledgerUnbalanced(ctx context.Context) ([]string, error) {
	out, err := queryStrings(ctx, t.q, `SELECT entry_id FROM ledger_postings GROUP BY entry_id HAVING SUM(amount) <> 0`)
	if err != nil {
		return nil, err
	}
	var orphans int
	if err := t.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM ledger_entries e WHERE NOT EXISTS
		(SELECT 1 FROM ledger_postings p WHERE p.entry_id = e.id AND p.merchant_key = e.merchant_key)`).Scan(&orphans); err != nil {
		return nil, err
	}
	if orphans > 0 {
		out = append(out, fmt.Sprintf("%d entries without postings", orphans))
	}
	return out, nil
}

// LedgerNegativeAccounts lists the merchant accounts other than available
// whose balance is below zero: no pending, reserve or in-flight part may be.
func (t *tx) ledgerNegativeAccounts(ctx context.Context) ([]string, error) {
	return queryStrings(ctx, t.q, `SELECT account_key FROM ledger_postings
		WHERE owner <> $1 AND bucket <> $2 GROUP BY account_key HAVING SUM(amount) < 0`, ledger.ServiceOwner, ledger.Available)
}

// RefundTotals sums refunds per payment and status.
func (t *tx) refundTotals(ctx context.Context) (map[string]map[string]int64, error) {
	rows, err := t.q.QueryContext(ctx, `SELECT payment_id, status, doc FROM refunds`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]map[string]int64{}
	for rows.Next() {
		var pid, status, doc string
		if err := rows.Scan(&pid, &status, &doc); err != nil {
			return nil, err
		}
		var r struct {
			Amount struct{ Value string } `json:"amount"`
		}
		if err := json.Unmarshal([]byte(doc), &r); err != nil {
			return nil, err
		}
		v, err := money.ParseValue(r.Amount.Value)
		if err != nil {
			return nil, err
		}
		if out[pid] == nil {
			out[pid] = map[string]int64{}
		}
		out[pid][status] += v
	}
	return out, rows.Err()
}

// LedgerBucketByCurrency reads one bucket's totals of a contour, per
// currency, from the same rows as LedgerBuckets.
func (t *tx) ledgerBucketByCurrency(ctx context.Context, owner string, test bool, b ledger.Bucket) (map[money.Currency]int64, error) {
	rows, err := t.q.QueryContext(ctx, `SELECT currency, SUM(amount) FROM ledger_totals
		WHERE kind = '`+totalBucket+`' AND sub = '' AND owner = $1 AND test = $2 AND bucket = $3`+t.onOwner(owner, 4)+` GROUP BY currency`,
		owner, test, b, keyOf(owner))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[money.Currency]int64{}
	for rows.Next() {
		var c money.Currency
		var sum int64
		if err := rows.Scan(&c, &sum); err != nil {
			return nil, err
		}
		out[c] = sum
	}
	return out, rows.Err()
}
