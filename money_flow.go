package payd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paydhq/payd/ledger"
	"github.com/paydhq/payd/money"
)

// account names a merchant bucket of a payment's currency and contour.
func merchantAccount(merchantID string, test bool, c money.Currency, b ledger.Bucket, sub string) ledger.Account {
	return ledger.Account{Owner: merchantID, Test: test, Currency: c, Bucket: b, Sub: sub}
}

func serviceAccount(test bool, c money.Currency, b ledger.Bucket) ledger.Account {
	return ledger.Account{Owner: ledger.ServiceOwner, Test: test, Currency: c, Bucket: b}
}

func (s *Service) post(ctx context.Context, tx Tx, kind ledger.EntryKind, refType, refID string, postings ...[]ledger.Posting) error {
	e := &ledger.Entry{ID: s.ids.New("ent_", s.clock.Now()), At: s.clock.Now(), Kind: kind, RefType: refType, RefID: refID}
	for _, p := range postings {
		e.Postings = append(e.Postings, p...)
	}
	if len(e.Postings) == 0 {
		return nil
	}
	return tx.LedgerPost(ctx, e)
}

// postCapture books a captured payment: the sum comes from the provider;
// the fee goes to the service; the reserve share is held; the rest waits in
// pending for the tariff's hold days. Both holdings are released by jobs,
// each part in its own entry.
func (s *Service) postCapture(ctx context.Context, tx Tx, shop *Shop, pay *Payment, tariff Tariff) error {
	c, now := pay.Amount.Currency, s.clock.Now()
	reserveRule := shop.Settings.ReserveFor(c)
	reserve := pay.CapturedAmount * int64(reserveRule.PercentBps) / 10000
	if reserve > pay.CapturedAmount-pay.FeeAmount {
		reserve = max(0, pay.CapturedAmount-pay.FeeAmount)
	}
	clearing := serviceAccount(pay.Test, c, ledger.ProviderClearing)
	pending := merchantAccount(pay.MerchantID, pay.Test, c, ledger.Pending, pay.ID)
	err := s.post(ctx, tx, ledger.KindPaymentCaptured, "payment", pay.ID,
		ledger.Move(clearing, pending, pay.CapturedAmount),
		ledger.Move(pending, serviceAccount(pay.Test, c, ledger.Fees), pay.FeeAmount),
		ledger.Move(pending, merchantAccount(pay.MerchantID, pay.Test, c, ledger.Reserve, pay.ID), reserve))
	if err != nil {
		return err
	}
	if err := s.jobs.Enqueue(ctx, tx, LedgerReleaseArgs{PaymentID: pay.ID, Bucket: ledger.Pending}, now.Add(tariff.Hold())); err != nil {
		return err
	}
	if reserve > 0 {
		return s.jobs.Enqueue(ctx, tx, LedgerReleaseArgs{PaymentID: pay.ID, Bucket: ledger.Reserve},
			now.Add(time.Duration(reserveRule.Days)*24*time.Hour))
	}
	return nil
}

// ReleaseHeld moves what is left of a payment's part in pending or reserve
// to available; a job runs it when the hold or the reserve's days are over.
func (s *Service) ReleaseHeld(ctx context.Context, args LedgerReleaseArgs) error {
	kind, ok := ledger.ReleasedKind(args.Bucket)
	if !ok {
		return fmt.Errorf("release %s of payment %s: only pending and the reserve are released", args.Bucket, args.PaymentID)
	}
	return s.store.Tx(ctx, func(tx Tx) error {
		pay, err := tx.PaymentGetForUpdate(ctx, args.PaymentID)
		if err != nil {
			return notFoundAs(err, "payment")
		}
		if _, err := tx.MerchantGetForUpdate(ctx, pay.MerchantID); err != nil {
			return err
		}
		from := merchantAccount(pay.MerchantID, pay.Test, pay.Amount.Currency, args.Bucket, pay.ID)
		left, err := tx.LedgerAccountBalance(ctx, from)
		if err != nil {
			return err
		}
		if args.Bucket == ledger.Pending {
			pay.PendingReleased = true
			if err := tx.PaymentUpdate(ctx, pay); err != nil {
				return err
			}
		}
		if left <= 0 {
			return nil
		}
		if err := s.post(ctx, tx, kind, "payment", pay.ID,
			ledger.Move(from, merchantAccount(pay.MerchantID, pay.Test, pay.Amount.Currency, ledger.Available, ""), left)); err != nil {
			return err
		}
		return s.autoFreeze(ctx, tx, pay.MerchantID, pay.Test)
	})
}

// BalanceJSON is the contract's Balance object.
type BalanceJSON struct {
	Currency       money.Currency `json:"currency"`
	Available      money.Signed   `json:"available"`
	Pending        money.Amount   `json:"pending"`
	Reserve        money.Amount   `json:"reserve"`
	Deposit        money.Amount   `json:"deposit"`
	PendingRefunds money.Amount   `json:"pending_refunds"`
	Disputed       money.Amount   `json:"disputed"`
	Payable        money.Amount   `json:"payable"`
	Test           bool           `json:"test"`
	// PendingPayouts is what payouts not yet decided took from available
	// (their sums and fees); a compatible addition (docs/payouts.md).
	PendingPayouts money.Amount `json:"pending_payouts"`
}

// Balance is the merchant's balance in the principal's contour, one record
// per currency that ever moved, read from the ledger.
func (s *Service) Balance(ctx context.Context, p *Principal) ([]BalanceJSON, error) {
	var byCur map[money.Currency]map[ledger.Bucket]int64
	var f *Freeze
	err := s.store.View(ctx, func(tx Tx) (err error) {
		if f, err = tx.FreezeGet(ctx, p.Shop.MerchantID, p.Test()); err != nil {
			return err
		}
		byCur, err = tx.LedgerBuckets(ctx, p.Shop.MerchantID, p.Test())
		return err
	})
	if err != nil {
		return nil, err
	}
	out := []BalanceJSON{}
	for _, c := range money.Currencies {
		b, ok := byCur[c]
		if !ok {
			continue
		}
		amt := func(bucket ledger.Bucket) money.Amount { return money.New(max(0, b[bucket]), c) }
		payable := max(0, b[ledger.Available])
		if f.Frozen {
			payable = 0
		}
		out = append(out, BalanceJSON{Currency: c, Available: money.Signed{Minor: b[ledger.Available], Currency: c},
			Pending: amt(ledger.Pending), Reserve: amt(ledger.Reserve), Deposit: amt(ledger.Deposit),
			PendingRefunds: amt(ledger.PendingRefunds), Disputed: amt(ledger.Disputed),
			Payable: money.New(payable, c), Test: p.Test(), PendingPayouts: amt(ledger.PendingPayouts)})
	}
	return out, nil
}

// RefundCreate is `POST /refunds` after its shape was checked.
type RefundCreate struct {
	PaymentID string
	Amount    money.Amount
	Reason    string
	Metadata  map[string]string
	Receipt   bool
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
	return s.idempotent(ctx, p, idem, func(tx Tx) (Outcome, any, error) {
		pay, err := scoped(ctx, tx, p, in.PaymentID, true)
		if err != nil {
			return 0, nil, err
		}
		if pay.Status != PaymentSucceeded {
			return 0, nil, Errorf(CodeInvalidState, "only a succeeded payment can be refunded; this one is %s", pay.Status)
		}
		if in.Amount.Currency != pay.Amount.Currency {
			return 0, nil, Invalid("amount.currency", "the refund currency must be the payment's, %s", pay.Amount.Currency)
		}
		if in.Amount.Minor <= 0 {
			return 0, nil, Invalid("amount.value", "the refund amount must be above zero")
		}
		if in.Amount.Minor > pay.RefundableAmount() {
			return 0, nil, Errorf(CodeRefundExceedsCaptured, "the refund is above the refundable amount %s", money.FormatValue(max(0, pay.RefundableAmount())))
		}
		c := pay.Amount.Currency
		pendingAcct := merchantAccount(pay.MerchantID, pay.Test, c, ledger.Pending, pay.ID)
		availableAcct := merchantAccount(pay.MerchantID, pay.Test, c, ledger.Available, "")
		// The payment's own unreleased part is guarded by the payment's
		// lock; only a refund that reaches into available takes the
		// merchant's lock, so refunds of different payments covered by
		// their own money run side by side.
		unreleased, err := tx.LedgerAccountBalance(ctx, pendingAcct)
		if err != nil {
			return 0, nil, err
		}
		fromPending := min(in.Amount.Minor, max(0, unreleased))
		rest := in.Amount.Minor - fromPending
		if rest > 0 {
			if _, err := tx.MerchantGetForUpdate(ctx, pay.MerchantID); err != nil {
				return 0, nil, err
			}
			available, err := tx.LedgerAccountBalance(ctx, availableAcct)
			if err != nil {
				return 0, nil, err
			}
			if rest > max(0, available) && !p.Shop.Settings.RefundBeyondAvailable {
				return 0, nil, refundInsufficient(rest, fromPending, available, c)
			}
		}
		if in.Receipt {
			return 0, nil, &Error{Code: CodeReceiptInvalid, Param: "receipt", Message: "receipts are not accepted: the fiscalization module is not enabled in this build"}
		}
		now := s.clock.Now()
		r := &Refund{ID: s.ids.New(PrefixRefund, now), ShopID: p.Shop.ID, MerchantID: pay.MerchantID, PaymentID: pay.ID,
			Test: pay.Test, Status: RefundPending, Amount: in.Amount, OrderID: pay.OrderID, Reason: in.Reason,
			Metadata: in.Metadata, CreatedAt: now, FromPending: fromPending}
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
		if rest > 0 {
			if err := s.autoFreeze(ctx, tx, pay.MerchantID, pay.Test); err != nil {
				return 0, nil, err
			}
		}
		if pr, ok := s.providers[pay.Provider].(Refunder); ok {
			if err := pr.Refund(ctx, tx, pay, r); err != nil {
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
	if _, err := tx.MerchantGetForUpdate(ctx, pay.MerchantID); err != nil {
		return err
	}
	if r.Status != RefundPending {
		return tx.DiscrepancyInsert(ctx, &Discrepancy{ID: s.ids.New("dsc_", s.clock.Now()), PaymentID: pay.ID, Provider: provider,
			NotificationID: n.ID, Kind: n.Kind, PaymentStatus: string(r.Status), CreatedAt: s.clock.Now(),
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
		return errors.New("unknown refund notification kind " + n.Kind)
	}
	if err := tx.RefundUpdate(ctx, r); err != nil {
		return err
	}
	if err := tx.PaymentUpdate(ctx, pay); err != nil {
		return err
	}
	if err := s.autoFreeze(ctx, tx, pay.MerchantID, pay.Test); err != nil {
		return err
	}
	_, err = s.RecordEvent(ctx, tx, NewEventParams{Shop: shop, Test: r.Test, Type: evType, ObjectType: "refund", ObjectID: r.ID, Object: r.View()})
	return err
}

// GetRefund returns a refund of the principal's shop and mode.
func (s *Service) GetRefund(ctx context.Context, p *Principal, id string) (r *Refund, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		r, err = inScope(ctx, p, PrefixRefund, "refund", id, tx.RefundGet)
		return err
	})
	return r, err
}

// ListRefunds lists the principal's refunds, newest first.
func (s *Service) ListRefunds(ctx context.Context, p *Principal, params *RefundListParams) (page Page[*Refund], err error) {
	params.ShopID, params.Test = p.Shop.ID, p.Test()
	err = s.store.View(ctx, func(tx Tx) error {
		page, err = tx.RefundList(ctx, params)
		return err
	})
	return page, err
}

// TrialBalance returns every bucket of a merchant's contour per currency,
// straight from the ledger, for operators.
func (s *Service) TrialBalance(ctx context.Context, merchantID string, test bool) (out map[money.Currency]map[ledger.Bucket]int64, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		if _, err := tx.MerchantGet(ctx, merchantID); err != nil {
			return notFoundAs(err, "merchant")
		}
		out, err = tx.LedgerBuckets(ctx, merchantID, test)
		return err
	})
	return out, err
}

// LedgerEntries returns the entries that moved a merchant's money in a
// contour and currency in [from, to), for operators (read-only).
func (s *Service) LedgerEntries(ctx context.Context, merchantID string, test bool, c money.Currency, from, to time.Time) (out []*ledger.Entry, err error) {
	if !c.Valid() {
		return nil, Invalid("currency", "currency must be one of RUB, KZT, USD, EUR")
	}
	if !from.Before(to) || to.Sub(from) > 93*24*time.Hour {
		return nil, Invalid("to", "the range must be positive and at most 93 days")
	}
	err = s.store.View(ctx, func(tx Tx) error {
		out, err = tx.LedgerEntriesOf(ctx, merchantID, test, c, from, to)
		return err
	})
	return out, err
}
