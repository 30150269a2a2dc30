package sqlstore

import (
	"context"
	"database/sql"

	"github.com/paydhq/payd"
)

func (t *tx) SettlementDayMark(ctx context.Context, d payd.SettlementDay) (bool, error) {
	res, err := t.exec(ctx, `INSERT INTO settlement_days (merchant_id, test, currency, day)
		VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, d.MerchantID, d.Test, d.Currency, d.Day)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (t *tx) SettlementDayDelete(ctx context.Context, d payd.SettlementDay) error {
	_, err := t.exec(ctx, `DELETE FROM settlement_days WHERE merchant_id = $1 AND test = $2 AND currency = $3 AND day = $4`,
		d.MerchantID, d.Test, d.Currency, d.Day)
	return err
}

// SettlementDaysBefore walks settlement_days_by_day from the key after:
// the run's read costs the days it returns, not the table.
func (t *tx) SettlementDaysBefore(ctx context.Context, day string, after *payd.SettlementDay, limit int) ([]payd.SettlementDay, error) {
	var a payd.SettlementDay
	if after != nil {
		a = *after
	}
	var out []payd.SettlementDay
	err := eachRow(ctx, t.q, `SELECT merchant_id, test, currency, day FROM settlement_days
		WHERE day < $1 AND (day, merchant_id, test, currency) > ($2, $3, $4, $5)
		ORDER BY day, merchant_id, test, currency LIMIT $6`,
		[]any{day, a.Day, a.MerchantID, a.Test, a.Currency, limit},
		func(r *sql.Rows) error {
			var d payd.SettlementDay
			if err := r.Scan(&d.MerchantID, &d.Test, &d.Currency, &d.Day); err != nil {
				return err
			}
			out = append(out, d)
			return nil
		})
	return out, err
}
