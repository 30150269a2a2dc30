package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/csvexport"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/money"
)

func (s *Server) listSettlements(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	q := r.URL.Query()
	lp, print, err := httpapi.ParseList(q, "period_from", "period_to", "currency", "status")
	if err != nil {
		return err
	}
	params := &payd.SettlementListParams{ListParams: lp}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"period_from", &params.PeriodFrom}, {"period_to", &params.PeriodTo}} {
		if v := q.Get(f.name); v != "" {
			if _, err := time.Parse(time.DateOnly, v); err != nil {
				return payd.Invalid(f.name, "%s must be a date YYYY-MM-DD", f.name)
			}
			*f.dst = v
		}
	}
	if c := q.Get("currency"); c != "" {
		if !money.Currency(c).Valid() {
			return payd.Invalid("currency", "currency must be one of RUB, KZT, USD, EUR")
		}
		params.Currency = money.Currency(c)
	}
	if st := q.Get("status"); st != "" {
		if !payd.SettlementState(st).Valid() {
			return payd.Invalid("status", "status must be draft, approved, sent, paid or failed")
		}
		params.Status = payd.SettlementState(st)
	}
	page, err := s.svc.ListSettlements(r.Context(), p, params)
	if err != nil {
		return err
	}
	items := make([]*payd.SettlementJSON, 0, len(page.Items))
	for _, st := range page.Items {
		items = append(items, st.View(s.svc.ReportURL(st)))
	}
	httpapi.WriteJSON(w, http.StatusOK, listBody{Items: items, NextCursor: httpapi.EncodeCursor(page.Next, print)})
	return nil
}

func (s *Server) getSettlement(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	st, err := s.svc.GetSettlement(r.Context(), p, r.PathValue("settlement_id"))
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, st.View(s.svc.ReportURL(st)))
	return nil
}

// SettlementReportPath is where a settlement's CSV register is served:
// SettlementReportPath + the settlement's id + ".csv", the report_url the
// service signs (payd.Paths).
const SettlementReportPath = "/reports/settlements/"

// settlementReport serves the CSV register of a settlement's period behind
// its signed, expiring link; no credentials are needed, the signature is
// the credential.
func (s *Server) settlementReport(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimSuffix(r.PathValue("file"), ".csv")
	st, entries, err := s.svc.ReportEntries(r.Context(), id, r.URL.Query().Get("expires"), r.URL.Query().Get("sig"))
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+st.ID+`.csv"`)
	w.Header().Set("Cache-Control", "no-store")
	cw := csvexport.NewWriter(w)
	cw.Write([]string{"settlement_id", "entry_id", "at", "operation", "object_type", "object_id", "account", "amount", "currency"})
	for _, e := range entries {
		for _, p := range e.Postings {
			if p.Account.Owner != st.MerchantID {
				continue
			}
			cw.Write([]string{st.ID, e.ID, e.At.Format(time.RFC3339), string(e.Kind), e.RefType, e.RefID,
				string(p.Account.Bucket), money.FormatValue(p.Amount), string(st.Currency)})
		}
	}
	cw.Flush()
}
