package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/paydhq/payd"
)

func linkExpiry(l *payd.PaymentLink) sql.NullInt64 {
	if l.ExpiresAt == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: micros(*l.ExpiresAt), Valid: true}
}

func (t *tx) PaymentLinkInsert(ctx context.Context, l *payd.PaymentLink) error {
	doc, err := json.Marshal(l)
	if err != nil {
		return err
	}
	return t.insertOne(ctx, `INSERT INTO payment_links (id, shop_id, test, status, created_at, expires_at, doc, merchant_key)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
		l.ID, l.ShopID, l.Test, l.Status, micros(l.CreatedAt), linkExpiry(l), string(doc), keyOf(l.MerchantID, l.ID))
}

// linkPayments fills the Payments of links from link_payments, in the
// order they were made.
func (t *tx) linkPayments(ctx context.Context, links ...*payd.PaymentLink) error {
	for _, l := range links {
		rows, err := t.q.QueryContext(ctx, `SELECT payment_id FROM link_payments WHERE link_id = $1 `+onKey(t.d, "merchant_key", 2)+` ORDER BY seq`, l.ID, keyOf(l.ID))
		if err != nil {
			return err
		}
		l.Payments = []string{}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			l.Payments = append(l.Payments, id)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) paymentLinkGet(ctx context.Context, query string, args ...any) (*payd.PaymentLink, error) {
	l, err := scanDoc[payd.PaymentLink](t.q.QueryRowContext(ctx, query, args...))
	if err != nil {
		return nil, err
	}
	return l, t.linkPayments(ctx, l)
}

func (t *tx) PaymentLinkGet(ctx context.Context, id string) (*payd.PaymentLink, error) {
	return t.paymentLinkGet(ctx, `SELECT doc FROM payment_links WHERE id = $1`+onKey(t.d, "merchant_key", 2), id, keyOf(id))
}

func (t *tx) PaymentLinkGetForUpdate(ctx context.Context, id string) (*payd.PaymentLink, error) {
	return t.paymentLinkGet(ctx, `SELECT doc FROM payment_links WHERE id = $1`+onKey(t.d, "merchant_key", 2)+t.d.forUpdate(), id, keyOf(id))
}

func (t *tx) PaymentLinkUpdate(ctx context.Context, l *payd.PaymentLink) error {
	doc, err := json.Marshal(l)
	if err != nil {
		return err
	}
	return t.execOne(ctx, `UPDATE payment_links SET status = $2, expires_at = $3, doc = $4 WHERE id = $1`+onKey(t.d, "merchant_key", 5),
		l.ID, l.Status, linkExpiry(l), string(doc), keyOf(l.ID))
}

func (t *tx) PaymentLinkList(ctx context.Context, p *payd.PaymentLinkListParams) (payd.Page[*payd.PaymentLink], error) {
	w := where{index: "payment_links_list"}
	w.add("shop_id = ?", p.ShopID)
	w.add("test = ?", p.Test)
	if err := t.onShop(ctx, &w, p.ShopID); err != nil {
		return payd.Page[*payd.PaymentLink]{}, err
	}
	page, err := listPage(ctx, t, `SELECT doc FROM payment_links`, w, p.ListParams,
		func(r *sql.Rows) (*payd.PaymentLink, error) { return scanDoc[payd.PaymentLink](r) },
		func(l *payd.PaymentLink) payd.Cursor { return payd.Cursor{CreatedAt: l.CreatedAt, ID: l.ID} })
	if err != nil {
		return page, err
	}
	return page, t.linkPayments(ctx, page.Items...)
}

// PaymentLinkListExpired walks payment_links_expiry: active links whose
// expires_at is at or before Now, in (expires_at, id) order after After.
func (t *tx) paymentLinkListExpired(ctx context.Context, p *payd.PaymentLinkListExpiredParams) ([]payd.PaymentLinkDue, error) {
	cond, args := statusIn(string(payd.LinkActive))
	return dueRows(ctx, t, "payment_links", "expires_at", cond, args, p.Now, p.After.ExpiresAt, p.After.ID, p.Limit,
		func(id string, at time.Time) payd.PaymentLinkDue { return payd.PaymentLinkDue{ID: id, ExpiresAt: at} })
}

func (t *tx) PaymentLinkAddPayment(ctx context.Context, linkID string, seq int, paymentID string, at time.Time) error {
	return t.insertOne(ctx, `INSERT INTO link_payments (link_id, seq, payment_id, created_at, merchant_key) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT DO NOTHING`, linkID, seq, paymentID, micros(at), keyOf(paymentID))
}
