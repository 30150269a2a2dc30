package sqlstore

import (
	"context"
	"database/sql"

	"github.com/paydhq/payd"
)

const auditCols = `id, merchant_id, shop_id, mode, user_id, user_email, action, object_id, detail, addr, created_at`

// AuditInsert appends an entry. The audit log has no update or delete
// statement anywhere in the store.
func (t *tx) AuditInsert(ctx context.Context, e *payd.AuditEntry) error {
	_, err := t.exec(ctx, `INSERT INTO audit_log (`+auditCols+`, merchant_key) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		e.ID, e.MerchantID, e.ShopID, e.Mode, e.UserID, e.UserEmail, e.Action, e.ObjectID, e.Detail, e.Addr, micros(e.At), keyOf(e.MerchantID, e.ID))
	return err
}

func (t *tx) AuditList(ctx context.Context, p *payd.AuditListParams) (payd.Page[*payd.AuditEntry], error) {
	w := where{index: "audit_log_merchant"}
	w.add("merchant_id = ?", p.MerchantID)
	if p.MerchantID != "" {
		w.addKey(t.d, merchantKey(p.MerchantID))
	}
	return listPage(ctx, t, `SELECT `+auditCols+` FROM audit_log`, w, p.ListParams,
		func(r *sql.Rows) (*payd.AuditEntry, error) {
			var e payd.AuditEntry
			var at int64
			if err := r.Scan(&e.ID, &e.MerchantID, &e.ShopID, &e.Mode, &e.UserID, &e.UserEmail, &e.Action, &e.ObjectID, &e.Detail, &e.Addr, &at); err != nil {
				return nil, err
			}
			e.At = fromMicros(at)
			return &e, nil
		},
		func(e *payd.AuditEntry) payd.Cursor { return payd.Cursor{CreatedAt: e.At, ID: e.ID} })
}
