package operator

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/money"
)

// disputeRoutes registers the operator's dispute routes at stage M2; below
// it they answer 501 naming the stage, as the merchant's do.
func (s *server) disputeRoutes(mux *recordingMux, h func(string, func(*http.Request) (int, any, error))) {
	routes := map[string]func(*http.Request) (int, any, error){
		"POST /admin/v1/payments/{id}/disputes":          s.openDispute,
		"GET /admin/v1/disputes":                         s.listDisputeQueue,
		"GET /admin/v1/disputes/{id}":                    s.getDispute,
		"POST /admin/v1/disputes/{id}/{action}":          s.changeDispute,
		"GET /admin/v1/disputes/{id}/evidence/{file_id}": nil,
	}
	for pattern, fn := range routes {
		switch {
		case s.svc.Stage() < payd.StageM2:
			h(pattern, func(*http.Request) (int, any, error) {
				return 0, nil, payd.LaterStage(s.svc.Stage(), payd.StageM2, "disputes arrive in stage M2")
			})
		case fn == nil:
			mux.Handle(pattern, http.HandlerFunc(s.downloadEvidence))
		default:
			h(pattern, fn)
		}
	}
}

// disputeOpenIn opens a dispute a bank reported outside its notifications:
// {"kind", "amount", "reason_code", "evidence_deadline_at",
// "bank_fine_amount", "service_fee_amount", "provider_dispute_id"}; every
// field may be left out (a chargeback of the whole refundable amount, 7
// days for evidence, the shop's dispute fees).
type disputeOpenIn struct {
	Kind               payd.DisputeKind  `json:"kind"`
	Amount             *httpapi.AmountIn `json:"amount"`
	ReasonCode         string            `json:"reason_code"`
	EvidenceDeadlineAt *time.Time        `json:"evidence_deadline_at"`
	BankFineAmount     *httpapi.AmountIn `json:"bank_fine_amount"`
	ServiceFeeAmount   *httpapi.AmountIn `json:"service_fee_amount"`
	ProviderDisputeID  string            `json:"provider_dispute_id"`
}

func (s *server) openDispute(r *http.Request) (int, any, error) {
	var in disputeOpenIn
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	open := payd.DisputeOpen{Kind: in.Kind, ReasonCode: in.ReasonCode, ProviderDisputeID: in.ProviderDisputeID,
		Currencies: map[string]money.Currency{}}
	for _, f := range []struct {
		name string
		in   *httpapi.AmountIn
		dst  **int64
	}{{"amount", in.Amount, &open.Amount}, {"bank_fine_amount", in.BankFineAmount, &open.BankFine},
		{"service_fee_amount", in.ServiceFeeAmount, &open.ServiceFee}} {
		if f.in != nil {
			amt, err := f.in.Parse(f.name)
			if err != nil {
				return 0, nil, err
			}
			*f.dst = &amt.Minor
			open.Currencies[f.name+".currency"] = amt.Currency
		}
	}
	if in.EvidenceDeadlineAt != nil {
		if !in.EvidenceDeadlineAt.After(s.svc.Clock().Now()) {
			return 0, nil, payd.Invalid("evidence_deadline_at", "evidence_deadline_at must be in the future")
		}
		open.Deadline = *in.EvidenceDeadlineAt
	}
	d, err := s.svc.OpenDisputeAsOperator(r.Context(), r.PathValue("id"), open)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, disputeView(d), nil
}

func (s *server) getDispute(r *http.Request) (int, any, error) {
	d, err := s.svc.OperatorDispute(r.Context(), r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, disputeView(d), nil
}

// changeDispute is request_evidence, submit, win, lose or expire, with an
// optional {"resolution": "..."} for the dispute's record.
func (s *server) changeDispute(r *http.Request) (int, any, error) {
	var in struct {
		Resolution string `json:"resolution"`
	}
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	d, err := s.svc.ChangeDispute(r.Context(), r.PathValue("id"), r.PathValue("action"), in.Resolution)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, disputeView(d), nil
}

// downloadEvidence streams an uploaded evidence file as it was uploaded.
// It is outside authed, which writes JSON, so it authenticates as authed
// does: the back office's member (AsStaff), else the bearer token.
func (s *server) downloadEvidence(w http.ResponseWriter, r *http.Request) {
	actor := signedInStaff(r.Context())
	if actor == nil {
		var ok bool
		if actor, ok = s.actor(w, r); !ok {
			return
		}
	}
	if err := actor.Allow(payd.StaffRead); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	f, err := s.svc.EvidenceFileOf(r.Context(), r.PathValue("id"), r.PathValue("file_id"))
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", f.ContentType)
	w.Header().Set("Content-Length", strconv.FormatInt(f.SizeBytes, 10))
	w.Header().Set("Content-Disposition", `attachment; filename="`+f.ID+`"; filename*=UTF-8''`+url.PathEscape(f.FileName))
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if err := s.svc.CopyEvidence(r.Context(), f, w); err != nil {
		// The status is out already; the short body tells the client.
		return
	}
}
