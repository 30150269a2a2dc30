package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/paydhq/payd"
)

const paymentCols = `doc`

func scanPayment(r interface{ Scan(...any) error }) (*payd.Payment, error) {
	var doc string
	if err := r.Scan(&doc); err != nil {
		return nil, noRows(err)
	}
	var p payd.Payment
	if err := json.Unmarshal([]byte(doc), &p); err != nil {
		return nil, err
	}
	return &p, nil
}

func (t *tx) PaymentInsert(ctx context.Context, p *payd.Payment) error {
	args, err := paymentRow(p)
	if err != nil {
		return err
	}
	// ON CONFLICT DO NOTHING rather than a failing insert: on PostgreSQL a
	// failed statement aborts the transaction, and the caller still needs
	// it to name the payment that holds the order id.
	if err := t.insertOne(ctx, paymentInsertSQL+" ON CONFLICT DO NOTHING", args...); err != nil {
		return err
	}
	t.countPayment(p, p.Status, 1)
	return nil
}

// PaymentInsertAtCommit is PaymentInsert sent with the COMMIT on
// PostgreSQL (pgpipe.go), as a plain INSERT: a taken order id fails it, the
// COMMIT behind it never runs, and Store.Tx reports payd.ErrOrderIDTaken
// (commitError). Elsewhere the row is inserted at once.
func (t *tx) PaymentInsertAtCommit(ctx context.Context, p *payd.Payment) error {
	if !t.pipelined {
		err := t.PaymentInsert(ctx, p)
		if errors.Is(err, payd.ErrConflict) {
			err = fmt.Errorf("%w: %v", payd.ErrOrderIDTaken, err)
		}
		return err
	}
	args, err := paymentRow(p)
	if err != nil {
		return err
	}
	if _, err = t.q.ExecContext(context.WithValue(ctx, sendWithCommit, true), paymentInsertSQL, args...); err != nil {
		return err
	}
	// Counted as if inserted: if the insert fails, so does the COMMIT
	// and the totals' statement before it.
	t.countPayment(p, p.Status, 1)
	return nil
}

// paymentInsertSQL inserts a payment row of paymentRow.
const paymentInsertSQL = `INSERT INTO payments (id, shop_id, test, status, order_id, amount, currency, created_at,
	checkout_token_hash, provider, provider_payment_id, doc, expires_at, view, view_version, method, merchant_key)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`

// paymentRow is the arguments of paymentInsertSQL.
func paymentRow(p *payd.Payment) ([]any, error) {
	doc, view, err := paymentDocs(p)
	if err != nil {
		return nil, err
	}
	return []any{p.ID, p.ShopID, p.Test, p.Status, p.OrderID, p.Amount.Minor, p.Amount.Currency, micros(p.CreatedAt),
		p.CheckoutTokenHash, p.Provider, p.ProviderPaymentID, doc, micros(p.ExpiresAt), view, payd.PaymentViewVersion, methodColumn(p),
		keyOf(p.MerchantID, p.ID)}, nil
}

// methodColumn is the payments.method of p: the method its payer used,
// else the one it is restricted to, else NULL (migration 0018).
func methodColumn(p *payd.Payment) any {
	if m := p.KnownMethod(); m != "" {
		return m
	}
	return nil
}

// paymentDocs encodes what a payment row keeps: the document, and the
// contract's rendering of it (Payment.View without the one-time
// confirmation_url), which lists send as it is.
func paymentDocs(p *payd.Payment) (doc, view string, err error) {
	d, err := json.Marshal(p)
	if err != nil {
		return "", "", err
	}
	v, err := json.Marshal(p.View(""))
	return string(d), string(v), err
}

// PaymentListExpired walks payments_expiry: pending payments whose
// expires_at is at or before Now, in (expires_at, id) order after After.
func (t *tx) paymentListExpired(ctx context.Context, p *payd.PaymentListExpiredParams) ([]payd.PaymentDue, error) {
	cond, args := statusIn(string(payd.PaymentPending))
	return dueRows(ctx, t, "payments", "expires_at", cond, args, p.Now, p.After.ExpiresAt, p.After.ID, p.Limit,
		func(id string, at time.Time) payd.PaymentDue { return payd.PaymentDue{ID: id, ExpiresAt: at} })
}

func (t *tx) PaymentGet(ctx context.Context, id string) (*payd.Payment, error) {
	return scanPayment(t.q.QueryRowContext(ctx, `SELECT doc FROM payments WHERE id = $1`+onKey(t.d, "merchant_key", 2), id, keyOf(id)))
}

func (t *tx) PaymentGetForUpdate(ctx context.Context, id string) (*payd.Payment, error) {
	p, err := scanPayment(t.q.QueryRowContext(ctx, `SELECT doc FROM payments WHERE id = $1`+onKey(t.d, "merchant_key", 2)+t.d.forUpdate(), id, keyOf(id)))
	t.holdLock("payments", id, err)
	if err == nil {
		t.noteStatus(id, p.Status)
	}
	return p, err
}

func (t *tx) PaymentGetByOrderID(ctx context.Context, shopID string, test bool, orderID string) (*payd.Payment, error) {
	k, err := t.idKey(ctx, shopID)
	if err != nil {
		return nil, err
	}
	return scanPayment(t.q.QueryRowContext(ctx, `SELECT doc FROM payments WHERE shop_id = $1 AND test = $2 AND order_id = $3`+
		onKey(t.d, "merchant_key", 4), shopID, test, orderID, k))
}

// paymentGetByCheckoutToken reads the payment of a token by its id when
// the token names one, else by the hash alone.
func (t *tx) paymentGetByCheckoutToken(ctx context.Context, hash []byte, paymentID string) (*payd.Payment, error) {
	if paymentID == "" {
		return scanPayment(t.q.QueryRowContext(ctx, `SELECT doc FROM payments WHERE checkout_token_hash = $1`, hash))
	}
	return scanPayment(t.q.QueryRowContext(ctx, `SELECT doc FROM payments WHERE id = $1 AND checkout_token_hash = $2`+onKey(t.d, "merchant_key", 3),
		paymentID, hash, keyOf(paymentID)))
}

// PaymentGetByProviderID finds a payment by the provider's id of it. The
// sandbox banks' ids carry the merchant's key; another provider's id is
// looked up on every shard group (docs/operations.md).
func (t *tx) PaymentGetByProviderID(ctx context.Context, provider, ppid string) (*payd.Payment, error) {
	q := `SELECT doc FROM payments WHERE provider = $1 AND provider_payment_id = $2`
	if payd.KeyCarried(ppid) {
		return scanPayment(t.q.QueryRowContext(ctx, q+onKey(t.d, "merchant_key", 3), provider, ppid, keyOf(ppid)))
	}
	return fanOutRead(ctx, t, func(t *tx) (*payd.Payment, error) { return scanPayment(t.q.QueryRowContext(ctx, q, provider, ppid)) })
}

// PaymentUpdate moves the payment from the day total of the status it
// had to that of its new one (payment_total.go); a payment's day, amount
// and currency never change.
func (t *tx) PaymentUpdate(ctx context.Context, p *payd.Payment) error {
	doc, view, err := paymentDocs(p)
	if err != nil {
		return err
	}
	was, err := t.statusBefore(ctx, p)
	if err != nil {
		return err
	}
	if was != p.Status {
		t.countPayment(p, was, -1)
		t.countPayment(p, p.Status, 1)
	}
	return t.updateLocked(ctx, "payments", p.ID, `UPDATE payments SET status = $2, provider = $3, provider_payment_id = $4, doc = $5, view = $6, view_version = $7,
		method = $8 WHERE id = $1`+onKey(t.d, "merchant_key", 9), p.ID, p.Status, p.Provider, p.ProviderPaymentID, doc, view, payd.PaymentViewVersion,
		methodColumn(p), keyOf(p.ID))
}

// paymentViewCurrent is the condition of a stored rendering of the running
// version. The version is a code constant written into the text, not a
// parameter, so that the stale pass's condition is the literal predicate
// of the payments_view_stale index and the planner can use it.
var paymentViewCurrent = "view_version = " + strconv.Itoa(payd.PaymentViewVersion)

// paymentRendering are the two columns rendered reads: the stored
// rendering when it is current, else the document to render it from.
var paymentRendering = `CASE WHEN ` + paymentViewCurrent + ` THEN view END, CASE WHEN ` + paymentViewCurrent + ` THEN NULL ELSE doc END`

// PaymentViewsStale walks payments_view_stale: the ids of payments whose
// rendering is of an older version, in id order after after.
func (t *tx) paymentViewsStale(ctx context.Context, after string, limit int) ([]string, error) {
	return queryStrings(ctx, t.q, `SELECT id FROM payments WHERE view_version < `+strconv.Itoa(payd.PaymentViewVersion)+
		` AND id > $1 ORDER BY id LIMIT $2`, after, limit)
}

// PaymentViewList lists payments as the contract renders them: each item
// is the payment's stored rendering, read and handed on without decoding,
// when it is of the running version (payd.PaymentViewVersion); any other
// payment is rendered from its document, so a list and a GET agree.
func (t *tx) PaymentViewList(ctx context.Context, p *payd.PaymentListParams) (payd.Page[*payd.PaymentView], error) {
	w := paymentListWhere(p)
	if err := t.onShop(ctx, &w, p.ShopID); err != nil {
		return payd.Page[*payd.PaymentView]{}, err
	}
	return listPage(ctx, t, `SELECT id, created_at, `+paymentRendering+` FROM payments`,
		w, p.ListParams,
		func(r *sql.Rows) (*payd.PaymentView, error) {
			var v payd.PaymentView
			var at int64
			var view, doc sql.NullString
			if err := r.Scan(&v.ID, &at, &view, &doc); err != nil {
				return nil, err
			}
			v.CreatedAt = fromMicros(at)
			return &v, rendered(&v, view, doc)
		},
		func(v *payd.PaymentView) payd.Cursor { return payd.Cursor{CreatedAt: v.CreatedAt, ID: v.ID} })
}

// PaymentViewGet reads one payment's rendering as PaymentViewList does.
// Outside a transaction it may be read together with others (readBatch).
func (t *tx) PaymentViewGet(ctx context.Context, id string) (*payd.PaymentView, error) {
	if t.views != nil {
		v, err := t.views.get(ctx, id)
		return v, noRows(err)
	}
	v, err := paymentViewOne(ctx, t.q, t.d, id)
	return v, noRows(err)
}

// paymentViewColumns are what a payment's read for its rendering takes.
var paymentViewColumns = `SELECT id, created_at, shop_id, test, ` + paymentRendering + ` FROM payments WHERE `

func paymentViewOne(ctx context.Context, q querier, d dialect, id string) (*payd.PaymentView, error) {
	return scanPaymentView(q.QueryRowContext(ctx, paymentViewColumns+`id = $1`+onKey(d, "merchant_key", 2), id, keyOf(id)).Scan)
}

// paymentViewsOf reads the renderings of the payments of ids that exist,
// in one statement.
func paymentViewsOf(ctx context.Context, q querier, d dialect, ids []string) (map[string]*payd.PaymentView, error) {
	list, _ := json.Marshal(ids)
	out := make(map[string]*payd.PaymentView, len(ids))
	err := eachRow(ctx, q, paymentViewColumns+`id IN (`+d.jsonStrings(1)+`)`, []any{string(list)}, func(r *sql.Rows) error {
		v, err := scanPaymentView(r.Scan)
		if err == nil {
			out[v.ID] = v
		}
		return err
	})
	return out, err
}

// scanPaymentView reads a row of paymentViewColumns.
func scanPaymentView(scan func(...any) error) (*payd.PaymentView, error) {
	var v payd.PaymentView
	var at int64
	var view, doc sql.NullString
	if err := scan(&v.ID, &at, &v.ShopID, &v.Test, &view, &doc); err != nil {
		return nil, err
	}
	v.CreatedAt = fromMicros(at)
	return &v, rendered(&v, view, doc)
}

// rendered sets v's JSON: the stored rendering when it is of the running
// version (view), or else one made from the payment's document.
func rendered(v *payd.PaymentView, view, doc sql.NullString) error {
	if view.Valid {
		v.JSON = view.String
		return nil
	}
	var pay payd.Payment
	if err := json.Unmarshal([]byte(doc.String), &pay); err != nil {
		return err
	}
	b, err := json.Marshal(pay.View(""))
	v.JSON = string(b)
	return err
}

// paymentListWhere is the filter of both payment lists.
func paymentListWhere(p *payd.PaymentListParams) where {
	w := where{index: "payments_list"}
	w.add("shop_id = ?", p.ShopID)
	w.add("test = ?", p.Test)
	switch {
	case p.OrderID != "":
		w.index, w.unique = "payments_order", true
	case p.Method != "":
		w.index = "payments_method"
	case p.Status != "":
		w.index = "payments_status"
	}
	if p.OrderID != "" {
		w.add("order_id = ?", p.OrderID)
	}
	if p.Status != "" {
		w.add("status = ?", p.Status)
	}
	if p.Method != "" {
		w.add("method = ?", p.Method)
	}
	w.createdRange(p.Created)
	return w
}

func (t *tx) PaymentStats(ctx context.Context, shopID string, test bool, currency string, since time.Time) (int, int64, error) {
	k, err := t.idKey(ctx, shopID)
	if err != nil {
		return 0, 0, err
	}
	var w where
	w.add("shop_id = ?", shopID)
	w.addKey(t.d, k)
	w.add("test = ?", test)
	w.add("created_at >= ?", micros(since))
	w.add("status <> ?", payd.PaymentCanceled)
	if currency != "" {
		w.add("currency = ?", currency)
	}
	var n int
	var sum sql.NullInt64
	err = t.q.QueryRowContext(ctx, `SELECT COUNT(*), SUM(amount) FROM payments WHERE `+joinAnd(w.conds), w.args...).Scan(&n, &sum)
	return n, sum.Int64, err
}

func (t *tx) NotificationRecord(ctx context.Context, provider, id string, at time.Time) error {
	return t.insertOne(ctx, `INSERT INTO provider_notifications (provider, notification_id, received_at) VALUES ($1, $2, $3)
		ON CONFLICT DO NOTHING`, provider, id, micros(at))
}

// DiscrepancyInsert keeps a discrepancy with its payment, where it names
// one: the operator's record, read only in the operator's lists.
func (t *tx) DiscrepancyInsert(ctx context.Context, d *payd.Discrepancy) error {
	doc, _ := json.Marshal(d)
	_, err := t.exec(ctx, `INSERT INTO discrepancies (id, payment_id, created_at, doc, merchant_key) VALUES ($1, $2, $3, $4, $5)`,
		d.ID, d.PaymentID, micros(d.CreatedAt), string(doc), keyOf(d.PaymentID, d.ID))
	return err
}

func (t *tx) discrepancyList(ctx context.Context, lp *payd.ListParams) (payd.Page[*payd.Discrepancy], error) {
	return listPage(ctx, t, `SELECT doc FROM discrepancies`, where{index: "discrepancies_list"}, *lp,
		func(r *sql.Rows) (*payd.Discrepancy, error) {
			var doc string
			if err := r.Scan(&doc); err != nil {
				return nil, err
			}
			var d payd.Discrepancy
			return &d, json.Unmarshal([]byte(doc), &d)
		},
		func(d *payd.Discrepancy) payd.Cursor { return payd.Cursor{CreatedAt: d.CreatedAt, ID: d.ID} })
}

func scanSandbox(r interface{ Scan(...any) error }) (*payd.SandboxAttempt, error) {
	var doc string
	if err := r.Scan(&doc); err != nil {
		return nil, noRows(err)
	}
	var a payd.SandboxAttempt
	return &a, json.Unmarshal([]byte(doc), &a)
}

func (t *tx) SandboxAttemptInsert(ctx context.Context, a *payd.SandboxAttempt) error {
	doc, _ := json.Marshal(a)
	_, err := t.exec(ctx, `INSERT INTO sandbox_attempts (id, provider, reference, payment_id, created_at, doc, merchant_key) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		a.ID, a.Provider, a.Reference, a.PaymentID, micros(a.CreatedAt), string(doc), keyOf(a.ID))
	return err
}

func (t *tx) SandboxAttemptGet(ctx context.Context, id string) (*payd.SandboxAttempt, error) {
	return scanSandbox(t.q.QueryRowContext(ctx, `SELECT doc FROM sandbox_attempts WHERE id = $1`+onKey(t.d, "merchant_key", 2), id, keyOf(id)))
}

func (t *tx) SandboxAttemptGetByReference(ctx context.Context, provider, reference string) (*payd.SandboxAttempt, error) {
	return scanSandbox(t.q.QueryRowContext(ctx, `SELECT doc FROM sandbox_attempts WHERE provider = $1 AND reference = $2`+onKey(t.d, "merchant_key", 3),
		provider, reference, keyOf(payd.AttemptPayment(reference))))
}

func (t *tx) SandboxAttemptGetForUpdate(ctx context.Context, id string) (*payd.SandboxAttempt, error) {
	a, err := scanSandbox(t.q.QueryRowContext(ctx, `SELECT doc FROM sandbox_attempts WHERE id = $1`+onKey(t.d, "merchant_key", 2)+t.d.forUpdate(), id, keyOf(id)))
	t.holdLock("sandbox_attempts", id, err)
	return a, err
}

func (t *tx) SandboxAttemptUpdate(ctx context.Context, a *payd.SandboxAttempt) error {
	doc, _ := json.Marshal(a)
	return t.updateLocked(ctx, "sandbox_attempts", a.ID, `UPDATE sandbox_attempts SET doc = $2 WHERE id = $1`+onKey(t.d, "merchant_key", 3), a.ID, string(doc), keyOf(a.ID))
}

func (t *tx) SecretGetOrCreate(ctx context.Context, name string, fresh []byte) ([]byte, error) {
	if _, err := t.q.ExecContext(ctx, `INSERT INTO service_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
		name, t.sealBytes(fresh, "service_secrets", "value", name)); err != nil {
		return nil, err
	}
	var v []byte
	if err := t.q.QueryRowContext(ctx, `SELECT value FROM service_secrets WHERE name = $1`, name).Scan(&v); err != nil {
		return nil, err
	}
	return t.openBytes(v, "service_secrets", "value", name)
}
