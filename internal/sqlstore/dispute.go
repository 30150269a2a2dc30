package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

func (t *tx) DisputeInsert(ctx context.Context, d *payd.Dispute) error {
	doc, err := json.Marshal(d)
	if err != nil {
		return err
	}
	// ON CONFLICT DO NOTHING, as for payments: a provider's repeated
	// opening is a conflict the caller answers in the same transaction.
	return t.insertOne(ctx, `INSERT INTO disputes (id, shop_id, merchant_id, test, payment_id, kind, status, created_at,
		deadline_at, provider, provider_dispute_id, doc, merchant_key) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
		ON CONFLICT DO NOTHING`,
		d.ID, d.ShopID, d.MerchantID, d.Test, d.PaymentID, d.Kind, d.Status, micros(d.CreatedAt),
		micros(d.EvidenceDeadlineAt), d.Provider, d.ProviderDisputeID, string(doc), keyOf(d.MerchantID))
}

func (t *tx) DisputeGet(ctx context.Context, id string) (*payd.Dispute, error) {
	return scanDoc[payd.Dispute](t.q.QueryRowContext(ctx, `SELECT doc FROM disputes WHERE id = $1`+onKey(t.d, "merchant_key", 2), id, keyOf(id)))
}

func (t *tx) DisputeGetForUpdate(ctx context.Context, id string) (*payd.Dispute, error) {
	return scanDoc[payd.Dispute](t.q.QueryRowContext(ctx, `SELECT doc FROM disputes WHERE id = $1`+onKey(t.d, "merchant_key", 2)+t.d.forUpdate(), id, keyOf(id)))
}

func (t *tx) disputeGetByProviderID(ctx context.Context, provider, providerDisputeID string) (*payd.Dispute, error) {
	return scanDoc[payd.Dispute](t.q.QueryRowContext(ctx,
		`SELECT doc FROM disputes WHERE provider = $1 AND provider_dispute_id = $2 AND provider_dispute_id <> ''`,
		provider, providerDisputeID))
}

func (t *tx) DisputeUpdate(ctx context.Context, d *payd.Dispute) error {
	doc, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return t.execOne(ctx, `UPDATE disputes SET status = $2, deadline_at = $3, doc = $4 WHERE id = $1`+onKey(t.d, "merchant_key", 5),
		d.ID, d.Status, micros(d.EvidenceDeadlineAt), string(doc), keyOf(d.ID))
}

func (t *tx) DisputeList(ctx context.Context, p *payd.DisputeListParams) (payd.Page[*payd.Dispute], error) {
	w := where{index: "disputes_list"}
	if p.PaymentID != "" {
		w.index = "disputes_payment"
	}
	w.add("shop_id = ?", p.ShopID)
	w.add("test = ?", p.Test)
	if p.PaymentID != "" {
		w.add("payment_id = ?", p.PaymentID)
	}
	if p.Status != "" {
		w.add("status = ?", p.Status)
	}
	if p.Kind != "" {
		w.add("kind = ?", p.Kind)
	}
	w.createdRange(p.Created)
	if err := t.onShop(ctx, &w, p.ShopID); err != nil {
		return payd.Page[*payd.Dispute]{}, err
	}
	return listPage(ctx, t, `SELECT doc FROM disputes`, w, p.ListParams,
		func(r *sql.Rows) (*payd.Dispute, error) { return scanDoc[payd.Dispute](r) },
		func(d *payd.Dispute) payd.Cursor { return payd.Cursor{CreatedAt: d.CreatedAt, ID: d.ID} })
}

// byDeadline is the dispute queue's order: soonest evidence deadline
// first.
var byDeadline = keyset{column: "deadline_at", ascending: true}

// DisputeQueue is the operator's queue of disputes by deadline. Each
// status is a walk of its own of disputes_queue, or of
// disputes_merchant_queue for one merchant (migration 0036): an index
// gives (deadline_at, id) order within one status only, and an IN over
// several would have the database read every dispute of them and sort.
// The walks' pages are merged here, each of them as long as the page
// asked for, so the first of them all are the page.
func (t *tx) DisputeQueue(ctx context.Context, p *payd.DisputeQueueParams) (payd.Page[*payd.Dispute], error) {
	limit := pageSize(p.ListParams)
	read := func(t *tx) (payd.Page[*payd.Dispute], error) {
		var merged payd.Page[*payd.Dispute]
		more := false
		for _, st := range p.Statuses {
			w := where{index: "disputes_queue"}
			if p.MerchantID != "" {
				w.index = "disputes_merchant_queue"
				w.add("merchant_id = ?", p.MerchantID)
				w.addKey(t.d, merchantKey(p.MerchantID))
			}
			w.add("test = ?", p.Test)
			w.add("status = ?", st)
			page, err := keysetPage(ctx, t, `SELECT doc FROM disputes`, w, byDeadline, p.ListParams,
				func(r *sql.Rows) (*payd.Dispute, error) { return scanDoc[payd.Dispute](r) }, disputeDeadlineKey)
			if err != nil {
				return payd.Page[*payd.Dispute]{}, err
			}
			merged.Items = append(merged.Items, page.Items...)
			more = more || page.Next != nil
		}
		// In the column's order: microseconds, then id.
		slices.SortFunc(merged.Items, func(a, b *payd.Dispute) int {
			return cmp.Or(cmp.Compare(a.EvidenceDeadlineAt.UnixMicro(), b.EvidenceDeadlineAt.UnixMicro()), strings.Compare(a.ID, b.ID))
		})
		// A walk that had more has a full page of its own: the merge
		// then has at least a page too.
		if more || len(merged.Items) > limit {
			merged.Items = merged.Items[:limit]
			next := disputeDeadlineKey(merged.Items[limit-1])
			merged.Next = &next
		}
		return merged, nil
	}
	if p.MerchantID != "" {
		return read(t)
	}
	// Every merchant's disputes: the operator's queue (fanout.go).
	return fanOutRead(ctx, t, read)
}

// disputeDeadlineKey is a dispute's position in the queue by deadline.
func disputeDeadlineKey(d *payd.Dispute) payd.Cursor {
	return payd.Cursor{CreatedAt: d.EvidenceDeadlineAt, ID: d.ID}
}

// DisputeListExpired walks disputes_expiry: unanswered disputes whose
// deadline is at or before Now, in (deadline_at, id) order after After.
func (t *tx) disputeListExpired(ctx context.Context, p *payd.DisputeListExpiredParams) ([]payd.DisputeDue, error) {
	cond, args := statusIn(string(payd.DisputeOpened), string(payd.DisputeEvidenceRequired))
	return dueRows(ctx, t, "disputes", "deadline_at", cond, args,
		p.Now, p.After.DeadlineAt, p.After.ID, p.Limit,
		func(id string, at time.Time) payd.DisputeDue { return payd.DisputeDue{ID: id, DeadlineAt: at} })
}

func (t *tx) disputeAmounts(ctx context.Context) ([]payd.DisputeAmount, error) {
	rows, err := t.q.QueryContext(ctx, `SELECT doc FROM disputes ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []payd.DisputeAmount
	for rows.Next() {
		d, err := scanDoc[payd.Dispute](rows)
		if err != nil {
			return nil, err
		}
		out = append(out, payd.DisputeAmount{ID: d.ID, PaymentID: d.PaymentID, MerchantID: d.MerchantID, Test: d.Test,
			Status: d.Status, Amount: d.Amount})
	}
	return out, rows.Err()
}

func (t *tx) ChargebackStats(ctx context.Context, merchantID string, test bool, since time.Time) (chargebacks, payments int, err error) {
	err = t.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM disputes
		WHERE merchant_id = $1 AND test = $2 AND kind = $3 AND created_at >= $4`+onKey(t.d, "merchant_key", 5),
		merchantID, test, payd.DisputeChargeback, micros(since), keyOf(merchantID)).Scan(&chargebacks)
	if err != nil {
		return 0, 0, err
	}
	err = t.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM payments
		WHERE shop_id IN (SELECT id FROM shops WHERE merchant_id = $1`+onKey(t.d, "merchant_key", 5)+`)
			AND test = $2 AND status = $3 AND created_at >= $4`+onKey(t.d, "merchant_key", 5),
		merchantID, test, payd.PaymentSucceeded, micros(since), keyOf(merchantID)).Scan(&payments)
	return chargebacks, payments, err
}

func (t *tx) ledgerSubBalances(ctx context.Context, owner string, test bool, c money.Currency, b ledger.Bucket) (map[string]int64, error) {
	rows, err := t.q.QueryContext(ctx, `SELECT sub, SUM(amount) FROM ledger_postings
		WHERE owner = $1 AND test = $2 AND currency = $3 AND bucket = $4`+t.onOwner(owner, 5)+` GROUP BY sub HAVING SUM(amount) <> 0`,
		owner, test, c, b, keyOf(owner))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var sub string
		var sum int64
		if err := rows.Scan(&sub, &sum); err != nil {
			return nil, err
		}
		out[sub] = sum
	}
	return out, rows.Err()
}

func (t *tx) ledgerContours(ctx context.Context, b ledger.Bucket) ([]payd.LedgerContour, error) {
	rows, err := t.q.QueryContext(ctx, `SELECT DISTINCT owner, test, currency FROM ledger_postings WHERE bucket = $1
		ORDER BY owner, test, currency`, b)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []payd.LedgerContour
	for rows.Next() {
		var c payd.LedgerContour
		if err := rows.Scan(&c.Owner, &c.Test, &c.Currency); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func (t *tx) EvidenceFileInsert(ctx context.Context, f *payd.EvidenceFile) error {
	doc, err := json.Marshal(f)
	if err != nil {
		return err
	}
	_, err = t.exec(ctx, `INSERT INTO evidence_files (id, dispute_id, state, created_at, doc, shop_id, test, size_bytes, expires_at, attached, merchant_key)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		f.ID, f.DisputeID, f.State, micros(f.CreatedAt), string(doc), f.ShopID, f.Test, f.SizeBytes, micros(f.UploadExpiresAt), f.AttachedAt != nil,
		keyOf(f.ID))
	return err
}

func (t *tx) EvidenceFileGet(ctx context.Context, id string) (*payd.EvidenceFile, error) {
	return scanDoc[payd.EvidenceFile](t.q.QueryRowContext(ctx, `SELECT doc FROM evidence_files WHERE id = $1`+onKey(t.d, "merchant_key", 2), id, keyOf(id)))
}

func (t *tx) EvidenceFileGetForUpdate(ctx context.Context, id string) (*payd.EvidenceFile, error) {
	return scanDoc[payd.EvidenceFile](t.q.QueryRowContext(ctx, `SELECT doc FROM evidence_files WHERE id = $1`+onKey(t.d, "merchant_key", 2)+t.d.forUpdate(), id, keyOf(id)))
}

func (t *tx) EvidenceFileUpdate(ctx context.Context, f *payd.EvidenceFile) error {
	doc, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return t.execOne(ctx, `UPDATE evidence_files SET state = $2, doc = $3, shop_id = $4, test = $5, size_bytes = $6, expires_at = $7, attached = $8
		WHERE id = $1`+onKey(t.d, "merchant_key", 9), f.ID, f.State, string(doc), f.ShopID, f.Test, f.SizeBytes, micros(f.UploadExpiresAt), f.AttachedAt != nil, keyOf(f.ID))
}

// EvidenceWaiting reads evidence_files_waiting for a shop, or a dispute's
// files through evidence_files_dispute.
func (t *tx) EvidenceWaiting(ctx context.Context, p *payd.EvidenceWaitingParams) (payd.EvidenceWaitingSum, error) {
	k, err := t.idKey(ctx, p.ShopID)
	if err != nil {
		return payd.EvidenceWaitingSum{}, err
	}
	q, args := `SELECT COUNT(*), COALESCE(SUM(size_bytes), 0), COALESCE(MIN(expires_at), 0) FROM evidence_files
		WHERE shop_id = $1 AND test = $2 AND NOT attached AND expires_at > $3`+onKey(t.d, "merchant_key", 4), []any{p.ShopID, p.Test, micros(p.Now), k}
	if p.DisputeID != "" {
		q, args = `SELECT COUNT(*), COALESCE(SUM(size_bytes), 0), COALESCE(MIN(expires_at), 0) FROM evidence_files
			WHERE dispute_id = $1 AND NOT attached AND expires_at > $2`+onKey(t.d, "merchant_key", 3), []any{p.DisputeID, micros(p.Now), keyOf(p.DisputeID)}
	}
	var sum payd.EvidenceWaitingSum
	var next int64
	if err := t.q.QueryRowContext(ctx, q, args...).Scan(&sum.Files, &sum.Bytes, &next); err != nil {
		return sum, err
	}
	if sum.Files > 0 {
		sum.NextExpiry = fromMicros(next)
	}
	return sum, nil
}

// EvidenceListExpired walks evidence_files_expiry.
func (t *tx) evidenceListExpired(ctx context.Context, p *payd.EvidenceListExpiredParams) ([]payd.EvidenceDue, error) {
	return dueRows(ctx, t, "evidence_files", "expires_at", "NOT attached", nil, p.Now, p.After.ExpiresAt, p.After.ID, p.Limit,
		func(id string, at time.Time) payd.EvidenceDue { return payd.EvidenceDue{ID: id, ExpiresAt: at} })
}

func (t *tx) EvidenceFileDelete(ctx context.Context, id string) error {
	if err := t.EvidenceChunksDelete(ctx, id); err != nil {
		return err
	}
	return t.execOne(ctx, `DELETE FROM evidence_files WHERE id = $1`+onKey(t.d, "merchant_key", 2), id, keyOf(id))
}

func (t *tx) EvidenceChunkPut(ctx context.Context, fileID string, seq int, data []byte) error {
	_, err := t.exec(ctx, `INSERT INTO evidence_chunks (file_id, seq, data, merchant_key) VALUES ($1, $2, $3, $4)`, fileID, seq, data, keyOf(fileID))
	return err
}

func (t *tx) EvidenceChunkGet(ctx context.Context, fileID string, seq int) ([]byte, error) {
	var data []byte
	err := t.q.QueryRowContext(ctx, `SELECT data FROM evidence_chunks WHERE file_id = $1 AND seq = $2`+onKey(t.d, "merchant_key", 3), fileID, seq, keyOf(fileID)).Scan(&data)
	return data, noRows(err)
}

func (t *tx) EvidenceChunksDelete(ctx context.Context, fileID string) error {
	_, err := t.exec(ctx, `DELETE FROM evidence_chunks WHERE file_id = $1`+onKey(t.d, "merchant_key", 2), fileID, keyOf(fileID))
	return err
}
