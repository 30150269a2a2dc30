package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/paydhq/payd"
)

func (t *tx) RefundInsert(ctx context.Context, r *payd.Refund) error {
	doc, _ := json.Marshal(r)
	// A refund's id is new (ids.go), so its row goes out later.
	return t.later(ctx, `INSERT INTO refunds (id, shop_id, test, payment_id, status, created_at, doc, merchant_key) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		r.ID, r.ShopID, r.Test, r.PaymentID, r.Status, micros(r.CreatedAt), string(doc), keyOf(r.MerchantID, r.ID))
}

func (t *tx) RefundGet(ctx context.Context, id string) (*payd.Refund, error) {
	return scanDoc[payd.Refund](t.q.QueryRowContext(ctx, `SELECT doc FROM refunds WHERE id = $1`+onKey(t.d, "merchant_key", 2), id, keyOf(id)))
}

func (t *tx) RefundGetForUpdate(ctx context.Context, id string) (*payd.Refund, error) {
	r, err := scanDoc[payd.Refund](t.q.QueryRowContext(ctx, `SELECT doc FROM refunds WHERE id = $1`+onKey(t.d, "merchant_key", 2)+t.d.forUpdate(), id, keyOf(id)))
	t.holdLock("refunds", id, err)
	return r, err
}

func (t *tx) RefundUpdate(ctx context.Context, r *payd.Refund) error {
	doc, _ := json.Marshal(r)
	return t.updateLocked(ctx, "refunds", r.ID, `UPDATE refunds SET status = $2, doc = $3 WHERE id = $1`+onKey(t.d, "merchant_key", 4), r.ID, r.Status, string(doc), keyOf(r.ID))
}

func (t *tx) RefundList(ctx context.Context, p *payd.RefundListParams) (payd.Page[*payd.Refund], error) {
	w := where{index: "refunds_list"}
	switch {
	case p.PaymentID != "":
		w.index = "refunds_payment"
	case p.Status != "":
		w.index = "refunds_status"
	}
	w.add("shop_id = ?", p.ShopID)
	w.add("test = ?", p.Test)
	if p.PaymentID != "" {
		w.add("payment_id = ?", p.PaymentID)
	}
	if p.Status != "" {
		w.add("status = ?", p.Status)
	}
	if err := t.onShop(ctx, &w, p.ShopID); err != nil {
		return payd.Page[*payd.Refund]{}, err
	}
	return listPage(ctx, t, `SELECT doc FROM refunds`, w, p.ListParams,
		func(r *sql.Rows) (*payd.Refund, error) { return scanDoc[payd.Refund](r) },
		func(r *payd.Refund) payd.Cursor { return payd.Cursor{CreatedAt: r.CreatedAt, ID: r.ID} })
}

// MerchantLock locks the merchant's row for the transaction (later: the
// lock goes with the next statement on PostgreSQL; SQLite's writer holds
// every row already).
func (t *tx) MerchantLock(ctx context.Context, id string) error {
	if t.d.forUpdate() == "" {
		return nil
	}
	return t.later(ctx, `SELECT 1 FROM merchants WHERE id = $1`+onKey(t.d, "merchant_key", 2)+t.d.forUpdate(), id, keyOf(id))
}

func (t *tx) MerchantGetForUpdate(ctx context.Context, id string) (*payd.Merchant, error) {
	return scanMerchant(t.q.QueryRowContext(ctx, `SELECT `+merchantCols+` FROM merchants WHERE id = $1`+onKey(t.d, "merchant_key", 2)+t.d.forUpdate(), id, keyOf(id)))
}
