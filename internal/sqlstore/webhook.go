package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/paydhq/payd"
)

const endpointCols = `id, shop_id, test, url, events, status, description, secret, prev_secret, prev_secret_until,
	consecutive_failures, created_at`

// scanEndpoint reads an endpoint and opens its secrets (seal.go).
func (t *tx) scanEndpoint(r interface{ Scan(...any) error }) (*payd.WebhookEndpoint, error) {
	var e payd.WebhookEndpoint
	var events string
	var until sql.NullInt64
	var created int64
	if err := r.Scan(&e.ID, &e.ShopID, &e.Test, &e.URL, &events, &e.Status, &e.Description, &e.Secret,
		&e.PrevSecret, &until, &e.ConsecutiveFailures, &created); err != nil {
		return nil, noRows(err)
	}
	if err := json.Unmarshal([]byte(events), &e.Events); err != nil {
		return nil, err
	}
	e.PrevSecretUntil, e.CreatedAt = timePtr(until), fromMicros(created)
	var err error
	if e.Secret, err = t.openText(e.Secret, "webhook_endpoints", "secret", e.ID); err != nil {
		return nil, err
	}
	if e.PrevSecret, err = t.openText(e.PrevSecret, "webhook_endpoints", "prev_secret", e.ID); err != nil {
		return nil, err
	}
	return &e, nil
}

func (t *tx) WebhookEndpointInsert(ctx context.Context, e *payd.WebhookEndpoint) error {
	events, _ := json.Marshal(e.Events)
	_, err := t.exec(ctx, `INSERT INTO webhook_endpoints (`+endpointCols+`, merchant_key) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		e.ID, e.ShopID, e.Test, e.URL, string(events), e.Status, e.Description,
		t.sealText(e.Secret, "webhook_endpoints", "secret", e.ID), t.sealText(e.PrevSecret, "webhook_endpoints", "prev_secret", e.ID),
		nullMicros(e.PrevSecretUntil), e.ConsecutiveFailures, micros(e.CreatedAt), keyOf(e.ID))
	return err
}

const endpointScope = ` WHERE id = $1 AND shop_id = $2 AND test = $3 AND deleted_at IS NULL`

func (t *tx) WebhookEndpointGet(ctx context.Context, shopID string, test bool, id string) (*payd.WebhookEndpoint, error) {
	return t.scanEndpoint(t.q.QueryRowContext(ctx, `SELECT `+endpointCols+` FROM webhook_endpoints`+endpointScope+onKey(t.d, "merchant_key", 4),
		id, shopID, test, keyOf(id)))
}

func (t *tx) WebhookEndpointGetForUpdate(ctx context.Context, shopID string, test bool, id string) (*payd.WebhookEndpoint, error) {
	return t.scanEndpoint(t.q.QueryRowContext(ctx, `SELECT `+endpointCols+` FROM webhook_endpoints`+endpointScope+onKey(t.d, "merchant_key", 4)+t.d.forUpdate(),
		id, shopID, test, keyOf(id)))
}

func (t *tx) WebhookEndpointList(ctx context.Context, shopID string, test bool) ([]*payd.WebhookEndpoint, error) {
	k, err := t.idKey(ctx, shopID)
	if err != nil {
		return nil, err
	}
	rows, err := t.q.QueryContext(ctx, `SELECT `+endpointCols+` FROM webhook_endpoints
		WHERE shop_id = $1 AND test = $2 AND deleted_at IS NULL`+onKey(t.d, "merchant_key", 3)+` ORDER BY created_at DESC, id DESC`, shopID, test, k)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*payd.WebhookEndpoint
	for rows.Next() {
		e, err := t.scanEndpoint(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func (t *tx) WebhookEndpointUpdate(ctx context.Context, e *payd.WebhookEndpoint) error {
	events, _ := json.Marshal(e.Events)
	return t.execOne(ctx, `UPDATE webhook_endpoints SET url = $2, events = $3, status = $4, description = $5, secret = $6,
		prev_secret = $7, prev_secret_until = $8, consecutive_failures = $9 WHERE id = $1 AND deleted_at IS NULL`+onKey(t.d, "merchant_key", 10),
		e.ID, e.URL, string(events), e.Status, e.Description, t.sealText(e.Secret, "webhook_endpoints", "secret", e.ID),
		t.sealText(e.PrevSecret, "webhook_endpoints", "prev_secret", e.ID), nullMicros(e.PrevSecretUntil), e.ConsecutiveFailures, keyOf(e.ID))
}

func (t *tx) WebhookEndpointDelete(ctx context.Context, shopID string, test bool, id string, at time.Time) error {
	return t.execOne(ctx, `UPDATE webhook_endpoints SET deleted_at = $4`+endpointScope+onKey(t.d, "merchant_key", 5),
		id, shopID, test, micros(at), keyOf(id))
}
