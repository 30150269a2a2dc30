package payd

import (
	"context"
	"errors"
	"fmt"
)

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
		ID: s.ids.NewFor(PrefixDiscrepancy, s.clock.Now(), pay.MerchantID), PaymentID: pay.ID, Provider: provider, NotificationID: n.ID,
		ProviderPaymentID: n.ProviderPaymentID, Kind: n.Kind, ObjectStatus: string(pay.Status), CreatedAt: s.clock.Now(),
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
		cctx, done := s.providerCall(ctx, pr.Name(), "status")
		st, ppid, err := pr.Status(cctx, tx, args.ProviderPaymentID, args.Reference)
		if done(err); err != nil {
			return err
		}
		if ppid == "" || st == ProviderStatusUnknown {
			return nil // never created: nothing to settle
		}
		if pay.Provider != args.Provider || pay.ProviderPaymentID != ppid {
			if st == ProviderStatusAuthorized || st == ProviderStatusSucceeded || st == ProviderStatusPending {
				cctx, done := s.providerCall(ctx, pr.Name(), "void")
				err := pr.Void(cctx, tx, ppid)
				if done(err); err != nil {
					return err
				}
			}
			pay.Attempts = append(pay.Attempts, Attempt{Provider: args.Provider, ProviderPaymentID: ppid,
				Result: "found_after_timeout_voided", At: s.clock.Now()})
			return tx.PaymentUpdate(ctx, pay)
		}
		kind := map[ProviderStatus]NotificationKind{ProviderStatusAuthorized: NotifyAuthorized, ProviderStatusSucceeded: NotifySucceeded, ProviderStatusDeclined: NotifyDeclined}[st]
		if kind == "" || pay.Status.Final() || (kind == NotifyAuthorized && pay.Status != PaymentPending) {
			return nil
		}
		return s.applyNotification(ctx, tx, pay, args.Provider, &Notification{ID: "status-" + ppid, ProviderPaymentID: ppid, Kind: kind})
	})
}

// ListDiscrepancies lists recorded discrepancies for operators.
func (s *Service) ListDiscrepancies(ctx context.Context, lp *ListParams) (Page[*Discrepancy], error) {
	return read(ctx, s, "list discrepancies", func(tx Tx) (Page[*Discrepancy], error) { return tx.DiscrepancyList(ctx, lp) })
}
