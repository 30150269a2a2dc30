package payd

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// DisputeKind is what the payer's bank raised (Dispute.kind).
type DisputeKind string

// Dispute kinds of the contract.
const (
	DisputeChargeback DisputeKind = "chargeback"
	DisputeRetrieval  DisputeKind = "retrieval"
	DisputeComplaint  DisputeKind = "complaint"
)

// DisputeKindAll returns every dispute kind of the contract.
func DisputeKindAll() []DisputeKind {
	return []DisputeKind{DisputeChargeback, DisputeRetrieval, DisputeComplaint}
}

// Valid reports whether k is a known kind.
func (k DisputeKind) Valid() bool { return slices.Contains(DisputeKindAll(), k) }

// DisputeStatus is one state of a dispute (States: Dispute).
type DisputeStatus string

// Dispute states; won, lost and expired are final.
const (
	DisputeOpened           DisputeStatus = "opened"
	DisputeEvidenceRequired DisputeStatus = "evidence_required"
	DisputeSubmitted        DisputeStatus = "submitted"
	DisputeWon              DisputeStatus = "won"
	DisputeLost             DisputeStatus = "lost"
	DisputeExpired          DisputeStatus = "expired"
)

// DisputeStatusAll returns every dispute status, in the order a dispute
// passes them.
func DisputeStatusAll() []DisputeStatus {
	return []DisputeStatus{DisputeOpened, DisputeEvidenceRequired, DisputeSubmitted, DisputeWon, DisputeLost, DisputeExpired}
}

// Valid reports whether s is a known status.
func (s DisputeStatus) Valid() bool { return slices.Contains(DisputeStatusAll(), s) }

// Final reports whether no transition leaves s. A dispute holds its sum
// exactly while its status is not final.
func (s DisputeStatus) Final() bool {
	return s == DisputeWon || s == DisputeLost || s == DisputeExpired
}

// disputeNext is the transition table the contract leaves open
// (docs/disputes.md): evidence is asked for, sent, and the bank decides;
// an unanswered dispute expires at its deadline. The bank may decide
// before evidence was asked for or sent.
var disputeNext = map[DisputeStatus][]DisputeStatus{
	DisputeOpened:           {DisputeEvidenceRequired, DisputeSubmitted, DisputeWon, DisputeLost, DisputeExpired},
	DisputeEvidenceRequired: {DisputeSubmitted, DisputeWon, DisputeLost, DisputeExpired},
	DisputeSubmitted:        {DisputeWon, DisputeLost},
}

// CanBecome reports whether the table allows s → to.
func (s DisputeStatus) CanBecome(to DisputeStatus) bool {
	return slices.Contains(disputeNext[s], to)
}

// AcceptsEvidence reports whether evidence may be uploaded and attached in
// s (Disputes, rule 5: not in submitted, won or lost; expired answers
// evidence_deadline_passed before this is asked).
func (s DisputeStatus) AcceptsEvidence() bool {
	return s == DisputeOpened || s == DisputeEvidenceRequired
}

// DisputeEvidence is one attached file (DisputeEvidence).
type DisputeEvidence struct {
	FileID      string    `json:"file_id"`
	FileName    string    `json:"file_name"`
	ContentType string    `json:"content_type"`
	SizeBytes   int64     `json:"size_bytes"`
	UploadedAt  time.Time `json:"uploaded_at"`
}

// HoldPart is one source of a dispute's money: the bucket (and sub-account)
// the cascade took it from. A won dispute gives each part back by it.
type HoldPart struct {
	Bucket ledger.Bucket `json:"bucket"`
	Sub    string        `json:"sub,omitempty"`
	Amount int64         `json:"amount"`
}

// Dispute is a dispute with everything the service keeps about it.
type Dispute struct {
	ID         string        `json:"id"`
	ShopID     string        `json:"shop_id"`
	MerchantID string        `json:"merchant_id"`
	PaymentID  string        `json:"payment_id"`
	Test       bool          `json:"test"`
	Kind       DisputeKind   `json:"kind"`
	Status     DisputeStatus `json:"status"`
	Amount     money.Amount  `json:"amount"`
	OrderID    string        `json:"order_id"`
	// BankFine and ServiceFee are charged when the dispute is lost or
	// expires, in the payment's currency (minor units).
	BankFine           int64             `json:"bank_fine"`
	ServiceFee         int64             `json:"service_fee"`
	ReasonCode         string            `json:"reason_code,omitempty"`
	EvidenceDeadlineAt time.Time         `json:"evidence_deadline_at"`
	Evidence           []DisputeEvidence `json:"evidence,omitempty"`
	// Comment is the merchant's note of its last evidence submission.
	Comment    string `json:"comment,omitempty"`
	Resolution string `json:"resolution,omitempty"`
	// Provider and ProviderDisputeID name the dispute at the bank that
	// raised it; notifications about it carry them.
	Provider          string `json:"provider,omitempty"`
	ProviderDisputeID string `json:"provider_dispute_id,omitempty"`
	// Held is where the opening took the sum from; Charged where a loss
	// took the fine and the fee from.
	Held        []HoldPart `json:"held,omitempty"`
	Charged     []HoldPart `json:"charged,omitempty"`
	FeeReturned int64      `json:"fee_returned,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	SubmittedAt *time.Time `json:"submitted_at,omitempty"`
	// EvidenceSentAt and EvidenceReference record the bank's receipt of
	// the evidence (DisputeResponder); empty while the sending job waits
	// and for disputes whose bank takes evidence by hand.
	EvidenceSentAt    *time.Time `json:"evidence_sent_at,omitempty"`
	EvidenceReference string     `json:"evidence_reference,omitempty"`
	ClosedAt          *time.Time `json:"closed_at,omitempty"`
}

// DisputeJSON is the contract's Dispute object.
type DisputeJSON struct {
	ID                 string            `json:"id"`
	PaymentID          string            `json:"payment_id"`
	Kind               DisputeKind       `json:"kind"`
	Status             DisputeStatus     `json:"status"`
	Amount             money.Amount      `json:"amount"`
	CreatedAt          time.Time         `json:"created_at"`
	Test               bool              `json:"test"`
	OrderID            string            `json:"order_id,omitempty"`
	BankFineAmount     money.Amount      `json:"bank_fine_amount"`
	ServiceFeeAmount   money.Amount      `json:"service_fee_amount"`
	ReasonCode         string            `json:"reason_code,omitempty"`
	EvidenceDeadlineAt time.Time         `json:"evidence_deadline_at"`
	Evidence           []DisputeEvidence `json:"evidence"`
	Resolution         string            `json:"resolution,omitempty"`
	ClosedAt           *time.Time        `json:"closed_at,omitempty"`
}

// View returns the contract's object.
func (d *Dispute) View() *DisputeJSON {
	ev := d.Evidence
	if ev == nil {
		ev = []DisputeEvidence{}
	}
	return &DisputeJSON{ID: d.ID, PaymentID: d.PaymentID, Kind: d.Kind, Status: d.Status, Amount: d.Amount,
		CreatedAt: d.CreatedAt, Test: d.Test, OrderID: d.OrderID,
		BankFineAmount:   money.New(d.BankFine, d.Amount.Currency),
		ServiceFeeAmount: money.New(d.ServiceFee, d.Amount.Currency),
		ReasonCode:       d.ReasonCode, EvidenceDeadlineAt: d.EvidenceDeadlineAt, Evidence: ev,
		Resolution: d.Resolution, ClosedAt: d.ClosedAt}
}

// DisputeListParams filters `GET /disputes`.
type DisputeListParams struct {
	ListParams
	ShopID    string
	Test      bool
	PaymentID string
	Status    DisputeStatus
	Kind      DisputeKind
	Created   TimeRange
}

// DisputeQueueParams filter the operator's queue of disputes across
// merchants (`GET /admin/v1/disputes`): one contour, disputes in any of
// Statuses (at least one), optionally of one merchant, soonest evidence
// deadline first. The list is ordered by (deadline, id) ascending, so the
// After of its ListParams and the Next of its pages hold the deadline in
// Cursor.CreatedAt.
type DisputeQueueParams struct {
	ListParams
	Test       bool
	MerchantID string
	Statuses   []DisputeStatus
}

// DisputeAmount is a dispute's sum and status, as the invariant check
// reads them.
type DisputeAmount struct {
	ID         string
	PaymentID  string
	MerchantID string
	Test       bool
	Status     DisputeStatus
	Amount     money.Amount
}

// DisputeDue is an unanswered dispute whose evidence deadline has passed.
type DisputeDue struct {
	ID         string
	DeadlineAt time.Time
}

// DisputeListExpiredParams select due disputes: opened or
// evidence_required with the deadline at or before Now, after the
// position After (zero: from the start), at most Limit.
type DisputeListExpiredParams struct {
	Now   time.Time
	After DisputeDue
	Limit int
}

// EvidenceState is where an evidence file's upload is (EvidenceFile.State).
type EvidenceState string

// Evidence file states: reserved by step 1, uploading while its bytes
// stream in, uploaded once they all arrived and passed the checks.
const (
	EvidenceReserved  EvidenceState = "reserved"
	EvidenceUploading EvidenceState = "uploading"
	EvidenceUploaded  EvidenceState = "uploaded"
)

// EvidenceStateAll returns every evidence file state, in the order of an
// upload.
func EvidenceStateAll() []EvidenceState {
	return []EvidenceState{EvidenceReserved, EvidenceUploading, EvidenceUploaded}
}

// EvidenceFile is one evidence upload of a dispute: its declared name,
// type and size, and its state. The bytes are stored apart, in chunks.
type EvidenceFile struct {
	ID              string        `json:"id"`
	DisputeID       string        `json:"dispute_id"`
	ShopID          string        `json:"shop_id"`
	Test            bool          `json:"test"`
	FileName        string        `json:"file_name"`
	ContentType     string        `json:"content_type"`
	SizeBytes       int64         `json:"size_bytes"`
	State           EvidenceState `json:"state"`
	CreatedAt       time.Time     `json:"created_at"`
	UploadExpiresAt time.Time     `json:"upload_expires_at"`
	LeaseUntil      *time.Time    `json:"lease_until,omitempty"`
	UploadedAt      *time.Time    `json:"uploaded_at,omitempty"`
	// SHA256 is the hex digest of the uploaded bytes.
	SHA256 string `json:"sha256,omitempty"`
	// AttachedAt is when step 2 attached the file to its dispute; a file
	// never attached is removed once its upload link has expired.
	AttachedAt *time.Time `json:"attached_at,omitempty"`
	// SizeUpTo marks a reservation whose SizeBytes is the most the file
	// may be (EvidenceUploadCreate.SizeUpTo) until its upload sets the
	// size it has.
	SizeUpTo bool `json:"size_up_to,omitempty"`
}

// EvidenceWaitingParams select the files waiting to be attached: of one
// dispute, or with DisputeID empty of one shop's contour.
type EvidenceWaitingParams struct {
	DisputeID string
	ShopID    string
	Test      bool
	Now       time.Time
}

// EvidenceWaitingSum is what waits: the files, their declared bytes, and
// when the first of their upload links expires (zero when none waits).
type EvidenceWaitingSum struct {
	Files      int
	Bytes      int64
	NextExpiry time.Time
}

// EvidenceDue is an evidence file whose upload link has expired while it
// was not marked attached.
type EvidenceDue struct {
	ID        string
	ExpiresAt time.Time
}

// EvidenceListExpiredParams select due evidence files: expired at or
// before Now, after the position After (zero: from the start), at most
// Limit.
type EvidenceListExpiredParams struct {
	Now   time.Time
	After EvidenceDue
	Limit int
}

// scopedDispute loads a dispute of the principal's shop and mode, locked
// for update when lock is set.
func scopedDispute(ctx context.Context, tx Tx, p *Principal, id string, lock bool) (*Dispute, error) {
	return inScope(ctx, p, PrefixDispute, "dispute", id, lockedIf(lock, tx.DisputeGet, tx.DisputeGetForUpdate))
}

// GetDispute returns a dispute of the principal's shop and mode.
func (s *Service) GetDispute(ctx context.Context, p *Principal, id string) (*Dispute, error) {
	return read(ctx, s, "get dispute", func(tx Tx) (*Dispute, error) { return scopedDispute(ctx, tx, p, id, false) })
}

// ListDisputes lists the disputes of the principal's shop and mode, newest
// first (Disputes, rule 1).
func (s *Service) ListDisputes(ctx context.Context, p *Principal, params *DisputeListParams) (Page[*Dispute], error) {
	params.ShopID, params.Test = p.Shop.ID, p.Test()
	return read(ctx, s, "list disputes", func(tx Tx) (Page[*Dispute], error) { return tx.DisputeList(ctx, params) })
}

// DisputeAwaitingAnswer are the statuses of disputes the bank still
// waits on an answer to (evidence may be attached, the deadline runs):
// the operator's dispute queue when no status is asked for.
func DisputeAwaitingAnswer() []DisputeStatus {
	return []DisputeStatus{DisputeOpened, DisputeEvidenceRequired}
}

// ListDisputeQueue lists disputes across merchants for the operator's
// queue, soonest evidence deadline first; without statuses, those
// awaiting an answer.
func (s *Service) ListDisputeQueue(ctx context.Context, p *DisputeQueueParams) (Page[*Dispute], error) {
	if len(p.Statuses) == 0 {
		p.Statuses = DisputeAwaitingAnswer()
	}
	return read(ctx, s, "list dispute queue", func(tx Tx) (Page[*Dispute], error) { return tx.DisputeQueue(ctx, p) })
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
