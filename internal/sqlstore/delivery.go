package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

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

// The values of webhook_deliveries.state and events.delivery_status the
// statements name, as SQL literals: the stored values are the domain's.
const (
	sqlDeliveryPending  = "'" + string(payd.DeliveryStatePending) + "'"
	sqlDeliveryFailed   = "'" + string(payd.DeliveryStateFailed) + "'"
	sqlDeliverySkipped  = "'" + string(payd.DeliveryStateSkipped) + "'"
	sqlSummaryPending   = "'" + string(payd.DeliveryPending) + "'"
	sqlSummaryFailed    = "'" + string(payd.DeliveryFailed) + "'"
	sqlSummarySucceeded = "'" + string(payd.DeliverySucceeded) + "'"
)

func (t *tx) WebhookDeliveryInsert(ctx context.Context, list ...*payd.WebhookDelivery) error {
	return insertRows(ctx, t, `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, created_at, doc, state, due_at, merchant_key) VALUES `, 8, list,
		func(d *payd.WebhookDelivery) []any {
			doc, _ := json.Marshal(d)
			return []any{d.ID, d.EventID, d.EndpointID, micros(d.CreatedAt), string(doc), d.State, micros(d.DueAt), keyOf(d.ID)}
		})
}

// insertRows inserts rows with multi-row VALUES, at most 500 rows a
// statement (SQLite binds at most 32,766 parameters, PostgreSQL 65,535).
func insertRows[T any](ctx context.Context, t *tx, head string, cols int, list []T, row func(T) []any) error {
	for len(list) > 0 {
		n := min(len(list), 500)
		var b strings.Builder
		args := make([]any, 0, cols*n)
		for i, v := range list[:n] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(" + placeholders(len(args)+1, cols) + ")")
			args = append(args, row(v)...)
		}
		if _, err := t.exec(ctx, head+b.String(), args...); err != nil {
			return err
		}
		list = list[n:]
	}
	return nil
}

// WebhookDeliveryClaim moves the due_at of the chosen deliveries to the end
// of the lease, then reads them with their events and endpoints. The
// window function keeps one busy endpoint from filling the whole batch.
func (t *tx) webhookDeliveryClaim(ctx context.Context, p *payd.WebhookDeliveryClaimParams) ([]*payd.DeliveryWork, error) {
	// The endpoint lists are JSON parameters, not IN lists of their length,
	// so the statement's text stays the same from claim to claim and is
	// parsed and planned once (SQLite's statement cache, pgx's on
	// PostgreSQL). The slow part is left out when no endpoint is slow.
	slow := withoutIDs(p.Slow, p.Exclude)
	args := []any{micros(p.Now), micros(p.LeaseUntil), p.Limit * 2, p.PerEndpoint, p.Limit,
		jsonIDs(append(slices.Clip(p.Exclude), slow...)), jsonIDs(p.Fast), p.PerFastEndpoint}
	// Each part looks at the 2×Limit oldest due rows of its endpoints.
	// On a cluster rows of many shard groups cannot be locked by one
	// statement: the parts only read, and claimByKey takes what they
	// chose.
	lock := t.d.skipLocked()
	if t.d.distributed() {
		lock = ""
	}
	part := func(cond string) string {
		return `SELECT id, endpoint_id, due_at, merchant_key FROM {table}
			WHERE state = ` + sqlDeliveryPending + ` AND due_at <= $1 AND ` + cond + `
			ORDER BY due_at LIMIT $3` + lock
	}
	due, withSlow := `head`, ``
	if len(slow) > 0 {
		args = append(args, jsonIDs(slow))
		withSlow = `, slow AS (` + part(`endpoint_id IN (`+t.d.jsonStrings(9)+`)`) + `)`
		due = `(SELECT id, endpoint_id, due_at, merchant_key FROM head UNION ALL SELECT id, endpoint_id, due_at, merchant_key FROM slow)`
	}
	// On a cluster the pick keeps up to 2×Limit rows: claimByKey skips
	// those another sender holds and takes Limit of the rest.
	limit := "$5"
	if t.d.distributed() {
		limit = "$3"
	}
	// CASTs: PostgreSQL would otherwise take the CASE's branches as text.
	pickSQL := `WITH head AS (` + part(`endpoint_id NOT IN (`+t.d.jsonStrings(6)+`)`) + `)` + withSlow + `, pick AS (
			SELECT id, merchant_key FROM (SELECT id, endpoint_id, due_at, merchant_key,
				ROW_NUMBER() OVER (PARTITION BY endpoint_id ORDER BY due_at, id) AS n FROM ` + due + ` d) r
			WHERE n <= CASE WHEN endpoint_id IN (` + t.d.jsonStrings(7) + `) THEN CAST($8 AS INTEGER) ELSE CAST($4 AS INTEGER) END
			ORDER BY due_at LIMIT ` + limit + `
		)`
	var works []*payd.DeliveryWork
	claimed := func(r *sql.Rows) error {
		d, err := scanDoc[payd.WebhookDelivery](r)
		if err != nil {
			return err
		}
		d.DueAt = p.LeaseUntil
		works = append(works, &payd.DeliveryWork{Delivery: d})
		return nil
	}
	var err error
	if t.d.distributed() {
		err = t.claimByKey(ctx, pickSQL, args, p, claimed)
	} else {
		err = eachRow(ctx, t.q, strings.ReplaceAll(pickSQL, "{table}", "webhook_deliveries")+`
		UPDATE webhook_deliveries SET due_at = $2 WHERE id IN (SELECT id FROM pick)
		RETURNING doc`, args, claimed)
	}
	if err != nil || len(works) == 0 {
		return nil, err
	}
	return works, t.fillWork(ctx, works)
}

// claimByKey is the claim on a cluster: of the rows pick chose, read
// without locks, one statement per shard group takes those no other
// sender holds (SKIP LOCKED within the group) and that are still pending
// and due, oldest first, until Limit are taken. A claim costs a statement
// per merchant in its batch.
func (t *tx) claimByKey(ctx context.Context, pickSQL string, args []any, p *payd.WebhookDeliveryClaimParams, claimed func(*sql.Rows) error) error {
	groups := map[int32][]string{}
	var order []int32
	// $2, the lease, and $5, the limit, are the second step's; named here
	// so that every argument is typed.
	// The pick reads every group (readGroups).
	err := t.readGroups(ctx, groupRead{table: "webhook_deliveries", args: args, query: pickSQL + ` SELECT id, merchant_key FROM pick
		WHERE CAST($2 AS BIGINT) IS NOT NULL AND CAST($5 AS INTEGER) IS NOT NULL`}, func(r rowScanner) error {
		var id string
		var k int32
		if err := r.Scan(&id, &k); err != nil {
			return err
		}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], id)
		return nil
	})
	if err != nil {
		return err
	}
	taken := 0
	count := func(r *sql.Rows) error { taken++; return claimed(r) }
	for _, k := range order {
		if taken >= p.Limit {
			break
		}
		err := eachRow(ctx, t.q, `UPDATE webhook_deliveries SET due_at = $2
			WHERE merchant_key = $4 AND id IN (SELECT id FROM webhook_deliveries
				WHERE id IN (`+t.d.jsonStrings(3)+`) AND state = `+sqlDeliveryPending+` AND due_at <= $1 AND merchant_key = $4
				ORDER BY due_at, id LIMIT $5 FOR UPDATE SKIP LOCKED)
			RETURNING doc`, []any{micros(p.Now), micros(p.LeaseUntil), jsonIDs(groups[k]), k, p.Limit - taken}, count)
		if err != nil {
			return err
		}
	}
	return nil
}

// jsonIDs encodes ids as a JSON array for dialect.jsonStrings.
func jsonIDs(ids []string) string {
	if len(ids) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(ids)
	return string(b)
}

// withoutIDs returns the ids of list that are not in drop.
func withoutIDs(list, drop []string) []string {
	var out []string
	for _, id := range list {
		if !slices.Contains(drop, id) {
			out = append(out, id)
		}
	}
	return out
}

// fillWork reads the events and endpoints of claimed deliveries, each once.
func (t *tx) fillWork(ctx context.Context, works []*payd.DeliveryWork) error {
	events, endpoints := map[string]*payd.Event{}, map[string]*payd.WebhookEndpoint{}
	var eventIDs, endpointIDs []string
	for _, w := range works {
		if _, ok := events[w.Delivery.EventID]; !ok {
			events[w.Delivery.EventID] = nil
			eventIDs = append(eventIDs, w.Delivery.EventID)
		}
		if _, ok := endpoints[w.Delivery.EndpointID]; !ok {
			endpoints[w.Delivery.EndpointID] = nil
			endpointIDs = append(endpointIDs, w.Delivery.EndpointID)
		}
	}
	err := t.keyGroups(ctx, eventIDs, func(k int32, at []int) error {
		return eachRow(ctx, t.q, `SELECT `+eventCols+` FROM events WHERE id IN (`+t.d.jsonStrings(1)+`)`+onKey(t.d, "merchant_key", 2),
			[]any{jsonIDs(pick(eventIDs, at)), k},
			func(r *sql.Rows) error {
				e, err := scanEvent(r)
				if err == nil {
					events[e.ID] = e
				}
				return err
			})
	})
	if err != nil {
		return err
	}
	err = t.keyGroups(ctx, endpointIDs, func(k int32, at []int) error {
		return eachRow(ctx, t.q, `SELECT `+endpointCols+` FROM webhook_endpoints WHERE deleted_at IS NULL AND id IN (`+t.d.jsonStrings(1)+`)`+
			onKey(t.d, "merchant_key", 2), []any{jsonIDs(pick(endpointIDs, at)), k},
			func(r *sql.Rows) error {
				e, err := t.scanEndpoint(r)
				if err == nil {
					endpoints[e.ID] = e
				}
				return err
			})
	})
	if err != nil {
		return err
	}
	for _, w := range works {
		w.Event, w.Endpoint = events[w.Delivery.EventID], endpoints[w.Delivery.EndpointID]
	}
	return nil
}

// WebhookDeliverySave writes the deliveries of a batch in one statement.
// The casts give PostgreSQL the types of the VALUES columns, which it
// would otherwise take as text.
func (t *tx) WebhookDeliverySave(ctx context.Context, list []*payd.WebhookDelivery) ([]string, error) {
	return t.deliveriesByKey(ctx, list, func(k int32, list []*payd.WebhookDelivery) ([]string, error) { return t.deliverySave(ctx, k, list) })
}

// deliveriesByKey runs fn on the deliveries of each shard group, and
// gathers the ids it returns.
func (t *tx) deliveriesByKey(ctx context.Context, list []*payd.WebhookDelivery, fn func(int32, []*payd.WebhookDelivery) ([]string, error)) ([]string, error) {
	ids := make([]string, len(list))
	for i, d := range list {
		ids[i] = d.ID
	}
	var out []string
	err := t.keyGroups(ctx, ids, func(k int32, at []int) error {
		got, err := fn(k, pick(list, at))
		out = append(out, got...)
		return err
	})
	return out, err
}

var deliverySave = valuesUpdate{table: "webhook_deliveries", types: []string{"TEXT", "TEXT", "TEXT", "BIGINT"},
	set: "doc = v.column2, state = v.column3, due_at = v.column4", cond: "webhook_deliveries.state = " + sqlDeliveryPending, returning: "id"}

func (t *tx) deliverySave(ctx context.Context, k int32, list []*payd.WebhookDelivery) ([]string, error) {
	rows := make([][]any, len(list))
	for i, d := range list {
		doc, _ := json.Marshal(d)
		rows[i] = []any{d.ID, string(doc), d.State, micros(d.DueAt)}
	}
	return deliverySave.run(ctx, t, k, rows)
}

// WebhookDeliveryReplace writes state and document only: a finished
// delivery has no due time to keep.
func (t *tx) WebhookDeliveryReplace(ctx context.Context, list []*payd.WebhookDelivery) ([]string, error) {
	return t.deliveriesByKey(ctx, list, func(k int32, list []*payd.WebhookDelivery) ([]string, error) { return t.deliveryReplace(ctx, k, list) })
}

var deliveryReplace = valuesUpdate{table: "webhook_deliveries", types: []string{"TEXT", "TEXT", "TEXT"},
	set: "doc = v.column2, state = v.column3", cond: "webhook_deliveries.state IN (" + sqlDeliveryFailed + ", " + sqlDeliverySkipped + ")", returning: "id"}

func (t *tx) deliveryReplace(ctx context.Context, k int32, list []*payd.WebhookDelivery) ([]string, error) {
	rows := make([][]any, len(list))
	for i, d := range list {
		doc, _ := json.Marshal(d)
		rows[i] = []any{d.ID, string(doc), d.State}
	}
	return deliveryReplace.run(ctx, t, k, rows)
}

// updatedIDs runs an UPDATE ... RETURNING id and collects the ids.
func updatedIDs(ctx context.Context, t *tx, q string, args []any) ([]string, error) {
	var ids []string
	err := eachRow(ctx, t.q, q, args, func(r *sql.Rows) error {
		var id string
		err := r.Scan(&id)
		ids = append(ids, id)
		return err
	})
	return ids, err
}

func (t *tx) WebhookDeliveryListByEvent(ctx context.Context, eventID string) ([]*payd.WebhookDelivery, error) {
	return queryDocs[payd.WebhookDelivery](ctx, t.q, `SELECT doc FROM webhook_deliveries WHERE event_id = $1 `+onKey(t.d, "merchant_key", 2)+` ORDER BY id`, eventID, keyOf(eventID))
}

func (t *tx) DeliveryAttemptInsert(ctx context.Context, list ...*payd.DeliveryAttempt) error {
	return insertRows(ctx, t, `INSERT INTO delivery_attempts (id, event_id, delivery_id, at, doc, merchant_key) VALUES `, 6, list,
		func(a *payd.DeliveryAttempt) []any {
			doc, _ := json.Marshal(a)
			return []any{a.ID, a.EventID, a.DeliveryID, micros(a.At), string(doc), keyOf(a.ID)}
		})
}

func (t *tx) DeliveryAttemptListByEvent(ctx context.Context, eventID string) ([]*payd.DeliveryAttempt, error) {
	return queryDocs[payd.DeliveryAttempt](ctx, t.q, `SELECT doc FROM delivery_attempts WHERE event_id = $1 `+onKey(t.d, "merchant_key", 2)+` ORDER BY at, id`, eventID, keyOf(eventID))
}

func (t *tx) EventDeliveryUpdate(ctx context.Context, eventID string, d payd.EventDelivery) error {
	var code sql.NullInt64
	if d.LastResponseCode != nil {
		code = sql.NullInt64{Int64: int64(*d.LastResponseCode), Valid: true}
	}
	return t.execOne(ctx, `UPDATE events SET delivery_status = $2, delivery_attempts = $3, last_response_code = $4, last_attempt_at = $5 WHERE id = $1`+onKey(t.d, "merchant_key", 6),
		eventID, d.Status, d.Attempts, code, nullMicros(d.LastAttemptAt), keyOf(eventID))
}

// EventDeliveryCount moves the counters of several events in one
// statement. SET expressions read the row as it was before the UPDATE, in
// both databases, so the status is derived from the old counters plus the
// change. An UPDATE reads the latest committed row, so two batches that
// touch one event never lose each other's counts.
func (t *tx) EventDeliveryCount(ctx context.Context, changes []payd.EventDeliveryChange) error {
	if len(changes) == 0 {
		return nil
	}
	// UPDATE ... FROM applies one VALUES row per target row: changes to
	// one event are merged first, or all but one would be lost.
	changes = mergeChanges(changes)
	ids := make([]string, len(changes))
	for i, c := range changes {
		ids[i] = c.EventID
	}
	return t.keyGroups(ctx, ids, func(k int32, at []int) error { return t.eventDeliveryCount(ctx, k, pick(changes, at)) })
}

func (t *tx) eventDeliveryCount(ctx context.Context, k int32, changes []payd.EventDeliveryChange) error {
	rows := make([][]any, len(changes))
	for i, c := range changes {
		var code sql.NullInt64
		if c.LastResponseCode != nil {
			code = sql.NullInt64{Int64: int64(*c.LastResponseCode), Valid: true}
		}
		rows[i] = []any{c.EventID, c.Added, c.Attempts, c.Finished, c.Failed, nullMicros(c.LastAttemptAt), code, c.Replaced}
	}
	_, err := eventCount.run(ctx, t, k, rows)
	return err
}

// eventCount moves an event's counters by a change v: column1 event, 2
// added, 3 attempts, 4 finished, 5 failed, 6 attempt time, 7 answer, 8
// failures replaced by a resend.
var eventCount = valuesUpdate{table: "events", cond: "TRUE", set: eventCountSet,
	types: []string{"TEXT", "INTEGER", "INTEGER", "INTEGER", "INTEGER", "BIGINT", "INTEGER", "INTEGER"}}

// eventCountSet moves an event's counters by a change v.
const eventCountSet = `
		deliveries_total = deliveries_total + v.column2,
		deliveries_pending = deliveries_pending + v.column2 - v.column4,
		deliveries_failed = deliveries_failed + v.column5 - v.column8,
		delivery_attempts = delivery_attempts + v.column3,
		last_response_code = CASE WHEN v.column6 IS NOT NULL AND v.column6 >= COALESCE(last_attempt_at, 0)
			THEN COALESCE(v.column7, last_response_code) ELSE last_response_code END,
		last_attempt_at = CASE WHEN v.column6 IS NOT NULL AND v.column6 >= COALESCE(last_attempt_at, 0)
			THEN v.column6 ELSE last_attempt_at END,
		delivery_status = CASE
			WHEN deliveries_pending + v.column2 - v.column4 > 0 THEN ` + sqlSummaryPending + `
			WHEN deliveries_failed + v.column5 - v.column8 > 0 THEN ` + sqlSummaryFailed + `
			WHEN deliveries_total + v.column2 > 0 THEN ` + sqlSummarySucceeded + `
			ELSE delivery_status END`

// mergeChanges adds up the changes to each event, keeping the latest
// attempt, and orders them by event: two batches that touch the same
// events lock their rows in one order and cannot deadlock on PostgreSQL.
func mergeChanges(changes []payd.EventDeliveryChange) []payd.EventDeliveryChange {
	at := make(map[string]int, len(changes))
	out := make([]payd.EventDeliveryChange, 0, len(changes))
	for _, c := range changes {
		i, ok := at[c.EventID]
		if !ok {
			at[c.EventID] = len(out)
			out = append(out, c)
			continue
		}
		m := &out[i]
		m.Added, m.Attempts, m.Finished, m.Failed = m.Added+c.Added, m.Attempts+c.Attempts, m.Finished+c.Finished, m.Failed+c.Failed
		m.Replaced += c.Replaced
		if c.LastAttemptAt != nil && (m.LastAttemptAt == nil || !c.LastAttemptAt.Before(*m.LastAttemptAt)) {
			m.LastAttemptAt = c.LastAttemptAt
			if c.LastResponseCode != nil {
				m.LastResponseCode = c.LastResponseCode
			}
		}
	}
	slices.SortFunc(out, func(a, b payd.EventDeliveryChange) int { return strings.Compare(a.EventID, b.EventID) })
	return out
}

// placeholders returns "$from, ..., $(from+n-1)".
func placeholders(from, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("$" + strconv.Itoa(from+i))
	}
	return b.String()
}

// queryStrings runs a query of one text column and returns its values.
func queryStrings(ctx context.Context, q querier, query string, args ...any) ([]string, error) {
	var out []string
	err := eachRow(ctx, q, query, args, func(r *sql.Rows) error {
		var v string
		if err := r.Scan(&v); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// eachRow runs a query and calls fn for each row.
func eachRow(ctx context.Context, q querier, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
