package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/paydhq/payd"
)

func (t *tx) PayoutInsert(ctx context.Context, po *payd.Payout) error {
	doc, err := json.Marshal(po)
	if err != nil {
		return err
	}
	_, err = t.exec(ctx, `INSERT INTO payouts (id, shop_id, merchant_id, test, status, order_id, created_at, doc, merchant_key)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		po.ID, po.ShopID, po.MerchantID, po.Test, po.Status, po.OrderID, micros(po.CreatedAt), string(doc), keyOf(po.MerchantID))
	return err
}

func (t *tx) PayoutGet(ctx context.Context, id string) (*payd.Payout, error) {
	return scanDoc[payd.Payout](t.q.QueryRowContext(ctx, `SELECT doc FROM payouts WHERE id = $1`+onKey(t.d, "merchant_key", 2), id, keyOf(id)))
}

func (t *tx) PayoutGetForUpdate(ctx context.Context, id string) (*payd.Payout, error) {
	return scanDoc[payd.Payout](t.q.QueryRowContext(ctx, `SELECT doc FROM payouts WHERE id = $1`+onKey(t.d, "merchant_key", 2)+t.d.forUpdate(), id, keyOf(id)))
}

func (t *tx) PayoutUpdate(ctx context.Context, po *payd.Payout) error {
	doc, err := json.Marshal(po)
	if err != nil {
		return err
	}
	return t.execOne(ctx, `UPDATE payouts SET status = $2, doc = $3 WHERE id = $1`+onKey(t.d, "merchant_key", 4), po.ID, po.Status, string(doc), keyOf(po.ID))
}

func (t *tx) PayoutList(ctx context.Context, p *payd.PayoutListParams) (payd.Page[*payd.Payout], error) {
	w := where{index: "payouts_list"}
	w.add("shop_id = ?", p.ShopID)
	w.add("test = ?", p.Test)
	if p.Status != "" {
		w.add("status = ?", p.Status)
	}
	if p.OrderID != "" {
		w.add("order_id = ?", p.OrderID)
	}
	w.createdRange(p.Created)
	if err := t.onShop(ctx, &w, p.ShopID); err != nil {
		return payd.Page[*payd.Payout]{}, err
	}
	return listPage(ctx, t, `SELECT doc FROM payouts`, w, p.ListParams,
		func(r *sql.Rows) (*payd.Payout, error) { return scanDoc[payd.Payout](r) },
		func(po *payd.Payout) payd.Cursor { return payd.Cursor{CreatedAt: po.CreatedAt, ID: po.ID} })
}

func (t *tx) payoutAmounts(ctx context.Context) ([]payd.PayoutAmount, error) {
	rows, err := t.q.QueryContext(ctx, `SELECT doc FROM payouts ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []payd.PayoutAmount
	for rows.Next() {
		po, err := scanDoc[payd.Payout](rows)
		if err != nil {
			return nil, err
		}
		out = append(out, payd.PayoutAmount{ID: po.ID, MerchantID: po.MerchantID, Test: po.Test, Status: po.Status,
			Amount: po.Amount, Fee: po.Fee})
	}
	return out, rows.Err()
}
