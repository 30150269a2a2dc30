package operator

import (
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// disputeJSON is a dispute as operators see it: what the service keeps
// about it, with where its money came from (held) and where a loss took
// the fine and the fee from (charged). Evidence is listed as the contract
// lists it.
type disputeJSON struct {
	ID                 string                 `json:"id"`
	ShopID             string                 `json:"shop_id"`
	MerchantID         string                 `json:"merchant_id"`
	PaymentID          string                 `json:"payment_id"`
	Test               bool                   `json:"test"`
	Kind               payd.DisputeKind       `json:"kind"`
	Status             payd.DisputeStatus     `json:"status"`
	Amount             money.Amount           `json:"amount"`
	OrderID            string                 `json:"order_id"`
	BankFine           int64                  `json:"bank_fine"`
	ServiceFee         int64                  `json:"service_fee"`
	ReasonCode         string                 `json:"reason_code,omitempty"`
	EvidenceDeadlineAt time.Time              `json:"evidence_deadline_at"`
	Evidence           []payd.DisputeEvidence `json:"evidence,omitempty"`
	Comment            string                 `json:"comment,omitempty"`
	Resolution         string                 `json:"resolution,omitempty"`
	Provider           string                 `json:"provider,omitempty"`
	ProviderDisputeID  string                 `json:"provider_dispute_id,omitempty"`
	Held               []holdPartJSON         `json:"held,omitempty"`
	Charged            []holdPartJSON         `json:"charged,omitempty"`
	FeeReturned        int64                  `json:"fee_returned,omitempty"`
	CreatedAt          time.Time              `json:"created_at"`
	SubmittedAt        *time.Time             `json:"submitted_at,omitempty"`
	EvidenceSentAt     *time.Time             `json:"evidence_sent_at,omitempty"`
	EvidenceReference  string                 `json:"evidence_reference,omitempty"`
	ClosedAt           *time.Time             `json:"closed_at,omitempty"`
}

// holdPartJSON is one source of a dispute's money: the bucket (and
// sub-account) it was taken from, in minor units.
type holdPartJSON struct {
	Bucket ledger.Bucket `json:"bucket"`
	Sub    string        `json:"sub,omitempty"`
	Amount int64         `json:"amount"`
}

func holdPartView(h payd.HoldPart) holdPartJSON {
	return holdPartJSON{Bucket: h.Bucket, Sub: h.Sub, Amount: h.Amount}
}

func disputeView(d *payd.Dispute) disputeJSON {
	return disputeJSON{ID: d.ID, ShopID: d.ShopID, MerchantID: d.MerchantID, PaymentID: d.PaymentID, Test: d.Test,
		Kind: d.Kind, Status: d.Status, Amount: d.Amount, OrderID: d.OrderID, BankFine: d.BankFine, ServiceFee: d.ServiceFee,
		ReasonCode: d.ReasonCode, EvidenceDeadlineAt: d.EvidenceDeadlineAt, Evidence: d.Evidence, Comment: d.Comment,
		Resolution: d.Resolution, Provider: d.Provider, ProviderDisputeID: d.ProviderDisputeID,
		Held: views(d.Held, holdPartView), Charged: views(d.Charged, holdPartView), FeeReturned: d.FeeReturned,
		CreatedAt: d.CreatedAt, SubmittedAt: d.SubmittedAt, EvidenceSentAt: d.EvidenceSentAt,
		EvidenceReference: d.EvidenceReference, ClosedAt: d.ClosedAt}
}
