package sqlstore

import (
	"context"
	"database/sql"

	"github.com/paydhq/payd"
)

const merchantCols = `id, name, legal_name, tax_id, settlement_delay_days, created_at, payouts_frozen, frozen_reason, frozen_at, unfrozen_at`

func scanMerchant(r interface{ Scan(...any) error }) (*payd.Merchant, error) {
	var m payd.Merchant
	var created int64
	var frozen, unfrozen sql.NullInt64
	if err := r.Scan(&m.ID, &m.Name, &m.LegalName, &m.TaxID, &m.SettlementDelayDays, &created,
		&m.PayoutsFrozen, &m.FrozenReason, &frozen, &unfrozen); err != nil {
		return nil, noRows(err)
	}
	m.CreatedAt, m.FrozenAt, m.UnfrozenAt = fromMicros(created), timePtr(frozen), timePtr(unfrozen)
	return &m, nil
}

func (t *tx) MerchantInsert(ctx context.Context, m *payd.Merchant) error {
	_, err := t.exec(ctx, `INSERT INTO merchants (`+merchantCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		m.ID, m.Name, m.LegalName, m.TaxID, m.SettlementDelayDays, micros(m.CreatedAt),
		m.PayoutsFrozen, m.FrozenReason, nullMicros(m.FrozenAt), nullMicros(m.UnfrozenAt))
	return err
}

func (t *tx) MerchantGet(ctx context.Context, id string) (*payd.Merchant, error) {
	return scanMerchant(t.q.QueryRowContext(ctx, `SELECT `+merchantCols+` FROM merchants WHERE id = $1`, id))
}

func (t *tx) MerchantList(ctx context.Context, p *payd.MerchantListParams) (payd.Page[*payd.Merchant], error) {
	return listPage(ctx, t.q, `SELECT `+merchantCols+` FROM merchants`, where{}, p.ListParams,
		func(r *sql.Rows) (*payd.Merchant, error) { return scanMerchant(r) },
		func(m *payd.Merchant) payd.Cursor { return payd.Cursor{CreatedAt: m.CreatedAt, ID: m.ID} })
}
