package payd

import (
	"context"
	"slices"

	"github.com/paydhq/payd/internal/ledger"
)

// FreezeReason is why a merchant's payouts are frozen
// (SettlementStatus.frozen_reason).
type FreezeReason string

// Freeze reasons of the contract. The service sets two by itself; an
// operator may set any.
const (
	// FreezeNegativeBalance is the automatic freeze's reason: available
	// is negative in some currency.
	FreezeNegativeBalance FreezeReason = "negative_balance"
	// FreezeChargebackRatio is the freeze of a chargeback ratio above the
	// merchant's rule.
	FreezeChargebackRatio FreezeReason = "chargeback_ratio"
	FreezeRefundRatio     FreezeReason = "refund_ratio"
	FreezeVolumeSpike     FreezeReason = "volume_spike"
	FreezeManualReview    FreezeReason = "manual_review"
	FreezeVerification    FreezeReason = "verification"
)

// FreezeReasonAll returns every freeze reason, in the contract's order.
func FreezeReasonAll() []FreezeReason {
	return []FreezeReason{FreezeNegativeBalance, FreezeChargebackRatio, FreezeRefundRatio, FreezeVolumeSpike,
		FreezeManualReview, FreezeVerification}
}

// Valid reports whether r is a known reason.
func (r FreezeReason) Valid() bool { return slices.Contains(FreezeReasonAll(), r) }

// setFreeze changes a contour's freeze and emits settlement.frozen or
// settlement.unfrozen once per shop of the merchant, each with the same
// SettlementStatus. Setting the state it already has changes nothing.
func (s *Service) setFreeze(ctx context.Context, tx Tx, merchantID string, test, frozen bool, reason FreezeReason) error {
	if err := tx.FreezeLock(ctx, merchantID, test); err != nil {
		return err
	}
	f, err := tx.FreezeGet(ctx, merchantID, test)
	if err != nil {
		return err
	}
	if f.Frozen == frozen {
		return nil
	}
	m, err := tx.MerchantGet(ctx, merchantID)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	t := EventSettlementFrozen
	if frozen {
		f.Frozen, f.Reason, f.FrozenAt, f.UnfrozenAt = true, reason, &now, nil
	} else {
		f.Frozen, f.UnfrozenAt = false, &now
		t = EventSettlementUnfrozen
	}
	if err := tx.FreezePut(ctx, f); err != nil {
		return err
	}
	_, err = s.RecordMerchantEvent(ctx, tx, merchantID, test, t, "settlement_status", merchantID, f.Status(m))
	return err
}

// autoFreeze freezes payouts when available is negative in any currency and
// lifts an automatic freeze once no currency is negative; a freeze an
// operator set is lifted only by an operator. It runs after every movement
// that can lower available, in the same transaction.
//
// It takes the freeze's lock before it reads the balance, so that two
// decisions never interleave: the one that takes the lock later sees what
// the earlier committed, and its own movement. A movement that lowers
// available holds the merchant's lock as well (its check); one that only
// adds to it (a refund's decision) need not, and takes this lock alone,
// so it never waits for the merchant's other money operations.
func (s *Service) autoFreeze(ctx context.Context, tx Tx, merchantID string, test bool) error {
	if err := tx.FreezeLock(ctx, merchantID, test); err != nil {
		return err
	}
	available, err := tx.LedgerBucketByCurrency(ctx, merchantID, test, ledger.Available)
	if err != nil {
		return err
	}
	negative := false
	for _, v := range available {
		negative = negative || v < 0
	}
	f, err := tx.FreezeGet(ctx, merchantID, test)
	if err != nil {
		return err
	}
	switch {
	case negative && !f.Frozen:
		return s.setFreeze(ctx, tx, merchantID, test, true, FreezeNegativeBalance)
	case !negative && f.Frozen && f.Reason == FreezeNegativeBalance:
		return s.setFreeze(ctx, tx, merchantID, test, false, "")
	}
	return nil
}

// ChangeFreeze is the operator's manual freeze or unfreeze of a merchant's
// payouts in a contour.
func (s *Service) ChangeFreeze(ctx context.Context, merchantID string, test, frozen bool, reason FreezeReason) (*SettlementStatus, error) {
	if frozen && !reason.Valid() {
		return nil, Invalid("reason", "reason must be one of %v", FreezeReasonAll())
	}
	var st SettlementStatus
	err := s.store.Tx(ctx, func(tx Tx) error {
		m, err := tx.MerchantGetForUpdate(ctx, merchantID)
		if err != nil {
			return notFoundAs(err, "merchant")
		}
		if err := s.setFreeze(ctx, tx, merchantID, test, frozen, reason); err != nil {
			return err
		}
		f, err := tx.FreezeGet(ctx, merchantID, test)
		if err != nil {
			return err
		}
		st = f.Status(m)
		return nil
	})
	return &st, err
}
