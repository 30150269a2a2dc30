package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
	"github.com/paydhq/payd/money"
)

// disputeRoutes registers the stage M2 operations; laterStages leaves them
// alone.
func (s *Server) disputeRoutes() {
	s.handleStage(map[string]handler{
		"GET /v1/disputes":                                s.listDisputes,
		"GET /v1/disputes/{dispute_id}":                   s.getDispute,
		"POST /v1/disputes/{dispute_id}/evidence/uploads": s.createEvidenceUpload,
		"POST /v1/disputes/{dispute_id}/evidence":         s.attachEvidence,
		"POST /v1/test/payments/{payment_id}/disputes":    s.createTestDispute,
		"POST /v1/test/disputes/{dispute_id}/simulate":    simulated("dispute_id", s.svc.SimulateDispute),
	})
	// The upload link is signed: the signature is the credential.
	s.mux.HandleFunc("PUT "+EvidenceUploadPath+"{file_id}", s.uploadEvidence)
}

// EvidenceUploadPath is where an evidence file's bytes are uploaded:
// EvidenceUploadPath + the file's id, the upload_url the service signs
// (payd.Paths).
const EvidenceUploadPath = "/uploads/evidence/"

func (s *Server) listDisputes(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	q := r.URL.Query()
	lp, print, err := httpapi.ParseList(q, "payment_id", "status", "kind", "created_at_gte", "created_at_lt")
	if err != nil {
		return err
	}
	params := &payd.DisputeListParams{ListParams: lp, PaymentID: q.Get("payment_id")}
	if params.PaymentID != "" && !payd.ValidID(payd.PrefixPayment, params.PaymentID) {
		return payd.Invalid("payment_id", "payment_id must be a pay_ id")
	}
	if st := q.Get("status"); st != "" {
		if !payd.DisputeStatus(st).Valid() {
			return payd.Invalid("status", "status must be opened, evidence_required, submitted, won, lost or expired")
		}
		params.Status = payd.DisputeStatus(st)
	}
	if k := q.Get("kind"); k != "" {
		if !payd.DisputeKind(k).Valid() {
			return payd.Invalid("kind", "kind must be chargeback, retrieval or complaint")
		}
		params.Kind = payd.DisputeKind(k)
	}
	if params.Created, err = httpapi.ParseTimeRange(q); err != nil {
		return err
	}
	page, err := s.svc.ListDisputes(r.Context(), p, params)
	if err != nil {
		return err
	}
	items := make([]*payd.DisputeJSON, 0, len(page.Items))
	for _, d := range page.Items {
		items = append(items, d.View())
	}
	httpapi.WriteJSON(w, http.StatusOK, listBody{Items: items, NextCursor: httpapi.EncodeCursor(page.Next, print)})
	return nil
}

func (s *Server) getDispute(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	d, err := s.svc.GetDispute(r.Context(), p, r.PathValue("dispute_id"))
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, d.View())
	return nil
}

func (s *Server) createEvidenceUpload(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	var in struct {
		FileName    *string `json:"file_name"`
		ContentType *string `json:"content_type"`
		SizeBytes   *int64  `json:"size_bytes"`
	}
	idem, err := httpapi.ReadIdempotent(w, r, &in)
	if err != nil {
		return err
	}
	switch {
	case in.FileName == nil:
		return payd.Invalid("file_name", "file_name is required")
	case in.ContentType == nil:
		return payd.Invalid("content_type", "content_type is required")
	case in.SizeBytes == nil:
		return payd.Invalid("size_bytes", "size_bytes is required")
	}
	resp, err := s.svc.CreateEvidenceUpload(r.Context(), p, idem, r.PathValue("dispute_id"), payd.EvidenceUploadCreate{
		FileName: *in.FileName, ContentType: *in.ContentType, SizeBytes: *in.SizeBytes})
	if err != nil {
		return err
	}
	writeResponse(w, resp)
	return nil
}

func (s *Server) attachEvidence(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	var in struct {
		FileIDs []string `json:"file_ids"`
		Comment string   `json:"comment"`
	}
	idem, err := httpapi.ReadIdempotent(w, r, &in)
	if err != nil {
		return err
	}
	if len(in.FileIDs) == 0 {
		return payd.Invalid("file_ids", "file_ids needs 1..%d evd_ ids", payd.MaxEvidenceFiles)
	}
	if len(in.FileIDs) > payd.MaxEvidenceFiles {
		return payd.Invalid("file_ids", "at most %d files per dispute", payd.MaxEvidenceFiles)
	}
	for i, id := range in.FileIDs {
		if !payd.ValidID(payd.PrefixEvidence, id) {
			return payd.Invalid("file_ids."+strconv.Itoa(i), "unknown file_id: an evd_ id from an upload of this dispute is needed")
		}
	}
	resp, err := s.svc.AttachEvidence(r.Context(), p, idem, r.PathValue("dispute_id"), in.FileIDs, in.Comment)
	if err != nil {
		return err
	}
	writeResponse(w, resp)
	return nil
}

// uploadEvidence takes the bytes of a reserved evidence file through its
// signed link, streaming them to storage. A large file over a slow link
// may take longer than the listener's timeouts allow a request, so the
// upload gets its own deadlines (the upload's lease is as long).
func (s *Server) uploadEvidence(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(10 * time.Minute))
	_ = rc.SetWriteDeadline(time.Now().Add(11 * time.Minute))
	q := r.URL.Query()
	ev, err := s.svc.UploadEvidence(r.Context(), payd.EvidenceUpload{
		FileID: r.PathValue("file_id"), Expires: q.Get("expires"), Sig: q.Get("sig"),
		ContentType: r.Header.Get("Content-Type"), Length: r.ContentLength, Body: r.Body})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, ev)
}

type testDisputeIn struct {
	Kind                    *string           `json:"kind"`
	Amount                  *httpapi.AmountIn `json:"amount"`
	ReasonCode              string            `json:"reason_code"`
	EvidenceDeadlineSeconds *int64            `json:"evidence_deadline_seconds"`
	BankFineAmount          *httpapi.AmountIn `json:"bank_fine_amount"`
	ServiceFeeAmount        *httpapi.AmountIn `json:"service_fee_amount"`
}

func (s *Server) createTestDispute(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
	if !p.Test() {
		return &payd.Error{Code: payd.CodeForbidden, Message: "sandbox disputes work with test keys only"}
	}
	var in testDisputeIn
	idem, err := httpapi.ReadIdempotent(w, r, &in)
	if err != nil {
		return err
	}
	open := payd.TestDisputeCreate{DisputeOpen: payd.DisputeOpen{ReasonCode: in.ReasonCode, Currencies: map[string]money.Currency{}}}
	if in.Kind != nil {
		if !payd.DisputeKind(*in.Kind).Valid() {
			return payd.Invalid("kind", "kind must be chargeback, retrieval or complaint")
		}
		open.Kind = payd.DisputeKind(*in.Kind)
	}
	for _, f := range []struct {
		name string
		in   *httpapi.AmountIn
		dst  **int64
	}{{"amount", in.Amount, &open.Amount}, {"bank_fine_amount", in.BankFineAmount, &open.BankFine},
		{"service_fee_amount", in.ServiceFeeAmount, &open.ServiceFee}} {
		if f.in == nil {
			continue
		}
		a, err := f.in.Parse(f.name)
		if err != nil {
			return err
		}
		v := a.Minor
		*f.dst = &v
		open.Currencies[f.name+".currency"] = a.Currency
	}
	if in.EvidenceDeadlineSeconds != nil {
		if *in.EvidenceDeadlineSeconds < 1 || *in.EvidenceDeadlineSeconds > 90*86400 {
			return payd.Invalid("evidence_deadline_seconds", "evidence_deadline_seconds must be 1..7776000 (90 days)")
		}
		open.DeadlineSeconds = *in.EvidenceDeadlineSeconds
	}
	resp, err := s.svc.CreateTestDispute(r.Context(), p, idem, r.PathValue("payment_id"), open)
	if err != nil {
		return err
	}
	writeResponse(w, resp)
	return nil
}
