package sqlstore

import (
	"context"
	"time"

	"github.com/paydhq/payd"
)

// PaymentTotals reads the payments_list index's range of the period and
// groups it; a day of a busy shop is a range scan, never the whole table.
func (t *tx) PaymentTotals(ctx context.Context, shopID string, test bool, from, to time.Time) ([]payd.PaymentTotal, error) {
	k, err := t.idKey(ctx, shopID)
	if err != nil {
		return nil, err
	}
	rows, err := t.q.QueryContext(ctx, `SELECT status, currency, COUNT(*), COALESCE(SUM(amount), 0) FROM payments
		WHERE shop_id = $1 AND test = $2 AND created_at >= $3 AND created_at < $4`+onKey(t.d, "merchant_key", 5)+`
		GROUP BY status, currency ORDER BY status, currency`, shopID, test, micros(from), micros(to), k)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []payd.PaymentTotal
	for rows.Next() {
		var pt payd.PaymentTotal
		if err := rows.Scan(&pt.Status, &pt.Currency, &pt.Count, &pt.Sum); err != nil {
			return nil, err
		}
		out = append(out, pt)
	}
	return out, rows.Err()
}
