// Package ledger is the double-entry bookkeeping of merchants' money, in
// pure Go: accounts, balanced entries and the balance buckets of the
// contract. Storage and the service decide when money moves; this package
// decides how: every movement is one entry whose postings sum to zero, and
// nothing is ever changed in place — a correction is a new entry.
package ledger

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/paydhq/payd/money"
)

// Bucket is a merchant balance bucket of the contract (Balance) or one of
// the service's own accounts.
type Bucket string

// Merchant buckets: what the service owes the merchant, by state.
const (
	Pending        Bucket = "pending"
	Available      Bucket = "available"
	Reserve        Bucket = "reserve"
	Deposit        Bucket = "deposit"
	PendingRefunds Bucket = "pending_refunds"
	Disputed       Bucket = "disputed"
	// PendingPayouts holds what a payout took from available (its sum and
	// its fee) until the payout provider decides it; one sub-account per
	// payout.
	PendingPayouts Bucket = "pending_payouts"
)

// Service accounts: the other side of every merchant movement.
const (
	// ProviderClearing is money the providers owe the service (payments
	// captured) or the service owes them (refunds sent).
	ProviderClearing Bucket = "provider_clearing"
	// Fees is the service's income from fees.
	Fees Bucket = "fees"
	// Payouts is money paid out to merchants by settlements.
	Payouts Bucket = "payouts"
	// BankFines are fines the bank charged and the service re-bills.
	BankFines Bucket = "bank_fines"
	// ChargebackFees is the service's income from handling disputes the
	// merchant lost, apart from the fees of payments.
	ChargebackFees Bucket = "chargeback_fees"
	// PayoutClearing is money sent out by merchants' payouts, owed to or
	// settled with the payout providers.
	PayoutClearing Bucket = "payout_clearing"
	// PayoutFees is the service's income from payout fees, kept apart
	// from the fees of payments so that registers show each as its own.
	PayoutFees Bucket = "payout_fees"
)

// Account names one ledger account: an owner (a merchant, or "payd" for
// the service), a contour, a currency, a bucket, and an optional sub-key
// that keeps per-payment parts apart (the unreleased part of a payment, a
// reserve part with its own release date).
type Account struct {
	Owner    string
	Test     bool
	Currency money.Currency
	Bucket   Bucket
	Sub      string
}

// ServiceOwner owns the service's accounts.
const ServiceOwner = "payd"

// Key is the account's stable name, used as its identity in storage.
func (a Account) Key() string {
	mode := "live"
	if a.Test {
		mode = "test"
	}
	k := a.Owner + ":" + mode + ":" + string(a.Currency) + ":" + string(a.Bucket)
	if a.Sub != "" {
		k += ":" + a.Sub
	}
	return k
}

// ParseKey reads an account key back.
func ParseKey(k string) (Account, error) {
	parts := strings.SplitN(k, ":", 5)
	if len(parts) < 4 || (parts[1] != "test" && parts[1] != "live") {
		return Account{}, fmt.Errorf("ledger: malformed account key %q", k)
	}
	a := Account{Owner: parts[0], Test: parts[1] == "test", Currency: money.Currency(parts[2]), Bucket: Bucket(parts[3])}
	if len(parts) == 5 {
		a.Sub = parts[4]
	}
	return a, nil
}

// Posting moves Amount (minor units, signed) into Account: a positive
// amount raises the account's balance.
type Posting struct {
	Account Account
	Amount  int64
}

// EntryKind names what caused an entry. Every kind the service posts is a
// constant below, and the register and the ledger's readers match entries
// by these constants only.
type EntryKind string

// Entry kinds, by the object that causes them.
const (
	KindPaymentCaptured EntryKind = "payment_captured"
	// KindPendingReleased and KindReserveReleased move a payment's money
	// out of pending (after the tariff's hold) and out of the rolling
	// reserve into available: see ReleasedKind.
	KindPendingReleased EntryKind = "pending_released"
	KindReserveReleased EntryKind = "reserve_released"

	KindRefundCreated   EntryKind = "refund_created"
	KindRefundSucceeded EntryKind = "refund_succeeded"
	KindRefundCanceled  EntryKind = "refund_canceled"

	KindSettlementPaid EntryKind = "settlement_paid"

	KindDepositWithheld EntryKind = "deposit_withheld"
	KindDepositReleased EntryKind = "deposit_released"

	KindDisputeHold       EntryKind = "dispute_hold"
	KindDisputeRelease    EntryKind = "dispute_release"
	KindDisputeChargeback EntryKind = "dispute_chargeback"
	KindDisputeBankFine   EntryKind = "dispute_bank_fine"
	KindDisputeServiceFee EntryKind = "dispute_service_fee"

	KindPayoutCreated   EntryKind = "payout_created"
	KindPayoutSucceeded EntryKind = "payout_succeeded"
	KindPayoutCanceled  EntryKind = "payout_canceled"
)

// ReleasedKind is the kind of the entry that releases bucket b into
// available; only pending and the reserve are released that way.
func ReleasedKind(b Bucket) (EntryKind, bool) {
	switch b {
	case Pending:
		return KindPendingReleased, true
	case Reserve:
		return KindReserveReleased, true
	}
	return "", false
}

// OfDispute reports the kinds a dispute causes: its hold and release, the
// chargeback, and the bank fine and service fee re-billed with a loss.
func (k EntryKind) OfDispute() bool {
	switch k {
	case KindDisputeHold, KindDisputeRelease, KindDisputeChargeback, KindDisputeBankFine, KindDisputeServiceFee:
		return true
	}
	return false
}

// Entry is one movement: postings that sum to zero in each currency,
// caused by one object (RefType, RefID).
type Entry struct {
	ID       string
	At       time.Time
	Kind     EntryKind
	RefType  string
	RefID    string
	Postings []Posting
}

// Errors of Validate.
var (
	ErrUnbalanced = errors.New("ledger: entry does not balance")
	ErrEmpty      = errors.New("ledger: entry without postings")
	ErrCurrencies = errors.New("ledger: an entry moves one currency")
)

// Validate checks the entry balances: coverage, reserve, deposit and
// registers never cross currencies, so an entry is in one currency.
func (e *Entry) Validate() error {
	if len(e.Postings) == 0 {
		return ErrEmpty
	}
	var sum int64
	cur := e.Postings[0].Account.Currency
	for _, p := range e.Postings {
		if p.Account.Currency != cur {
			return ErrCurrencies
		}
		sum += p.Amount
	}
	if sum != 0 {
		return fmt.Errorf("%w: postings sum to %d", ErrUnbalanced, sum)
	}
	return nil
}

// Move builds an entry's postings that take amount from one account to
// another; a zero amount gives no postings.
func Move(from, to Account, amount int64) []Posting {
	if amount == 0 {
		return nil
	}
	return []Posting{{Account: from, Amount: -amount}, {Account: to, Amount: amount}}
}

// Balances sums postings per account key.
func Balances(postings []Posting) map[string]int64 {
	out := map[string]int64{}
	for _, p := range postings {
		out[p.Account.Key()] += p.Amount
	}
	return out
}

// Keys returns the sorted keys of a balance map, for stable output.
func Keys(m map[string]int64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
