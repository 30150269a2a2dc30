package dashboard

import (
	"net/http"
	"strings"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/csvexport"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

type balancePageView struct {
	Balance     []payd.BalanceJSON
	Settlements []*payd.SettlementJSON
	// Rows are the registers' rows (settlementRows).
	Rows  rowsHTML
	Pages pager
}

// balance shows the merchant's balance buckets per currency and its
// registers (settlements), newest first, in keyset pages.
func (h *Handler) balance(q *req) {
	p := q.principal()
	bal, err := h.svc.Balance(q.ctx, p)
	if err != nil {
		q.fail(err)
		return
	}
	lp, print, keep, err := listQuery(q.r.URL.Query())
	if err != nil {
		q.fail(err)
		return
	}
	page, err := h.svc.ListSettlements(q.ctx, p, &payd.SettlementListParams{ListParams: lp})
	if err != nil {
		q.fail(err)
		return
	}
	v := balancePageView{Balance: bal}
	for _, st := range page.Items {
		v.Settlements = append(v.Settlements, st.View(""))
	}
	if v.Rows, err = settlementRows(q.l, v.Settlements, q.base()); err != nil {
		q.fail(err)
		return
	}
	v.Pages = pagesOf(q.r.URL.Query(), keep, page.Next, print)
	q.render(http.StatusOK, "balance", "balance", q.l.T("Balance and settlements"), v)
}

// registerRow is one posting of the register's report: a line of an entry on
// one of the merchant's buckets.
type registerRow struct {
	EntryID, Kind, RefType, RefID, Bucket string
	At                                    time.Time
	Amount                                money.Signed
}

type settlementView struct {
	S    *payd.SettlementJSON
	Rows []registerRow
	CSV  string
}

// settlement serves settlements/{id} (the register and its entries) and
// settlements/{id}.csv (the same rows as the API's report, as a file).
func (h *Handler) settlement(q *req) {
	file := q.r.PathValue("file")
	id, isCSV := strings.CutSuffix(file, ".csv")
	st, entries, err := h.svc.SettlementEntries(q.ctx, q.principal(), id)
	if err != nil {
		q.fail(err)
		return
	}
	rows := registerRows(st, entries)
	if isCSV {
		settlementCSV(q, st, rows)
		return
	}
	q.render(http.StatusOK, "settlement", "balance", q.l.T("Settlement")+" "+st.ID,
		settlementView{S: st.View(""), Rows: rows, CSV: q.base() + "settlements/" + st.ID + ".csv"})
}

// registerRows are the merchant's lines of the register's entries, as the
// API's report lists them.
func registerRows(st *payd.Settlement, entries []*ledger.Entry) []registerRow {
	var out []registerRow
	for _, e := range entries {
		for _, p := range e.Postings {
			if p.Account.Owner != st.MerchantID {
				continue
			}
			out = append(out, registerRow{EntryID: e.ID, Kind: string(e.Kind), RefType: e.RefType, RefID: e.RefID,
				Bucket: string(p.Account.Bucket), At: e.At, Amount: money.Signed{Minor: p.Amount, Currency: st.Currency}})
		}
	}
	return out
}

// settlementCSV writes the register's rows in the columns of the API's
// report (report_url), flushing as it goes.
func settlementCSV(q *req, st *payd.Settlement, rows []registerRow) {
	w := q.w
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+st.ID+`.csv"`)
	cw := csvexport.NewWriter(w)
	_ = cw.Write([]string{"settlement_id", "entry_id", "at", "operation", "object_type", "object_id", "account", "amount", "currency"})
	flusher, _ := w.(http.Flusher)
	for i, r := range rows {
		_ = cw.Write([]string{st.ID, r.EntryID, r.At.Format(time.RFC3339), r.Kind, r.RefType, r.RefID,
			r.Bucket, money.FormatValue(r.Amount.Minor), string(st.Currency)})
		if i%500 == 499 {
			cw.Flush()
			if flusher != nil {
				flusher.Flush()
			}
		}
	}
	cw.Flush()
}
