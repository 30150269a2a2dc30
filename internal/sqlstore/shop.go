package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/paydhq/payd"
)

const shopCols = `id, merchant_id, region, name, default_currency, activated_at, blocked, payments_suspended, settings, created_at`

func scanShop(r interface{ Scan(...any) error }) (*payd.Shop, error) {
	var s payd.Shop
	var activated sql.NullInt64
	var settings string
	var created int64
	if err := r.Scan(&s.ID, &s.MerchantID, &s.Region, &s.Name, &s.DefaultCurrency, &activated,
		&s.Blocked, &s.PaymentsSuspended, &settings, &created); err != nil {
		return nil, noRows(err)
	}
	if err := json.Unmarshal([]byte(settings), &s.Settings); err != nil {
		return nil, err
	}
	s.ActivatedAt, s.CreatedAt = timePtr(activated), fromMicros(created)
	return &s, nil
}

func (t *tx) ShopInsert(ctx context.Context, s *payd.Shop) error {
	settings, err := json.Marshal(s.Settings)
	if err != nil {
		return err
	}
	_, err = t.exec(ctx, `INSERT INTO shops (`+shopCols+`, merchant_key) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		s.ID, s.MerchantID, s.Region, s.Name, s.DefaultCurrency, nullMicros(s.ActivatedAt),
		s.Blocked, s.PaymentsSuspended, string(settings), micros(s.CreatedAt), keyOf(s.MerchantID))
	return err
}

func (t *tx) ShopGet(ctx context.Context, id string) (*payd.Shop, error) {
	k, err := t.idKey(ctx, id)
	if err != nil {
		return nil, err
	}
	return scanShop(t.q.QueryRowContext(ctx, `SELECT `+shopCols+` FROM shops WHERE id = $1`+onKey(t.d, "merchant_key", 2), id, k))
}

func (t *tx) ShopGetForUpdate(ctx context.Context, id string) (*payd.Shop, error) {
	k, err := t.idKey(ctx, id)
	if err != nil {
		return nil, err
	}
	return scanShop(t.q.QueryRowContext(ctx, `SELECT `+shopCols+` FROM shops WHERE id = $1`+onKey(t.d, "merchant_key", 2)+t.d.forUpdate(), id, k))
}

func (t *tx) ShopUpdate(ctx context.Context, s *payd.Shop) error {
	settings, err := json.Marshal(s.Settings)
	if err != nil {
		return err
	}
	return t.execOne(ctx, `UPDATE shops SET name = $2, default_currency = $3, activated_at = $4, blocked = $5,
		payments_suspended = $6, settings = $7 WHERE id = $1`+onKey(t.d, "merchant_key", 8),
		s.ID, s.Name, s.DefaultCurrency, nullMicros(s.ActivatedAt), s.Blocked, s.PaymentsSuspended, string(settings), keyOf(s.MerchantID))
}

func (t *tx) ShopList(ctx context.Context, p *payd.ShopListParams) (payd.Page[*payd.Shop], error) {
	w := where{index: "shops_list"}
	if p.MerchantID != "" {
		w.index = "shops_merchant"
		w.add("merchant_id = ?", p.MerchantID)
		w.addKey(t.d, merchantKey(p.MerchantID))
	}
	list := func(t *tx) (payd.Page[*payd.Shop], error) {
		return listPage(ctx, t, `SELECT `+shopCols+` FROM shops`, w, p.ListParams,
			func(r *sql.Rows) (*payd.Shop, error) { return scanShop(r) },
			func(s *payd.Shop) payd.Cursor { return payd.Cursor{CreatedAt: s.CreatedAt, ID: s.ID} })
	}
	if p.MerchantID != "" {
		return list(t)
	}
	// Every merchant's shops: the operator's list (fanout.go).
	return fanOutRead(ctx, t, list)
}

func (t *tx) ShopListByMerchant(ctx context.Context, merchantID string) ([]*payd.Shop, error) {
	rows, err := t.q.QueryContext(ctx, `SELECT `+shopCols+` FROM shops WHERE merchant_id = $1 `+onKey(t.d, "merchant_key", 2)+` ORDER BY id`, merchantID, keyOf(merchantID))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*payd.Shop
	for rows.Next() {
		s, err := scanShop(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func (t *tx) shopCount(ctx context.Context) (n int, err error) {
	err = t.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM shops`).Scan(&n)
	return n, err
}
