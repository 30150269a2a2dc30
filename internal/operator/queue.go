package operator

import (
	"net/http"
	"net/url"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/money"
)

// The back office works from two queues across merchants: the registers
// by state, newest first, and the disputes by evidence deadline, soonest
// first (docs/operator.md, "Routes"). Both page with the API's opaque
// cursor; the dispute queue's holds the deadline and id of the last item.

// listSettlementQueue is `GET /admin/v1/settlements`: ?status= (every
// state when absent), test= (false when absent), merchant_id=, currency=.
func (s *server) listSettlementQueue(r *http.Request) (int, any, error) {
	q := r.URL.Query()
	lp, print, err := httpapi.ParseList(q, "status", "test", "merchant_id", "currency")
	if err != nil {
		return 0, nil, err
	}
	p := &payd.SettlementQueueParams{ListParams: lp}
	if p.Test, p.MerchantID, err = queueScope(q); err != nil {
		return 0, nil, err
	}
	if st := q.Get("status"); st != "" {
		if !payd.SettlementState(st).Valid() {
			return 0, nil, payd.Invalid("status", "status must be draft, approved, sent, paid or failed")
		}
		p.Status = payd.SettlementState(st)
	}
	if c := q.Get("currency"); c != "" {
		if !money.Currency(c).Valid() {
			return 0, nil, payd.Invalid("currency", "currency must be one of RUB, KZT, USD, EUR")
		}
		p.Currency = money.Currency(c)
	}
	page, err := s.svc.ListSettlementQueue(r.Context(), p)
	return http.StatusOK, pageOf(page, print, s.settlement), err
}

// listDisputeQueue is `GET /admin/v1/disputes`: ?status= (when absent,
// the disputes awaiting an answer: opened and evidence_required), test=
// (false when absent), merchant_id=.
func (s *server) listDisputeQueue(r *http.Request) (int, any, error) {
	q := r.URL.Query()
	lp, print, err := httpapi.ParseList(q, "status", "test", "merchant_id")
	if err != nil {
		return 0, nil, err
	}
	p := &payd.DisputeQueueParams{ListParams: lp}
	if p.Test, p.MerchantID, err = queueScope(q); err != nil {
		return 0, nil, err
	}
	if st := q.Get("status"); st != "" {
		if !payd.DisputeStatus(st).Valid() {
			return 0, nil, payd.Invalid("status", "status must be opened, evidence_required, submitted, won, lost or expired")
		}
		p.Statuses = []payd.DisputeStatus{payd.DisputeStatus(st)}
	}
	page, err := s.svc.ListDisputeQueue(r.Context(), p)
	return http.StatusOK, pageOf(page, print, disputeView), err
}

// queueScope reads what both queues filter by: the contour (test, false
// when absent) and a merchant (merchant_id, every merchant when absent).
func queueScope(q url.Values) (test bool, merchantID string, err error) {
	if q.Has("test") {
		switch q.Get("test") {
		case "true":
			test = true
		case "false":
		default:
			return false, "", payd.Invalid("test", "test must be true or false")
		}
	}
	merchantID = q.Get("merchant_id")
	if merchantID != "" && !payd.ValidID(payd.PrefixMerchant, merchantID) {
		return false, "", payd.Invalid("merchant_id", "merchant_id must be a mer_ id")
	}
	return test, merchantID, nil
}
