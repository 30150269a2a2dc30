package payd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/paydhq/payd/money"
)

// PayoutStatus is one state of a payout (States: Payout).
type PayoutStatus string

// Payout states: pending → processing → succeeded or canceled; the last two
// are final.
const (
	PayoutPending    PayoutStatus = "pending"
	PayoutProcessing PayoutStatus = "processing"
	PayoutSucceeded  PayoutStatus = "succeeded"
	PayoutCanceled   PayoutStatus = "canceled"
)

// PayoutStatusAll returns every payout status, in the order a payout
// passes them.
func PayoutStatusAll() []PayoutStatus {
	return []PayoutStatus{PayoutPending, PayoutProcessing, PayoutSucceeded, PayoutCanceled}
}

// Valid reports whether s is a known status.
func (s PayoutStatus) Valid() bool { return slices.Contains(PayoutStatusAll(), s) }

// Final reports whether no transition leaves s. A payout holds its money
// in pending_payouts exactly while its status is not final.
func (s PayoutStatus) Final() bool { return s == PayoutSucceeded || s == PayoutCanceled }

// DestinationType is the kind of a payout's destination
// (PayoutDestination.type).
type DestinationType string

// Payout destination kinds. DestinationCardToken is the name the first
// published document gave the card kind; it is accepted as an alias of
// DestinationCard and never kept.
const (
	DestinationCard        DestinationType = "card"
	DestinationCardToken   DestinationType = "card_token"
	DestinationSBP         DestinationType = "sbp"
	DestinationBankAccount DestinationType = "bank_account"
)

// DestinationTypeAll returns every destination kind a payout has, without
// the alias card_token.
func DestinationTypeAll() []DestinationType {
	return []DestinationType{DestinationCard, DestinationSBP, DestinationBankAccount}
}

// Payout is a payout with what the service keeps about it. The
// destination itself is never stored: only its masked form and its kind.
type Payout struct {
	ID         string       `json:"id"`
	ShopID     string       `json:"shop_id"`
	MerchantID string       `json:"merchant_id"`
	Test       bool         `json:"test"`
	Status     PayoutStatus `json:"status"`
	Amount     money.Amount `json:"amount"`
	// Fee is charged with the payout (minor units of its currency).
	Fee               int64                `json:"fee"`
	DestinationType   DestinationType      `json:"destination_type"`
	DestinationMasked string               `json:"destination_masked"`
	Description       string               `json:"description,omitempty"`
	OrderID           string               `json:"order_id,omitempty"`
	Metadata          map[string]string    `json:"metadata,omitempty"`
	Cancellation      *CancellationDetails `json:"cancellation,omitempty"`
	CreatedAt         time.Time            `json:"created_at"`
	SucceededAt       *time.Time           `json:"succeeded_at,omitempty"`
	CanceledAt        *time.Time           `json:"canceled_at,omitempty"`
	// Provider took the payout; ProviderPayoutID is its name for it, empty
	// while its first answer is unknown (a timeout).
	Provider         string `json:"provider"`
	ProviderPayoutID string `json:"provider_payout_id,omitempty"`
	// Checks counts the status queries made, for the provider's backoff.
	Checks int `json:"checks,omitempty"`
	// Reference names the request that made the payout to its provider
	// (PayoutReference): the same for every try of one request, where the
	// payout's id is new at each.
	Reference string `json:"reference,omitempty"`
}

// PayoutReference is the provider's name for one payout request: a hash
// of the shop, the contour, the Idempotency-Key and the body. A try whose
// transaction rolled back after its provider took the payout (a commit
// lost to a database restart, another instance taking the same key) gets
// a new payout id when the merchant retries, but the same reference, by
// which the provider knows the payout it already has.
func PayoutReference(shopID string, test bool, idem Idempotency) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%t\x00%s\x00", shopID, test, idem.Key)
	h.Write(idem.Hash)
	return "por_" + hex.EncodeToString(h.Sum(nil))[:32]
}

// Held is what the payout took from available: its sum and its fee.
func (po *Payout) Held() int64 { return po.Amount.Minor + po.Fee }

// PayoutJSON is the contract's Payout object.
type PayoutJSON struct {
	ID                  string               `json:"id"`
	Status              PayoutStatus         `json:"status"`
	Amount              money.Amount         `json:"amount"`
	CreatedAt           time.Time            `json:"created_at"`
	Test                bool                 `json:"test"`
	FeeAmount           money.Amount         `json:"fee_amount"`
	DestinationMasked   string               `json:"destination_masked,omitempty"`
	Description         string               `json:"description,omitempty"`
	OrderID             string               `json:"order_id,omitempty"`
	CancellationDetails *CancellationDetails `json:"cancellation_details,omitempty"`
	Metadata            map[string]string    `json:"metadata,omitempty"`
	SucceededAt         *time.Time           `json:"succeeded_at,omitempty"`
}

// View returns the contract's object.
func (po *Payout) View() *PayoutJSON {
	return &PayoutJSON{ID: po.ID, Status: po.Status, Amount: po.Amount, CreatedAt: po.CreatedAt, Test: po.Test,
		FeeAmount: money.New(po.Fee, po.Amount.Currency), DestinationMasked: po.DestinationMasked,
		Description: po.Description, OrderID: po.OrderID, CancellationDetails: po.Cancellation,
		Metadata: po.Metadata, SucceededAt: po.SucceededAt}
}

// PayoutListParams filters `GET /payouts`.
type PayoutListParams struct {
	ListParams
	ShopID  string
	Test    bool
	Status  PayoutStatus
	OrderID string
	Created TimeRange
}

// PayoutAmount is a payout's sum, fee and status, for the invariant check.
type PayoutAmount struct {
	ID         string
	MerchantID string
	Test       bool
	Status     PayoutStatus
	Amount     money.Amount
	Fee        int64
}

// PayoutFee is a shop's payout tariff in one currency: a percentage in
// basis points plus a fixed part, at least Min, at most Max when Max is
// set (all minor units).
type PayoutFee struct {
	Currency   money.Currency `json:"currency"`
	PercentBps int64          `json:"percent_bps"`
	Fixed      int64          `json:"fixed,omitempty"`
	Min        int64          `json:"min,omitempty"`
	Max        int64          `json:"max,omitempty"`
}

// DefaultPayoutFeeBps is the payout fee of a shop without its own tariff
// for the currency: 0.5% of the sum, rounded half up (docs/payouts.md).
const DefaultPayoutFeeBps = 50

// PayoutFeeFor returns the payout tariff in force for currency c.
func (st ShopSettings) PayoutFeeFor(c money.Currency) PayoutFee {
	for _, f := range st.PayoutFees {
		if f.Currency == c {
			return f
		}
	}
	return PayoutFee{Currency: c, PercentBps: DefaultPayoutFeeBps}
}

// Of computes the fee of a payout of amount: amount × bps / 10000 rounded
// half up, plus the fixed part, at least Min and at most Max (when set).
func (f PayoutFee) Of(amount int64) int64 {
	fee := money.MulDivHalfUp(amount, f.PercentBps, 10000) + f.Fixed
	fee = max(fee, f.Min)
	if f.Max > 0 {
		fee = min(fee, f.Max)
	}
	return fee
}

// defaultPayoutRanges are the amounts one payout may send, per currency
// (docs/payouts.md); ShopSettings.PayoutRanges overrides them per shop.
var defaultPayoutRanges = map[money.Currency]Range{
	money.RUB: {Min: 1_00, Max: 600_000_00},
	money.KZT: {Min: 100_00, Max: 10_000_000_00},
	money.USD: {Min: 1_00, Max: 10_000_00},
	money.EUR: {Min: 1_00, Max: 10_000_00},
}

// PayoutRange returns the range of one payout in currency c for the shop.
func (st ShopSettings) PayoutRange(c money.Currency) Range {
	if r, ok := st.PayoutRanges[c]; ok {
		return r
	}
	return defaultPayoutRanges[c]
}

// validatePayoutSettings checks an operator's payout tariffs and ranges.
func (st ShopSettings) validatePayoutSettings() error {
	seen := map[money.Currency]bool{}
	for i, f := range st.PayoutFees {
		p := "payout_fees." + strconv.Itoa(i)
		switch {
		case !f.Currency.Valid():
			return Invalid(p+".currency", "unknown currency %q", f.Currency)
		case seen[f.Currency]:
			return Invalid(p+".currency", "currency %s has a payout fee already", f.Currency)
		case f.PercentBps < 0 || f.PercentBps > 10000:
			return Invalid(p+".percent_bps", "must be 0..10000 (0%%..100%%)")
		case f.Fixed < 0 || f.Min < 0 || f.Max < 0 || (f.Max > 0 && f.Max < f.Min):
			return Invalid(p, "fixed, min and max must not be negative, and max (when set) not below min")
		}
		seen[f.Currency] = true
	}
	for c, r := range st.PayoutRanges {
		if !c.Valid() || r.Min < 1 || r.Max < r.Min || r.Max > 9_999_999_999_999_99 {
			return Invalid("payout_ranges", "payout ranges need a known currency and 1 <= min <= max")
		}
	}
	return nil
}

// PayoutCheckArgs moves a payout along: the first run takes it from
// pending to processing, and every run asks its provider what became of
// it, scheduling the next question while the provider has not decided.
type PayoutCheckArgs struct {
	PayoutID string `json:"payout_id"`
}

// Kind names the job.
func (PayoutCheckArgs) Kind() string { return "payout_check" }

// GetPayout returns a payout of the principal's shop and mode; another
// shop's, or the other contour's, is not found.
func (s *Service) GetPayout(ctx context.Context, p *Principal, id string) (*Payout, error) {
	return read(ctx, s, "get payout", func(tx Tx) (*Payout, error) { return inScope(ctx, p, PrefixPayout, "payout", id, tx.PayoutGet) })
}

// ListPayouts lists the principal's payouts, newest first.
func (s *Service) ListPayouts(ctx context.Context, p *Principal, params *PayoutListParams) (Page[*Payout], error) {
	params.ShopID, params.Test = p.Shop.ID, p.Test()
	return read(ctx, s, "list payouts", func(tx Tx) (Page[*Payout], error) { return tx.PayoutList(ctx, params) })
}
