package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/paydhq/payd"
)

const eventCols = `id, shop_id, merchant_id, test, type, object_id, created_at, body,
	delivery_status, delivery_attempts, last_response_code, last_attempt_at`

func scanEvent(r interface{ Scan(...any) error }) (*payd.Event, error) {
	var e payd.Event
	var created int64
	var body string
	var code sql.NullInt64
	var last sql.NullInt64
	if err := r.Scan(&e.ID, &e.ShopID, &e.MerchantID, &e.Test, &e.Type, &e.ObjectID, &created, &body,
		&e.Delivery.Status, &e.Delivery.Attempts, &code, &last); err != nil {
		return nil, noRows(err)
	}
	e.CreatedAt, e.Body, e.Delivery.LastAttemptAt = fromMicros(created), []byte(body), timePtr(last)
	if code.Valid {
		c := int(code.Int64)
		e.Delivery.LastResponseCode = &c
	}
	return &e, nil
}

func (t *tx) EventInsert(ctx context.Context, e *payd.Event) error {
	_, err := t.exec(ctx, `INSERT INTO events (id, shop_id, merchant_id, test, type, object_id, created_at, body,
		delivery_status, delivery_attempts, deliveries_total, deliveries_pending)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)`,
		e.ID, e.ShopID, e.MerchantID, e.Test, e.Type, e.ObjectID, micros(e.CreatedAt), string(e.Body),
		e.Delivery.Status, e.Delivery.Attempts, e.Deliveries)
	return err
}

func (t *tx) EventGet(ctx context.Context, shopID string, test bool, id string) (*payd.Event, error) {
	return scanEvent(t.q.QueryRowContext(ctx, `SELECT `+eventCols+` FROM events WHERE id = $1 AND shop_id = $2 AND test = $3`, id, shopID, test))
}

func (t *tx) EventList(ctx context.Context, p *payd.EventListParams) (payd.Page[*payd.Event], error) {
	w := where{index: "events_list"}
	switch {
	case p.ObjectID != "":
		w.index = "events_object"
	case p.Type != "":
		w.index = "events_type"
	}
	w.add("shop_id = ?", p.ShopID)
	w.add("test = ?", p.Test)
	if p.Type != "" {
		w.add("type = ?", p.Type)
	}
	if p.ObjectID != "" {
		w.add("object_id = ?", p.ObjectID)
	}
	w.createdRange(p.Created)
	return listPage(ctx, t, `SELECT `+eventCols+` FROM events`, w, p.ListParams,
		func(r *sql.Rows) (*payd.Event, error) { return scanEvent(r) },
		func(e *payd.Event) payd.Cursor { return payd.Cursor{CreatedAt: e.CreatedAt, ID: e.ID} })
}

func (t *tx) EventDeleteBefore(ctx context.Context, before time.Time) (int64, error) {
	res, err := t.exec(ctx, `DELETE FROM events WHERE created_at < $1`, micros(before))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
