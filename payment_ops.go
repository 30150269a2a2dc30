package payd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paydhq/payd/money"
)

// Provider returns a registered provider by name.
func (s *Service) Provider(name string) (Provider, bool) {
	p, ok := s.providers[name]
	return p, ok
}

// startAttempt runs the cascade, the route read for the payment and
// method in tx: each candidate in order until one takes the attempt. A
// timeout moves on to the next candidate and schedules a status query of
// the one that timed out, so an attempt that was created after all is
// found and settled. It is the only way to a provider attempt, and it
// refuses a payment of a shop with the pre-check on that its shop has not
// allowed; the cascade's later candidates go by that one decision.
func (s *Service) startAttempt(ctx context.Context, tx Tx, shop *Shop, pay *Payment, method string, candidates []string) error {
	if err := precheckGate(shop, pay); err != nil {
		return err
	}
	now := s.clock.Now()
	for i, name := range candidates {
		pr, ok := s.providers[name]
		if !ok {
			continue
		}
		ref := AttemptReference(pay.ID, i)
		res, err := pr.CreateAttempt(ctx, tx, AttemptRequest{Payment: pay, Method: method, Candidate: i, Reference: ref})
		if errors.Is(err, ErrProviderTimeout) {
			pay.Attempts = append(pay.Attempts, Attempt{Provider: name, Method: method, Result: "timeout", At: now})
			if err := s.jobs.Enqueue(ctx, tx, ProviderStatusArgs{PaymentID: pay.ID, Provider: name, Reference: ref}, now.Add(30*time.Second)); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		pay.Provider, pay.ProviderPaymentID = name, res.ProviderPaymentID
		pay.Attempts = append(pay.Attempts, Attempt{Provider: name, ProviderPaymentID: res.ProviderPaymentID, Method: method, Result: "created", At: now})
		pay.PaymentMethod = &PaymentMethodData{Type: method}
		if res.QRData != "" {
			pay.ConfirmationData = res.QRData
		}
		pay.redirect = res.RedirectURL
		return nil
	}
	return &Error{Code: CodeProviderUnavailable, RetryAfter: 30 * time.Second,
		Message: "no payment provider could take the attempt; retry later"}
}

// scoped loads a payment of the principal's shop and mode, locked for
// update when lock is set.
func scoped(ctx context.Context, tx Tx, p *Principal, id string, lock bool) (*Payment, error) {
	return inScope(ctx, p, PrefixPayment, "payment", id, lockedIf(lock, tx.PaymentGet, tx.PaymentGetForUpdate))
}

// GetPayment returns a payment of the principal's shop and mode.
func (s *Service) GetPayment(ctx context.Context, p *Principal, id string) (pay *Payment, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		pay, err = scoped(ctx, tx, p, id, false)
		return err
	})
	return pay, err
}

// ListPayments lists the principal's payments, newest first, each as the
// contract renders it.
func (s *Service) ListPayments(ctx context.Context, p *Principal, params *PaymentListParams) (page Page[*PaymentView], err error) {
	params.ShopID, params.Test = p.Shop.ID, p.Test()
	err = s.store.View(ctx, func(tx Tx) error {
		page, err = tx.PaymentViewList(ctx, params)
		return err
	})
	return page, err
}

// CapturePayment charges an authorized payment, fully (amount nil) or
// partially; a partial capture releases the rest of the authorization
// (Payments, rules 1 and 2).
func (s *Service) CapturePayment(ctx context.Context, p *Principal, idem Idempotency, id string, amount *money.Amount) (*Response, error) {
	return s.idempotent(ctx, p, idem, func(tx Tx) (Outcome, any, error) {
		pay, err := scoped(ctx, tx, p, id, true)
		if err != nil {
			return 0, nil, err
		}
		if pay.Status != PaymentWaitingForCapture {
			return 0, nil, invalidState(pay, "capture")
		}
		sum := pay.Amount.Minor
		if amount != nil {
			if amount.Currency != pay.Amount.Currency {
				return 0, nil, Invalid("amount.currency", "the capture currency must be the payment's, %s", pay.Amount.Currency)
			}
			if amount.Minor <= 0 || amount.Minor > pay.Amount.Minor {
				return 0, nil, Invalid("amount.value", "the capture amount must be above zero and at most the authorized %s", money.FormatValue(pay.Amount.Minor))
			}
			sum = amount.Minor
		}
		if pr, ok := s.providers[pay.Provider]; ok {
			if err := pr.Capture(ctx, tx, pay.ProviderPaymentID, sum); err != nil {
				return 0, nil, s.providerError(err)
			}
		}
		if err := s.succeed(ctx, tx, pay, sum); err != nil {
			return 0, nil, err
		}
		return OutcomeOK, pay.View(""), nil
	})
}

// CancelPayment closes the checkout of a pending payment or voids the
// authorization of one waiting for capture.
func (s *Service) CancelPayment(ctx context.Context, p *Principal, idem Idempotency, id string) (*Response, error) {
	return s.idempotent(ctx, p, idem, func(tx Tx) (Outcome, any, error) {
		pay, err := scoped(ctx, tx, p, id, true)
		if err != nil {
			return 0, nil, err
		}
		if pay.Status.Final() {
			return 0, nil, invalidState(pay, "cancel")
		}
		if pay.Status == PaymentWaitingForCapture {
			if pr, ok := s.providers[pay.Provider]; ok {
				if err := pr.Void(ctx, tx, pay.ProviderPaymentID); err != nil {
					return 0, nil, s.providerError(err)
				}
			}
		}
		if err := s.cancel(ctx, tx, pay, CancellationDetails{Party: PartyMerchant, Reason: ReasonCanceledByMerchant}); err != nil {
			return 0, nil, err
		}
		return OutcomeOK, pay.View(""), nil
	})
}

func (s *Service) providerError(err error) error {
	if errors.Is(err, ErrProviderTimeout) {
		return &Error{Code: CodeProviderUnavailable, RetryAfter: 30 * time.Second, Message: "the provider did not answer; retry with the same Idempotency-Key"}
	}
	return err
}

func invalidState(pay *Payment, op string) *Error {
	hint := ""
	if op == "capture" && pay.Status == PaymentSucceeded {
		hint = "; it is already captured"
	}
	if pay.Status == PaymentSucceeded && op == "cancel" {
		hint = "; use a refund"
	}
	return Errorf(CodeInvalidState, "cannot %s a payment in status %s%s", op, pay.Status, hint)
}

// moveAllowed refuses a status change the transition table does not hold.
// Each operation checks its own rule first (capture only from
// waiting_for_capture, and so on) with its own message; this is the last
// word, so that no path can revive a final payment.
func moveAllowed(pay *Payment, to PaymentStatus) error {
	if !pay.Status.CanBecome(to) {
		return Errorf(CodeInvalidState, "a payment in status %s cannot become %s", pay.Status, to)
	}
	return nil
}

// succeed moves a payment to succeeded with sum captured, fixes its fee by
// the tariff in force, and records the event.
func (s *Service) succeed(ctx context.Context, tx Tx, pay *Payment, sum int64) error {
	if err := moveAllowed(pay, PaymentSucceeded); err != nil {
		return err
	}
	now := s.clock.Now()
	shop, err := tx.ShopGet(ctx, pay.ShopID)
	if err != nil {
		return err
	}
	method := pay.Method()
	if pay.AuthorizedAt == nil {
		pay.AuthorizedAt = &now
	}
	tariff := shop.Settings.TariffFor(method, pay.Amount.Currency)
	pay.Status, pay.CapturedAmount, pay.CapturedAt = PaymentSucceeded, sum, &now
	pay.FeeAmount, pay.FeeFixed = tariff.Fee(sum), true
	pay.HoldExpiresAt = nil
	if err := s.postCapture(ctx, tx, shop, pay, tariff); err != nil {
		return err
	}
	if err := s.savePaymentEvent(ctx, tx, shop, pay, EventPaymentSucceeded); err != nil {
		return err
	}
	// Every way to success (notification, status query, capture,
	// simulate) comes through here, so a one-time link is paid in the
	// transaction of its payment's success, whatever the trigger.
	if pay.LinkID != "" {
		return s.linkPaymentSucceeded(ctx, tx, shop, pay)
	}
	return nil
}

// authorize moves a pending payment to waiting_for_capture and schedules
// the end of its hold.
func (s *Service) authorize(ctx context.Context, tx Tx, pay *Payment) error {
	if err := moveAllowed(pay, PaymentWaitingForCapture); err != nil {
		return err
	}
	now := s.clock.Now()
	shop, err := tx.ShopGet(ctx, pay.ShopID)
	if err != nil {
		return err
	}
	method := pay.Method()
	hold := now.Add(shop.Settings.HoldFor(method))
	pay.Status, pay.AuthorizedAt, pay.HoldExpiresAt = PaymentWaitingForCapture, &now, &hold
	if err := s.jobs.Enqueue(ctx, tx, PaymentExpireArgs{PaymentID: pay.ID}, hold); err != nil {
		return err
	}
	return s.savePaymentEvent(ctx, tx, shop, pay, EventPaymentWaitingForCapture)
}

// cancel moves a payment to canceled with details.
func (s *Service) cancel(ctx context.Context, tx Tx, pay *Payment, d CancellationDetails) error {
	if err := moveAllowed(pay, PaymentCanceled); err != nil {
		return err
	}
	now := s.clock.Now()
	shop, err := tx.ShopGet(ctx, pay.ShopID)
	if err != nil {
		return err
	}
	pay.Status, pay.CanceledAt, pay.Cancellation, pay.HoldExpiresAt = PaymentCanceled, &now, &d, nil
	return s.savePaymentEvent(ctx, tx, shop, pay, EventPaymentCanceled)
}

func (s *Service) savePaymentEvent(ctx context.Context, tx Tx, shop *Shop, pay *Payment, t EventType) error {
	if err := tx.PaymentUpdate(ctx, pay); err != nil {
		return err
	}
	_, err := s.RecordEvent(ctx, tx, NewEventParams{
		Shop: shop, Test: pay.Test, Type: t, ObjectType: "payment", ObjectID: pay.ID, Object: pay.View(""),
	})
	return err
}

// ExpirePayment cancels a payment whose confirmation time or hold has run
// out; the expiry sweep runs it for pending payments past expires_at, and
// a job at the hold's end. An early or stale run changes nothing.
func (s *Service) ExpirePayment(ctx context.Context, id string, force bool) error {
	return s.store.Tx(ctx, func(tx Tx) error {
		pay, err := tx.PaymentGetForUpdate(ctx, id)
		if err != nil {
			return notFoundAs(err, "payment")
		}
		now := s.clock.Now()
		switch {
		case pay.Status == PaymentPending && (force || !now.Before(pay.ExpiresAt)):
			return s.cancel(ctx, tx, pay, CancellationDetails{Party: PartyService, Reason: ReasonExpiredOnConfirmation})
		case pay.Status == PaymentWaitingForCapture && (force || (pay.HoldExpiresAt != nil && !now.Before(*pay.HoldExpiresAt))):
			if pr, ok := s.providers[pay.Provider]; ok {
				if err := pr.Void(ctx, tx, pay.ProviderPaymentID); err != nil {
					return err
				}
			}
			return s.cancel(ctx, tx, pay, CancellationDetails{Party: PartyService, Reason: ReasonExpiredOnCapture})
		}
		return nil
	})
}

// HandleProviderNotification verifies and applies a provider notification.
// Each notification is processed once: a repeat is acknowledged and changes
// nothing. A notification for a payment already final does not revive it;
// it is recorded as a discrepancy for reconciliation.
func (s *Service) HandleProviderNotification(ctx context.Context, provider string, payload []byte, signature string) error {
	pr, ok := s.providers[provider]
	if !ok {
		return NotFound("provider")
	}
	n, err := pr.VerifyNotification(payload, signature)
	if err != nil {
		return Invalid("", "notification rejected: %v", err)
	}
	return s.store.Tx(ctx, func(tx Tx) error {
		now := s.clock.Now()
		if err := tx.NotificationRecord(ctx, provider, n.ID, now); err != nil {
			if errors.Is(err, ErrConflict) {
				s.log.Info("duplicate provider notification ignored", "provider", provider, "notification", n.ID)
				return nil
			}
			return err
		}
		if n.RefundID != "" {
			return s.applyRefundNotification(ctx, tx, provider, n)
		}
		if n.Dispute != nil {
			return s.applyDisputeNotification(ctx, tx, provider, n)
		}
		pay, err := tx.PaymentGetByProviderID(ctx, provider, n.ProviderPaymentID)
		if err != nil {
			return notFoundAs(err, "payment")
		}
		pay, err = tx.PaymentGetForUpdate(ctx, pay.ID)
		if err != nil {
			return err
		}
		return s.applyNotification(ctx, tx, pay, provider, n)
	})
}

func (s *Service) applyNotification(ctx context.Context, tx Tx, pay *Payment, provider string, n *Notification) error {
	if n.Method != nil {
		pay.PaymentMethod = n.Method
	}
	if n.Authorization != nil {
		pay.Authorization = n.Authorization
	}
	switch {
	case n.Kind == NotifySucceeded && (pay.Status == PaymentPending || pay.Status == PaymentWaitingForCapture):
		sum := pay.Amount.Minor
		if n.Amount > 0 && n.Amount <= sum {
			sum = n.Amount
		}
		return s.succeed(ctx, tx, pay, sum)
	case n.Kind == NotifyAuthorized && pay.Status == PaymentPending:
		return s.authorize(ctx, tx, pay)
	case n.Kind == NotifyDeclined && pay.Status == PaymentPending:
		reason := declineReason(n.Reason)
		return s.cancel(ctx, tx, pay, CancellationDetails{Party: PartyPaymentNetwork, Reason: reason, ProviderCode: n.ProviderCode})
	}
	return tx.DiscrepancyInsert(ctx, &Discrepancy{
		ID: s.ids.New("dsc_", s.clock.Now()), PaymentID: pay.ID, Provider: provider, NotificationID: n.ID,
		ProviderPaymentID: n.ProviderPaymentID, Kind: n.Kind, PaymentStatus: string(pay.Status), CreatedAt: s.clock.Now(),
		Detail: fmt.Sprintf("%s notification for a payment in status %s was not applied", n.Kind, pay.Status),
	})
}

// QueryProviderStatus asks a provider what became of an attempt that timed
// out or whose notification is overdue. For the payment's current attempt,
// an answer that moves it is applied like a notification. An attempt the
// cascade already left behind (a timeout that was created after all) is
// voided, so the payer is never charged twice.
func (s *Service) QueryProviderStatus(ctx context.Context, args ProviderStatusArgs) error {
	pr, ok := s.providers[args.Provider]
	if !ok {
		return nil
	}
	return s.store.Tx(ctx, func(tx Tx) error {
		pay, err := tx.PaymentGetForUpdate(ctx, args.PaymentID)
		if err != nil {
			return notFoundAs(err, "payment")
		}
		st, ppid, err := pr.Status(ctx, tx, args.ProviderPaymentID, args.Reference)
		if err != nil {
			return err
		}
		if ppid == "" || st == ProviderStatusUnknown {
			return nil // never created: nothing to settle
		}
		if pay.Provider != args.Provider || pay.ProviderPaymentID != ppid {
			if st == ProviderStatusAuthorized || st == ProviderStatusSucceeded || st == ProviderStatusPending {
				if err := pr.Void(ctx, tx, ppid); err != nil {
					return err
				}
			}
			pay.Attempts = append(pay.Attempts, Attempt{Provider: args.Provider, ProviderPaymentID: ppid,
				Result: "found_after_timeout_voided", At: s.clock.Now()})
			return tx.PaymentUpdate(ctx, pay)
		}
		kind := map[ProviderStatus]string{ProviderStatusAuthorized: NotifyAuthorized, ProviderStatusSucceeded: NotifySucceeded, ProviderStatusDeclined: NotifyDeclined}[st]
		if kind == "" || pay.Status.Final() || (kind == NotifyAuthorized && pay.Status != PaymentPending) {
			return nil
		}
		return s.applyNotification(ctx, tx, pay, args.Provider, &Notification{ID: "status-" + ppid, ProviderPaymentID: ppid, Kind: kind})
	})
}

// ListDiscrepancies lists recorded discrepancies for operators.
func (s *Service) ListDiscrepancies(ctx context.Context, lp *ListParams) (page Page[*Discrepancy], err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		page, err = tx.DiscrepancyList(ctx, lp)
		return err
	})
	return page, err
}

// OperatorPayment returns any payment by id, for operators.
func (s *Service) OperatorPayment(ctx context.Context, id string) (pay *Payment, err error) {
	err = s.store.View(ctx, func(tx Tx) error {
		pay, err = tx.PaymentGet(ctx, id)
		return err
	})
	return pay, notFoundAs(err, "payment")
}

// RefreshPaymentViews renders again the stored rendering of every payment
// whose rendering is of an older PaymentViewVersion, a batch at a time,
// each payment in its own short transaction under its lock. Lists already
// render such payments from their documents; this brings the stored form
// up to date so that they are sent as stored again. A periodic job runs it
// (and at start); with nothing stale it reads one empty index page.
func (s *Service) RefreshPaymentViews(ctx context.Context) (int, error) {
	const batch = 500
	n, after := 0, ""
	for {
		var ids []string
		err := s.store.View(ctx, func(tx Tx) (err error) {
			ids, err = tx.PaymentViewsStale(ctx, after, batch)
			return err
		})
		if err != nil {
			return n, fmt.Errorf("list stale payment renderings: %w", err)
		}
		for _, id := range ids {
			err := s.store.Tx(ctx, func(tx Tx) error {
				pay, err := tx.PaymentGetForUpdate(ctx, id)
				if err != nil {
					return err
				}
				return tx.PaymentUpdate(ctx, pay)
			})
			if err != nil {
				return n, fmt.Errorf("render payment %s again: %w", id, err)
			}
			n++
		}
		if len(ids) < batch {
			return n, nil
		}
		after = ids[len(ids)-1]
	}
}
