package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/paydhq/payd"
)

const merchantCols = `id, name, legal_name, tax_id, settlement_delay_days, created_at, auto_settle,
	chargeback_ratio_bps, chargeback_window_days, chargeback_min_count, require_second_factor`

func scanMerchant(r interface{ Scan(...any) error }) (*payd.Merchant, error) {
	var m payd.Merchant
	var created int64
	cb := &m.Chargeback
	if err := r.Scan(&m.ID, &m.Name, &m.LegalName, &m.TaxID, &m.SettlementDelayDays, &created, &m.AutoSettle,
		&cb.RatioBps, &cb.WindowDays, &cb.MinCount, &m.RequireSecondFactor); err != nil {
		return nil, noRows(err)
	}
	m.CreatedAt = fromMicros(created)
	return &m, nil
}

func (t *tx) MerchantInsert(ctx context.Context, m *payd.Merchant) error {
	cb := m.Chargeback
	_, err := t.exec(ctx, `INSERT INTO merchants (`+merchantCols+`, merchant_key) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		m.ID, m.Name, m.LegalName, m.TaxID, m.SettlementDelayDays, micros(m.CreatedAt), m.AutoSettle,
		cb.RatioBps, cb.WindowDays, cb.MinCount, m.RequireSecondFactor, keyOf(m.ID))
	return err
}

func (t *tx) MerchantGet(ctx context.Context, id string) (*payd.Merchant, error) {
	return scanMerchant(t.q.QueryRowContext(ctx, `SELECT `+merchantCols+` FROM merchants WHERE id = $1`+onKey(t.d, "merchant_key", 2), id, keyOf(id)))
}

func (t *tx) merchantList(ctx context.Context, p *payd.MerchantListParams) (payd.Page[*payd.Merchant], error) {
	return listPage(ctx, t, `SELECT `+merchantCols+` FROM merchants`, where{index: "merchants_list"}, p.ListParams,
		func(r *sql.Rows) (*payd.Merchant, error) { return scanMerchant(r) },
		func(m *payd.Merchant) payd.Cursor { return payd.Cursor{CreatedAt: m.CreatedAt, ID: m.ID} })
}

func (t *tx) FreezeGet(ctx context.Context, merchantID string, test bool) (*payd.Freeze, error) {
	f := payd.Freeze{MerchantID: merchantID, Test: test}
	var frozenAt, unfrozenAt sql.NullInt64
	err := t.q.QueryRowContext(ctx, `SELECT frozen, reason, frozen_at, unfrozen_at FROM payout_freezes WHERE merchant_id = $1 AND test = $2`+onKey(t.d, "merchant_key", 3),
		merchantID, test, keyOf(merchantID)).Scan(&f.Frozen, &f.Reason, &frozenAt, &unfrozenAt)
	if errors.Is(err, sql.ErrNoRows) {
		return &f, nil
	}
	if err != nil {
		return nil, err
	}
	f.FrozenAt, f.UnfrozenAt = timePtr(frozenAt), timePtr(unfrozenAt)
	return &f, nil
}

// FreezeLock takes an exclusive transaction-level advisory lock on the
// contour's freeze (a lock that needs no row: a contour never frozen has
// none), sent later; SQLite's writer holds everything already.
func (t *tx) FreezeLock(ctx context.Context, merchantID string, test bool) error {
	q := t.d.fenceLock(false)
	if q == "" {
		return nil
	}
	return t.later(ctx, q, freezeKey(merchantID, test))
}

func (t *tx) FreezePut(ctx context.Context, f *payd.Freeze) error {
	_, err := t.exec(ctx, `INSERT INTO payout_freezes (merchant_id, test, frozen, reason, frozen_at, unfrozen_at, merchant_key) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (merchant_id, test`+keyTarget(t.d)+`) DO UPDATE SET frozen = excluded.frozen, reason = excluded.reason,
		frozen_at = excluded.frozen_at, unfrozen_at = excluded.unfrozen_at`,
		f.MerchantID, f.Test, f.Frozen, f.Reason, nullMicros(f.FrozenAt), nullMicros(f.UnfrozenAt), keyOf(f.MerchantID))
	return err
}

func (t *tx) MerchantUpdate(ctx context.Context, m *payd.Merchant) error {
	cb := m.Chargeback
	return t.execOne(ctx, `UPDATE merchants SET name = $2, legal_name = $3, tax_id = $4, settlement_delay_days = $5, auto_settle = $6,
		chargeback_ratio_bps = $7, chargeback_window_days = $8, chargeback_min_count = $9, require_second_factor = $10 WHERE id = $1`+onKey(t.d, "merchant_key", 11),
		m.ID, m.Name, m.LegalName, m.TaxID, m.SettlementDelayDays, m.AutoSettle, cb.RatioBps, cb.WindowDays, cb.MinCount,
		m.RequireSecondFactor, keyOf(m.ID))
}

func (t *tx) HolidayPut(ctx context.Context, region payd.Region, day string) error {
	_, err := t.exec(ctx, `INSERT INTO holidays (region, day) VALUES ($1, $2) ON CONFLICT DO NOTHING`, region, day)
	return err
}

func (t *tx) HolidayDelete(ctx context.Context, region payd.Region, day string) error {
	return t.execOne(ctx, `DELETE FROM holidays WHERE region = $1 AND day = $2`, region, day)
}

func (t *tx) HolidayList(ctx context.Context, region payd.Region) ([]string, error) {
	rows, err := t.q.QueryContext(ctx, `SELECT day FROM holidays WHERE region = $1 ORDER BY day`, region)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}
