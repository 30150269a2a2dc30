package sqlstore

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/paydhq/payd"
)

// SettlementDayMark inserts at once on SQLite, whose one writer waits for
// no other, and keeps the day for insertDays on PostgreSQL.
func (t *tx) SettlementDayMark(ctx context.Context, d payd.SettlementDay) error {
	if t.d.forUpdate() == "" {
		return t.insertDay(ctx, d)
	}
	if !slices.Contains(t.days, d) {
		t.days = append(t.days, d)
	}
	return nil
}

func (t *tx) insertDay(ctx context.Context, d payd.SettlementDay) error {
	_, err := t.exec(ctx, `INSERT INTO settlement_days (merchant_id, test, currency, day, merchant_key)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, d.MerchantID, d.Test, d.Currency, d.Day, keyOf(d.MerchantID))
	return err
}

// beforeCommit writes what a transaction keeps for its end: the
// settlement days it marked and what it adds to the payments' totals.
func (t *tx) beforeCommit(ctx context.Context) error {
	if err := t.insertDays(ctx); err != nil {
		return err
	}
	return t.writePayTotals(ctx)
}

// insertDays inserts the days SettlementDayMark kept, in key order, as the
// last statements before COMMIT (payd.Tx, SettlementDayMark).
func (t *tx) insertDays(ctx context.Context) error {
	slices.SortFunc(t.days, func(a, b payd.SettlementDay) int {
		return cmp.Or(strings.Compare(a.MerchantID, b.MerchantID), cmp.Compare(b2i(a.Test), b2i(b.Test)),
			strings.Compare(string(a.Currency), string(b.Currency)), strings.Compare(a.Day, b.Day))
	})
	for _, d := range t.days {
		if err := t.insertDay(ctx, d); err != nil {
			return err
		}
	}
	t.days = nil
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (t *tx) SettlementDayDelete(ctx context.Context, d payd.SettlementDay) error {
	_, err := t.exec(ctx, `DELETE FROM settlement_days WHERE merchant_id = $1 AND test = $2 AND currency = $3 AND day = $4`+onKey(t.d, "merchant_key", 5),
		d.MerchantID, d.Test, d.Currency, d.Day, keyOf(d.MerchantID))
	return err
}

// SettlementDaysBefore walks settlement_days_by_day from the key after:
// the run's read costs the days it returns, not the table.
func (t *tx) settlementDaysBefore(ctx context.Context, day string, after *payd.SettlementDay, limit int) ([]payd.SettlementDay, error) {
	var a payd.SettlementDay
	if after != nil {
		a = *after
	}
	var out []payd.SettlementDay
	err := t.readGroups(ctx, groupRead{table: "settlement_days", query: `SELECT merchant_id, test, currency, day FROM {table}
		WHERE day < $1 AND (day, merchant_id, test, currency) > ($2, $3, $4, $5)
		ORDER BY day, merchant_id, test, currency LIMIT $6`, args: []any{day, a.Day, a.MerchantID, a.Test, a.Currency, limit}},
		func(r rowScanner) error {
			var d payd.SettlementDay
			if err := r.Scan(&d.MerchantID, &d.Test, &d.Currency, &d.Day); err != nil {
				return err
			}
			out = append(out, d)
			return nil
		})
	// Read worker by worker, each worker answers a page of its own
	// (dueRows).
	slices.SortFunc(out, func(x, y payd.SettlementDay) int {
		return cmp.Or(strings.Compare(x.Day, y.Day), strings.Compare(x.MerchantID, y.MerchantID),
			cmpBool(x.Test, y.Test), cmp.Compare(x.Currency, y.Currency))
	})
	return out[:min(len(out), limit)], err
}

// cmpBool orders false before true, as SQL does.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
