package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

func (t *tx) SettlementInsert(ctx context.Context, st *payd.Settlement) error {
	doc, _ := json.Marshal(st)
	return t.insertOne(ctx, `INSERT INTO settlements (id, merchant_id, test, currency, period_from, period_to, status, created_at, doc, merchant_key)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
		st.ID, st.MerchantID, st.Test, st.Currency, st.PeriodFrom, st.PeriodTo, st.Status, micros(st.CreatedAt), string(doc), keyOf(st.MerchantID))
}

func (t *tx) SettlementGet(ctx context.Context, id string) (*payd.Settlement, error) {
	return scanDoc[payd.Settlement](t.q.QueryRowContext(ctx, `SELECT doc FROM settlements WHERE id = $1`+onKey(t.d, "merchant_key", 2), id, keyOf(id)))
}

func (t *tx) SettlementGetForUpdate(ctx context.Context, id string) (*payd.Settlement, error) {
	return scanDoc[payd.Settlement](t.q.QueryRowContext(ctx, `SELECT doc FROM settlements WHERE id = $1`+onKey(t.d, "merchant_key", 2)+t.d.forUpdate(), id, keyOf(id)))
}

func (t *tx) SettlementUpdate(ctx context.Context, st *payd.Settlement) error {
	doc, _ := json.Marshal(st)
	return t.execOne(ctx, `UPDATE settlements SET status = $2, doc = $3 WHERE id = $1`+onKey(t.d, "merchant_key", 4), st.ID, st.Status, string(doc), keyOf(st.ID))
}

func (t *tx) SettlementListUnpaid(ctx context.Context, merchantID string, test bool, c money.Currency) ([]*payd.Settlement, error) {
	rows, err := t.q.QueryContext(ctx, `SELECT doc FROM settlements
		WHERE merchant_id = $1 AND test = $2 AND currency = $3 AND status IN ($4, $5, $6)`+onKey(t.d, "merchant_key", 7),
		merchantID, test, c, payd.SettlementDraft, payd.SettlementApproved, payd.SettlementSent, keyOf(merchantID))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*payd.Settlement
	for rows.Next() {
		st, err := scanDoc[payd.Settlement](rows)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

func (t *tx) SettlementList(ctx context.Context, p *payd.SettlementListParams) (payd.Page[*payd.Settlement], error) {
	w := where{index: "settlements_list"}
	w.add("merchant_id = ?", p.MerchantID)
	w.add("test = ?", p.Test)
	w.addKey(t.d, merchantKey(p.MerchantID))
	// Dates are YYYY-MM-DD, so text order is date order.
	if p.PeriodFrom != "" {
		w.add("period_from >= ?", p.PeriodFrom)
	}
	if p.PeriodTo != "" {
		w.add("period_to <= ?", p.PeriodTo)
	}
	if p.Currency != "" {
		w.add("currency = ?", p.Currency)
	}
	if p.Status != "" {
		w.add("status = ?", p.Status)
	}
	return listPage(ctx, t, `SELECT doc FROM settlements`, w, p.ListParams,
		func(r *sql.Rows) (*payd.Settlement, error) { return scanDoc[payd.Settlement](r) },
		func(s *payd.Settlement) payd.Cursor { return payd.Cursor{CreatedAt: s.CreatedAt, ID: s.ID} })
}

// SettlementQueue is the operator's queue of registers. One merchant's
// are its own list (settlements_list, in its shard group); every
// merchant's walk settlements_queue by state or settlements_recent
// without one (migration 0036), reading every group (fanout.go).
func (t *tx) SettlementQueue(ctx context.Context, p *payd.SettlementQueueParams) (payd.Page[*payd.Settlement], error) {
	if p.MerchantID != "" {
		return t.SettlementList(ctx, &payd.SettlementListParams{ListParams: p.ListParams, MerchantID: p.MerchantID, Test: p.Test,
			Currency: p.Currency, Status: p.Status})
	}
	w := where{index: "settlements_recent"}
	w.add("test = ?", p.Test)
	if p.Status != "" {
		w.index = "settlements_queue"
		w.add("status = ?", p.Status)
	}
	if p.Currency != "" {
		w.add("currency = ?", p.Currency)
	}
	return fanOutRead(ctx, t, func(t *tx) (payd.Page[*payd.Settlement], error) {
		return listPage(ctx, t, `SELECT doc FROM settlements`, w, p.ListParams,
			func(r *sql.Rows) (*payd.Settlement, error) { return scanDoc[payd.Settlement](r) },
			func(s *payd.Settlement) payd.Cursor { return payd.Cursor{CreatedAt: s.CreatedAt, ID: s.ID} })
	})
}

// ledgerDayEntriesSQL selects the entries of a period of one merchant's
// contour and currency: a range of ledger_postings_owner_at (migration
// 0023), whatever the history before it.
func ledgerDayEntriesSQL(d dialect) string {
	return `SELECT DISTINCT entry_id FROM ledger_postings
			WHERE owner = $1 AND test = $2 AND currency = $3 AND at >= $4 AND at < $5` + onKey(d, "merchant_key", 6)
}

func (t *tx) LedgerEntriesOf(ctx context.Context, merchantID string, test bool, c money.Currency, from, to time.Time) ([]*ledger.Entry, error) {
	rows, err := t.q.QueryContext(ctx, `SELECT e.id, e.at, e.kind, e.ref_type, e.ref_id, p.account_key, p.amount
		FROM ledger_entries e JOIN ledger_postings p ON p.entry_id = e.id AND p.merchant_key = e.merchant_key
		WHERE e.id IN (`+ledgerDayEntriesSQL(t.d)+`)`+onKey(t.d, "e.merchant_key", 6)+`
		ORDER BY e.at, e.id, p.seq`, merchantID, test, c, micros(from), micros(to), keyOf(merchantID))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*ledger.Entry
	for rows.Next() {
		var e ledger.Entry
		var at, amount int64
		var key string
		if err := rows.Scan(&e.ID, &at, &e.Kind, &e.RefType, &e.RefID, &key, &amount); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].ID != e.ID {
			e.At = fromMicros(at)
			out = append(out, &e)
		}
		a, err := ledger.ParseKey(key)
		if err != nil {
			return nil, err
		}
		last := out[len(out)-1]
		last.Postings = append(last.Postings, ledger.Posting{Account: a, Amount: amount})
	}
	return out, rows.Err()
}
