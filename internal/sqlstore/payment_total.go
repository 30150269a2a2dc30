package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/paydhq/payd"
)

// A shop's payments of each UTC day by contour, status and currency
// (payment_day_totals, migration 0037). A transaction gathers what its
// creations and changes of status add to them (payTotals) and writes it
// as its last statement, on PostgreSQL with the COMMIT (pgpipe.go): one
// multi-row upsert into the slot of its own server process, which no other
// transaction running at the same time writes.
//
// A total has as many slots as server processes wrote it: the pool keeps
// its connections for as long as they work (no lifetime is set), so about
// the pool's size per instance, more after a failover or a restart of
// PostgreSQL. A day's read sums them: at most a few hundred rows for a
// busy shop, and a month's (a monthly limit) some thousands, against the
// month's payments that were read before. Nothing folds them yet.

// microsPerDay turns a created_at (microseconds) into its day number.
const microsPerDay = 24 * 60 * 60 * 1_000_000

// payDay is the day number of t: days from 1970-01-01 to t's UTC day.
func payDay(t time.Time) int64 { return t.UnixMicro() / microsPerDay }

// payTotalKey is one total: a shop's payments of one contour, UTC day,
// status and currency. key is the shop's merchant key, as its payments'.
type payTotalKey struct {
	shopID   string
	test     bool
	day      int64
	status   payd.PaymentStatus
	currency string
	key      routeKey
}

// payTotalDelta is what a transaction adds to one total.
type payTotalDelta struct{ count, amount int64 }

func comparePayTotalKeys(a, b payTotalKey) int {
	return cmp.Or(strings.Compare(a.shopID, b.shopID), cmp.Compare(b2i(a.test), b2i(b.test)), cmp.Compare(a.day, b.day),
		strings.Compare(string(a.status), string(b.status)), strings.Compare(a.currency, b.currency))
}

// countPayment adds a payment to (n = 1) or takes it off (n = -1) the
// total of its status, and notes the status the transaction leaves it in.
func (t *tx) countPayment(p *payd.Payment, status payd.PaymentStatus, n int64) {
	t.addPayTotal(payTotalKey{shopID: p.ShopID, test: p.Test, day: payDay(p.CreatedAt), status: status,
		currency: string(p.Amount.Currency), key: keyOf(p.MerchantID, p.ID)}, n, n*p.Amount.Minor)
	if n > 0 {
		t.noteStatus(p.ID, status)
	}
}

func (t *tx) addPayTotal(k payTotalKey, count, amount int64) {
	if t.payTotals == nil {
		t.payTotals = map[payTotalKey]payTotalDelta{}
	}
	d := t.payTotals[k]
	d.count += count
	d.amount += amount
	t.payTotals[k] = d
}

// deletePayments deletes a batch of a sandbox reset's payments
// (pickDelete) and takes them off their day totals, as the delete returns
// them.
func (t *tx) deletePayments(ctx context.Context, p *payd.SandboxDeleteParams, mkey int32) ([]string, error) {
	return t.pickDelete(ctx, "payments", p, mkey, ", shop_id, test, created_at, status, currency, amount", func(r *sql.Rows) (string, error) {
		var id string
		k := payTotalKey{key: keyOf(p.MerchantID)}
		var created, amount int64
		if err := r.Scan(&id, &k.shopID, &k.test, &created, &k.status, &k.currency, &amount); err != nil {
			return "", err
		}
		k.day = created / microsPerDay
		t.addPayTotal(k, -1, -amount)
		return id, nil
	})
}

// dropPayTotals deletes a shop's test day totals, and what the transaction
// was to add to them: the reset's last batch of payments calls it once the
// shop has no test payment left, when every one of them sums to zero.
func (t *tx) dropPayTotals(ctx context.Context, shopID string, mkey int32) error {
	for k := range t.payTotals {
		if k.shopID == shopID && k.test {
			delete(t.payTotals, k)
		}
	}
	_, err := t.exec(ctx, `DELETE FROM payment_day_totals WHERE shop_id = $1 AND test = TRUE`+onKey(t.d, "merchant_key", 2), shopID, mkey)
	return err
}

// noteStatus remembers the status a payment has in this transaction: read
// with its row's lock, inserted or changed by it.
func (t *tx) noteStatus(id string, status payd.PaymentStatus) {
	if t.payStatus == nil {
		t.payStatus = map[string]payd.PaymentStatus{}
	}
	t.payStatus[id] = status
}

// statusBefore is the status payment p had before this transaction's
// change to it: as the transaction read it under its lock, or else read
// now, locking the row (PaymentUpdate takes no lock of its own).
func (t *tx) statusBefore(ctx context.Context, p *payd.Payment) (payd.PaymentStatus, error) {
	if s, ok := t.payStatus[p.ID]; ok {
		return s, nil
	}
	var s payd.PaymentStatus
	err := t.q.QueryRowContext(ctx, `SELECT status FROM payments WHERE id = $1`+onKey(t.d, "merchant_key", 2)+t.d.forUpdate(),
		p.ID, keyOf(p.ID)).Scan(&s)
	if err == nil {
		t.holdLock("payments", p.ID, nil)
	}
	return s, noRows(err)
}

// writePayTotals adds what the transaction gathered to its slots, in key
// order, in one statement; on PostgreSQL it goes with the COMMIT: nothing
// before it needs its answer, and if it fails the COMMIT never runs. A
// delta that came to nothing (a status changed and changed back) is left
// out.
func (t *tx) writePayTotals(ctx context.Context) error {
	keys := make([]payTotalKey, 0, len(t.payTotals))
	for k, d := range t.payTotals {
		if d != (payTotalDelta{}) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		t.payTotals = nil
		return nil
	}
	slices.SortFunc(keys, comparePayTotalKeys)
	var q strings.Builder
	q.WriteString(`INSERT INTO payment_day_totals (shop_id, test, day, status, currency, count, amount, merchant_key, slot) VALUES `)
	vals := make([]any, 0, 8*len(keys))
	for i, k := range keys {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(" + placeholders(len(vals)+1, 8) + ", " + t.d.ownSlot() + ")")
		d := t.payTotals[k]
		vals = append(vals, k.shopID, k.test, k.day, string(k.status), k.currency, d.count, d.amount, k.key)
	}
	t.payTotals = nil
	q.WriteString(` ON CONFLICT (shop_id, test, day, status, currency, slot` + keyTarget(t.d) + `) DO UPDATE
		SET count = payment_day_totals.count + excluded.count, amount = payment_day_totals.amount + excluded.amount`)
	if t.pipelined {
		ctx = context.WithValue(ctx, sendWithCommit, true)
	}
	if _, err := t.q.ExecContext(ctx, q.String(), vals...); err != nil {
		return fmt.Errorf("add to payment totals: %w", err)
	}
	return nil
}

// PaymentTotals sums the slots of the days in [from, to): a day's read
// costs its statuses, currencies and slots, never its payments.
func (t *tx) PaymentTotals(ctx context.Context, shopID string, test bool, from, to time.Time) ([]payd.PaymentTotal, error) {
	if !utcMidnight(from) || !utcMidnight(to) {
		return nil, fmt.Errorf("payment totals: %s and %s must be UTC midnights", from, to)
	}
	k, err := t.idKey(ctx, shopID)
	if err != nil {
		return nil, err
	}
	var out []payd.PaymentTotal
	err = eachRow(ctx, t.q, `SELECT status, currency, SUM(count), SUM(amount) FROM payment_day_totals
		WHERE shop_id = $1 AND test = $2 AND day >= $3 AND day < $4`+onKey(t.d, "merchant_key", 5)+`
		GROUP BY status, currency HAVING SUM(count) <> 0 ORDER BY status, currency`,
		[]any{shopID, test, payDay(from), payDay(to), k}, func(r *sql.Rows) error {
			var pt payd.PaymentTotal
			if err := r.Scan(&pt.Status, &pt.Currency, &pt.Count, &pt.Sum); err != nil {
				return err
			}
			out = append(out, pt)
			return nil
		})
	return out, err
}

func utcMidnight(t time.Time) bool { return t.UnixMicro()%microsPerDay == 0 }
