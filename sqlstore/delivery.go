package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/paydhq/payd"
)

// scanDoc reads a JSON document column into v.
func scanDoc[T any](r interface{ Scan(...any) error }) (*T, error) {
	var doc string
	if err := r.Scan(&doc); err != nil {
		return nil, noRows(err)
	}
	var v T
	return &v, json.Unmarshal([]byte(doc), &v)
}

func queryDocs[T any](ctx context.Context, q querier, query string, args ...any) ([]*T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*T
	for rows.Next() {
		v, err := scanDoc[T](rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (t *tx) WebhookDeliveryInsert(ctx context.Context, d *payd.WebhookDelivery) error {
	doc, _ := json.Marshal(d)
	_, err := t.exec(ctx, `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, created_at, doc) VALUES ($1, $2, $3, $4, $5)`,
		d.ID, d.EventID, d.EndpointID, micros(d.CreatedAt), string(doc))
	return err
}

func (t *tx) WebhookDeliveryGet(ctx context.Context, id string) (*payd.WebhookDelivery, error) {
	return scanDoc[payd.WebhookDelivery](t.q.QueryRowContext(ctx, `SELECT doc FROM webhook_deliveries WHERE id = $1`, id))
}

func (t *tx) WebhookDeliveryGetForUpdate(ctx context.Context, id string) (*payd.WebhookDelivery, error) {
	return scanDoc[payd.WebhookDelivery](t.q.QueryRowContext(ctx, `SELECT doc FROM webhook_deliveries WHERE id = $1`+t.d.forUpdate(), id))
}

func (t *tx) WebhookDeliveryUpdate(ctx context.Context, d *payd.WebhookDelivery) error {
	doc, _ := json.Marshal(d)
	return t.execOne(ctx, `UPDATE webhook_deliveries SET doc = $2 WHERE id = $1`, d.ID, string(doc))
}

func (t *tx) WebhookDeliveryListByEvent(ctx context.Context, eventID string) ([]*payd.WebhookDelivery, error) {
	return queryDocs[payd.WebhookDelivery](ctx, t.q, `SELECT doc FROM webhook_deliveries WHERE event_id = $1 ORDER BY id`, eventID)
}

func (t *tx) DeliveryAttemptInsert(ctx context.Context, a *payd.DeliveryAttempt) error {
	doc, _ := json.Marshal(a)
	_, err := t.exec(ctx, `INSERT INTO delivery_attempts (id, event_id, delivery_id, at, doc) VALUES ($1, $2, $3, $4, $5)`,
		a.ID, a.EventID, a.DeliveryID, micros(a.At), string(doc))
	return err
}

func (t *tx) DeliveryAttemptListByEvent(ctx context.Context, eventID string) ([]*payd.DeliveryAttempt, error) {
	return queryDocs[payd.DeliveryAttempt](ctx, t.q, `SELECT doc FROM delivery_attempts WHERE event_id = $1 ORDER BY at, id`, eventID)
}

func (t *tx) EventDeliveryUpdate(ctx context.Context, eventID string, d payd.EventDelivery) error {
	var code sql.NullInt64
	if d.LastResponseCode != nil {
		code = sql.NullInt64{Int64: int64(*d.LastResponseCode), Valid: true}
	}
	return t.execOne(ctx, `UPDATE events SET delivery_status = $2, delivery_attempts = $3, last_response_code = $4, last_attempt_at = $5 WHERE id = $1`,
		eventID, d.Status, d.Attempts, code, nullMicros(d.LastAttemptAt))
}

func (t *tx) EventLock(ctx context.Context, eventID string) error {
	var id string
	return noRows(t.q.QueryRowContext(ctx, `SELECT id FROM events WHERE id = $1`+t.d.forUpdate(), eventID).Scan(&id))
}
