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
	// Only test events are numbered in the sandbox feed: a live event's
	// insert stays as cheap as it was.
	seq := "0"
	if e.Test {
		seq = t.d.nextFeedSeq(2)
	}
	// An event's id is new: its row goes out later.
	return t.later(ctx, `INSERT INTO events (id, shop_id, merchant_id, test, type, object_id, created_at, body,
		delivery_status, delivery_attempts, deliveries_total, deliveries_pending, merchant_key, seq)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12, `+seq+`)`,
		e.ID, e.ShopID, e.MerchantID, e.Test, e.Type, e.ObjectID, micros(e.CreatedAt), string(e.Body),
		e.Delivery.Status, e.Delivery.Attempts, e.Deliveries, keyOf(e.MerchantID))
}

func (t *tx) EventGet(ctx context.Context, shopID string, test bool, id string) (*payd.Event, error) {
	return scanEvent(t.q.QueryRowContext(ctx, `SELECT `+eventCols+` FROM events WHERE id = $1 AND shop_id = $2 AND test = $3`+onKey(t.d, "merchant_key", 4), id, shopID, test, keyOf(id)))
}

// EventGetAny reads by the id alone: the id carries its merchant's key,
// so on Citus it stays within the merchant's shard group.
func (t *tx) EventGetAny(ctx context.Context, id string) (*payd.Event, error) {
	return scanEvent(t.q.QueryRowContext(ctx, `SELECT `+eventCols+` FROM events WHERE id = $1`+onKey(t.d, "merchant_key", 2), id, keyOf(id)))
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
	if err := t.onShop(ctx, &w, p.ShopID); err != nil {
		return payd.Page[*payd.Event]{}, err
	}
	return listPage(ctx, t, `SELECT `+eventCols+` FROM events`, w, p.ListParams,
		func(r *sql.Rows) (*payd.Event, error) { return scanEvent(r) },
		func(e *payd.Event) payd.Cursor { return payd.Cursor{CreatedAt: e.CreatedAt, ID: e.ID} })
}

// EventDeleteBefore deletes one batch of the oldest events: a range of
// events_retention, however many events are kept.
func (t *tx) eventDeleteBefore(ctx context.Context, before time.Time, limit int) (int64, error) {
	return t.deleteCount(ctx, `DELETE FROM events WHERE id IN
		(SELECT id FROM events WHERE created_at < $1 ORDER BY created_at LIMIT $2)`, micros(before), limit)
}

func (t *tx) EventResequence(ctx context.Context, shopID, id string) error {
	next, args := t.d.nextFeedSeq(1), []any{shopID, id, keyOf(id)}
	if t.d.distributed() {
		// A cluster runs no volatile function in an UPDATE of a
		// distributed table: the number is drawn first.
		var seq int64
		if err := t.q.QueryRowContext(ctx, `SELECT `+next).Scan(&seq); err != nil {
			return err
		}
		next, args = "$4", append(args, seq)
	}
	res, err := t.exec(ctx, `UPDATE events SET seq = `+next+` WHERE shop_id = $1 AND test AND id = $2`+onKey(t.d, "merchant_key", 3), args...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err == nil && n == 0 {
		err = payd.ErrNoRows
	}
	return err
}

func (t *tx) EventFeed(ctx context.Context, p *payd.EventFeedParams) ([]payd.EventFeedItem, error) {
	var out []payd.EventFeedItem
	k, err := t.idKey(ctx, p.ShopID)
	if err != nil {
		return nil, err
	}
	err = eachRow(ctx, t.q, `SELECT seq, id, type, created_at FROM events
		WHERE shop_id = $1 AND test AND seq > $2`+onKey(t.d, "merchant_key", 4)+` ORDER BY seq LIMIT $3`, []any{p.ShopID, p.After, p.Limit, k},
		func(r *sql.Rows) error {
			var it payd.EventFeedItem
			var created int64
			if err := r.Scan(&it.Seq, &it.ID, &it.Type, &created); err != nil {
				return err
			}
			it.CreatedAt = fromMicros(created)
			out = append(out, it)
			return nil
		})
	return out, err
}

func (t *tx) EventFeedLast(ctx context.Context, shopID string) (int64, error) {
	var last int64
	k, err := t.idKey(ctx, shopID)
	if err != nil {
		return 0, err
	}
	err = t.q.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events WHERE shop_id = $1 AND test`+onKey(t.d, "merchant_key", 2), shopID, k).Scan(&last)
	return last, err
}
