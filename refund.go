package payd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// RefundStatus is a refund's state: pending, then succeeded or canceled.
type RefundStatus string

// Refund states (States: Refund).
const (
	RefundPending   RefundStatus = "pending"
	RefundSucceeded RefundStatus = "succeeded"
	RefundCanceled  RefundStatus = "canceled"
)

// RefundStatusAll returns every refund status.
func RefundStatusAll() []RefundStatus {
	return []RefundStatus{RefundPending, RefundSucceeded, RefundCanceled}
}

// Valid reports whether s is a known refund status.
func (s RefundStatus) Valid() bool { return slices.Contains(RefundStatusAll(), s) }

// Refund is a refund with what the service keeps about it.
type Refund struct {
	ID           string               `json:"id"`
	ShopID       string               `json:"shop_id"`
	MerchantID   string               `json:"merchant_id"`
	PaymentID    string               `json:"payment_id"`
	Test         bool                 `json:"test"`
	Status       RefundStatus         `json:"status"`
	Amount       money.Amount         `json:"amount"`
	OrderID      string               `json:"order_id"`
	Reason       string               `json:"reason,omitempty"`
	Metadata     map[string]string    `json:"metadata,omitempty"`
	Cancellation *CancellationDetails `json:"cancellation,omitempty"`
	CreatedAt    time.Time            `json:"created_at"`
	SucceededAt  *time.Time           `json:"succeeded_at,omitempty"`
	// FromPending is the part taken from the payment's unreleased money;
	// the rest came from available. A canceled refund gives each part back
	// where it came from.
	FromPending int64 `json:"from_pending"`
	// FeeReturned is the fee part this refund returned to the merchant.
	FeeReturned int64 `json:"fee_returned"`
	// CreatedBy is who asked for the refund; nil for refunds made before
	// it was recorded.
	CreatedBy *Requester `json:"created_by,omitempty"`
}

// RefundJSON is the contract's Refund object.
type RefundJSON struct {
	ID                  string               `json:"id"`
	PaymentID           string               `json:"payment_id"`
	Status              RefundStatus         `json:"status"`
	Amount              money.Amount         `json:"amount"`
	CreatedAt           time.Time            `json:"created_at"`
	Test                bool                 `json:"test"`
	OrderID             string               `json:"order_id,omitempty"`
	Reason              string               `json:"reason,omitempty"`
	CancellationDetails *CancellationDetails `json:"cancellation_details,omitempty"`
	Metadata            map[string]string    `json:"metadata,omitempty"`
	SucceededAt         *time.Time           `json:"succeeded_at,omitempty"`
}

// View returns the contract's object.
func (r *Refund) View() *RefundJSON {
	return &RefundJSON{ID: r.ID, PaymentID: r.PaymentID, Status: r.Status, Amount: r.Amount, CreatedAt: r.CreatedAt,
		Test: r.Test, OrderID: r.OrderID, Reason: r.Reason, CancellationDetails: r.Cancellation, Metadata: r.Metadata,
		SucceededAt: r.SucceededAt}
}

// RefundListParams filters `GET /refunds`.
type RefundListParams struct {
	ListParams
	ShopID    string
	Test      bool
	PaymentID string
	Status    RefundStatus
}

// ReserveRule is one currency's rolling reserve of a shop: percent_bps of
// each captured sum held for days.
type ReserveRule struct {
	Currency   money.Currency `json:"currency"`
	PercentBps int            `json:"percent_bps"`
	Days       int            `json:"days"`
}

// LedgerReleaseArgs moves a payment's part in a holding bucket (pending
// after the tariff's hold days, reserve after the reserve's days) to
// available.
type LedgerReleaseArgs struct {
	PaymentID string        `json:"payment_id"`
	Bucket    ledger.Bucket `json:"bucket"`
}

// Kind names the job.
func (LedgerReleaseArgs) Kind() string { return "ledger_release" }

// RefundCreate is `POST /refunds` after its shape was checked.
type RefundCreate struct {
	PaymentID string
	Amount    money.Amount
	Reason    string
	Metadata  map[string]string
	Receipt   bool
}

// CheckRefund refuses a refund of a on the payment as it stands, in the
// contract's order of checks: its status, the currency, the amount above
// zero and within the refundable amount. CreateRefund checks it again
// under the payment's lock; the dashboard asks it before its confirmation
// step, so that a refusal comes before the question.
func (p *Payment) CheckRefund(a money.Amount) error {
	if p.Status != PaymentSucceeded {
		return Errorf(CodeInvalidState, "only a succeeded payment can be refunded; this one is %s", p.Status)
	}
	if a.Currency != p.Amount.Currency {
		return Invalid("amount.currency", "the refund currency must be the payment's, %s", p.Amount.Currency)
	}
	if a.Minor <= 0 {
		return Invalid("amount.value", "the refund amount must be above zero")
	}
	if a.Minor > p.RefundableAmount() {
		return Errorf(CodeRefundExceedsCaptured, "the refund is above the refundable amount %s", Sum{max(0, p.RefundableAmount()), p.Amount.Currency})
	}
	return nil
}

// Requester is who asked for a change: a dashboard user, or a key of the
// API. It is kept with the refund itself rather than looked up in the
// audit log, which records only the dashboard's changes and is read by
// merchant, not by object.
type Requester struct {
	UserID string `json:"user_id,omitempty"`
	Email  string `json:"email,omitempty"`
	KeyID  string `json:"key_id,omitempty"`
}

// requesterOf is the principal's requester: the dashboard user when there
// is one, else the API key; nil for neither (the operator, a job).
func requesterOf(p *Principal) *Requester {
	switch {
	case p.Actor != nil:
		return &Requester{UserID: p.Actor.UserID, Email: p.Actor.Email}
	case p.KeyID != "":
		return &Requester{KeyID: p.KeyID}
	}
	return nil
}

// refundInsufficient refuses a refund whose part beyond the payment's own
// unreleased money (rest) the available balance does not cover; it names
// both figures.
func refundInsufficient(rest, fromPending, available int64, c money.Currency) *Error {
	covered := ""
	if fromPending > 0 {
		covered = fmt.Sprintf(" (the payment's unreleased %s covers the rest)", money.New(fromPending, c))
	}
	return Errorf(CodeInsufficientMerchantBalance, "the refund needs %s from the available balance, which is %s%s",
		money.New(rest, c), money.Signed{Minor: available, Currency: c}, covered)
}

// CreateRefund creates a pending refund, in the contract's order of checks:
// the payment (another shop's is not found), its status, the refundable
// amount, the merchant's balance, the receipt. Its sum leaves pending (the
// payment's own unreleased part first) or available for pending_refunds at
// once; the provider answers later.
func (s *Service) CreateRefund(ctx context.Context, p *Principal, idem Idempotency, in RefundCreate) (*Response, error) {
	if err := checkText("reason", in.Reason, 0, 256); err != nil {
		return nil, err
	}
	if err := CheckMetadata(in.Metadata); err != nil {
		return nil, err
	}
	return s.claimed(ctx, AuditCreateRefund, p, idem, func(tx Tx) (Outcome, any, error) {
		pay, err := scoped(ctx, tx, p, in.PaymentID, true)
		if err != nil {
			return 0, nil, err
		}
		if err := pay.CheckRefund(in.Amount); err != nil {
			return 0, nil, err
		}
		c := pay.Amount.Currency
		pendingAcct := merchantAccount(pay.MerchantID, pay.Test, c, ledger.Pending, pay.ID)
		availableAcct := merchantAccount(pay.MerchantID, pay.Test, c, ledger.Available, "")
		// The payment's own unreleased part is guarded by the payment's
		// lock; only a refund that reaches into available takes the
		// merchant's lock, so refunds of different payments covered by
		// their own money run side by side.
		// Once released (the flag is set under the payment's lock, which
		// this transaction holds), nothing posts to the payment's pending
		// part again: it is zero, and reading it would be a round trip for
		// nothing.
		var unreleased int64
		if !pay.PendingReleased {
			if unreleased, err = tx.LedgerAccountBalance(ctx, pendingAcct); err != nil {
				return 0, nil, err
			}
		}
		fromPending := min(in.Amount.Minor, max(0, unreleased))
		rest := in.Amount.Minor - fromPending
		now := s.clock.Now()
		r := &Refund{ID: s.ids.NewFor(PrefixRefund, now, pay.MerchantID), ShopID: p.Shop.ID, MerchantID: pay.MerchantID, PaymentID: pay.ID,
			Test: pay.Test, Status: RefundPending, Amount: in.Amount, OrderID: pay.OrderID, Reason: in.Reason,
			Metadata: in.Metadata, CreatedAt: now, FromPending: fromPending, CreatedBy: requesterOf(p)}
		if err := tx.RefundInsert(ctx, r); err != nil {
			return 0, nil, err
		}
		inFlight := merchantAccount(pay.MerchantID, pay.Test, c, ledger.PendingRefunds, r.ID)
		if err := s.post(ctx, tx, ledger.KindRefundCreated, "refund", r.ID,
			ledger.Move(pendingAcct, inFlight, fromPending),
			ledger.Move(availableAcct, inFlight, rest)); err != nil {
			return 0, nil, err
		}
		pay.PendingRefundsAmount += in.Amount.Minor
		if err := tx.PaymentUpdate(ctx, pay); err != nil {
			return 0, nil, err
		}
		// The part from available is checked after the refund's writes,
		// under the merchant's lock taken only now: the lock is held for
		// the check and what must follow it, not for the writes (all of
		// them are undone if the check refuses). Every change that lowers
		// available takes this lock before it reads, so the read sees
		// each of them that came first, and this refund's own posting:
		// it is available after the refund.
		// freezeMayChange is whether this refund can change the contour's
		// payout freeze: only by taking available below zero, or from
		// below zero (refund_beyond_available). Every movement of
		// available settles the freeze after it, so a refund that leaves
		// available at or above zero, where it was, leaves the freeze as
		// it is, and need not read it again under the merchant's lock.
		freezeMayChange := false
		if rest > 0 {
			if err := tx.MerchantLock(ctx, pay.MerchantID); err != nil {
				return 0, nil, err
			}
			after, err := tx.LedgerAccountBalance(ctx, availableAcct)
			if err != nil {
				return 0, nil, err
			}
			if after < 0 && !p.Shop.Settings.RefundBeyondAvailable {
				return 0, nil, refundInsufficient(rest, fromPending, after+rest, c)
			}
			freezeMayChange = after < 0
		}
		if in.Receipt {
			return 0, nil, &Error{Code: CodeReceiptInvalid, Param: "receipt", Message: "receipts are not accepted: the fiscalization module is not enabled in this build"}
		}
		if freezeMayChange {
			if err := s.autoFreeze(ctx, tx, pay.MerchantID, pay.Test); err != nil {
				return 0, nil, err
			}
		}
		if pr, ok := s.providers[pay.Provider].(Refunder); ok {
			cctx, done := s.providerCall(ctx, pay.Provider, "refund")
			err := pr.Refund(cctx, tx, pay, r)
			if done(err); err != nil {
				return 0, nil, s.providerError(err)
			}
		}
		return OutcomeCreated, r.View(), nil
	})
}

// Refunder is a provider that takes refunds; it answers through a
// notification naming the refund.
type Refunder interface {
	Refund(ctx context.Context, tx Tx, pay *Payment, r *Refund) error
}

// applyRefundNotification settles a pending refund: succeeded moves its sum
// out to the provider and returns the fee part; canceled gives the money
// back where it came from. A repeat for a decided refund is a discrepancy.
func (s *Service) applyRefundNotification(ctx context.Context, tx Tx, provider string, n *Notification) error {
	r, err := tx.RefundGetForUpdate(ctx, n.RefundID)
	if err != nil {
		return notFoundAs(err, "refund")
	}
	pay, err := tx.PaymentGetForUpdate(ctx, r.PaymentID)
	if err != nil {
		return err
	}
	if r.Status != RefundPending {
		return tx.DiscrepancyInsert(ctx, &Discrepancy{ID: s.ids.NewFor(PrefixDiscrepancy, s.clock.Now(), pay.MerchantID), PaymentID: pay.ID, Provider: provider,
			NotificationID: n.ID, Kind: n.Kind, ObjectStatus: string(r.Status), CreatedAt: s.clock.Now(),
			Detail: "refund notification for a refund already " + string(r.Status)})
	}
	shop, err := tx.ShopGet(ctx, r.ShopID)
	if err != nil {
		return err
	}
	c, now := pay.Amount.Currency, s.clock.Now()
	inFlight := merchantAccount(pay.MerchantID, pay.Test, c, ledger.PendingRefunds, r.ID)
	available := merchantAccount(pay.MerchantID, pay.Test, c, ledger.Available, "")
	pay.PendingRefundsAmount -= r.Amount.Minor
	evType := EventRefundSucceeded
	switch n.Kind {
	case NotifyRefundSucceeded:
		method := pay.Method()
		fee := shop.Settings.TariffFor(method, c).FeeReturn(pay.FeeAmount, pay.FeeRefundedAmount, pay.CapturedAmount, r.Amount.Minor)
		if err := s.post(ctx, tx, ledger.KindRefundSucceeded, "refund", r.ID,
			ledger.Move(inFlight, serviceAccount(pay.Test, c, ledger.ProviderClearing), r.Amount.Minor),
			ledger.Move(serviceAccount(pay.Test, c, ledger.Fees), available, fee)); err != nil {
			return err
		}
		r.Status, r.SucceededAt, r.FeeReturned = RefundSucceeded, &now, fee
		pay.RefundedAmount += r.Amount.Minor
		pay.FeeRefundedAmount += fee
	case NotifyRefundFailed:
		back := merchantAccount(pay.MerchantID, pay.Test, c, ledger.Pending, pay.ID)
		if pay.PendingReleased {
			back = available
		}
		if err := s.post(ctx, tx, ledger.KindRefundCanceled, "refund", r.ID,
			ledger.Move(inFlight, back, r.FromPending),
			ledger.Move(inFlight, available, r.Amount.Minor-r.FromPending)); err != nil {
			return err
		}
		reason := declineReason(n.Reason)
		r.Status, r.Cancellation = RefundCanceled, &CancellationDetails{Party: PartyPaymentNetwork, Reason: reason, ProviderCode: n.ProviderCode}
		evType = EventRefundCanceled
	default:
		return errors.New("unknown refund notification kind " + string(n.Kind))
	}
	if err := tx.RefundUpdate(ctx, r); err != nil {
		return err
	}
	if err := tx.PaymentUpdate(ctx, pay); err != nil {
		return err
	}
	if _, err := s.RecordEvent(ctx, tx, NewEventParams{Shop: shop, Test: r.Test, Type: evType, ObjectType: "refund", ObjectID: r.ID, Object: r.View()}); err != nil {
		return err
	}
	// Both outcomes only add to available, which needs no check and so
	// not the merchant's lock; the freeze is settled last, under its own
	// lock (autoFreeze), held for the freeze and the commit alone.
	return s.autoFreeze(ctx, tx, pay.MerchantID, pay.Test)
}

// GetRefund returns a refund of the principal's shop and mode.
func (s *Service) GetRefund(ctx context.Context, p *Principal, id string) (*Refund, error) {
	return read(ctx, s, "get refund", func(tx Tx) (*Refund, error) { return inScope(ctx, p, PrefixRefund, "refund", id, tx.RefundGet) })
}

// ListRefunds lists the principal's refunds, newest first.
func (s *Service) ListRefunds(ctx context.Context, p *Principal, params *RefundListParams) (Page[*Refund], error) {
	params.ShopID, params.Test = p.Shop.ID, p.Test()
	return read(ctx, s, "list refunds", func(tx Tx) (Page[*Refund], error) { return tx.RefundList(ctx, params) })
}
