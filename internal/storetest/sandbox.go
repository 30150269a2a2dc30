package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

func newSandboxAttempt(provider, paymentID, reference string, created time.Time) *payd.SandboxAttempt {
	return &payd.SandboxAttempt{ID: newID(payd.PrefixSandboxAttempt, created), Provider: provider, PaymentID: paymentID, Reference: reference,
		Method: "bank_card", Amount: 10_050, Currency: "RUB", MerchantDisplayName: "Ёлка", Description: "Заказ №1",
		Capture: true, Region: payd.RegionRU, Outcome: "succeed", DelaySeconds: 3, State: "created",
		ReturnURL: "https://shop.example/return", Locale: "ru", CreatedAt: created}
}

func testSandboxAttempt(t *testing.T, open func(t *testing.T) payd.Store) {
	t.Run("InsertGetUpdate", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		payID := newID(payd.PrefixPayment, now)
		a := newSandboxAttempt("sandbox", payID, payd.AttemptReference(payID, 0), now)
		// The next candidate of the cascade, at another provider.
		b := newSandboxAttempt("sandbox_backup", payID, payd.AttemptReference(payID, 1), now)
		mustTx(t, s, func(tx payd.Tx) error {
			if err := tx.SandboxAttemptInsert(ctx, a); err != nil {
				return err
			}
			return tx.SandboxAttemptInsert(ctx, b)
		})
		get := func(what string, want *payd.SandboxAttempt, fn func(tx payd.Tx) (*payd.SandboxAttempt, error)) {
			t.Helper()
			wantRead(t, s, what, want, fn)
		}
		get("SandboxAttemptGet", a, func(tx payd.Tx) (*payd.SandboxAttempt, error) { return tx.SandboxAttemptGet(ctx, a.ID) })
		get("SandboxAttemptGetForUpdate", a, func(tx payd.Tx) (*payd.SandboxAttempt, error) {
			return tx.SandboxAttemptGetForUpdate(ctx, a.ID)
		})
		get("SandboxAttemptGetByReference", a, func(tx payd.Tx) (*payd.SandboxAttempt, error) {
			return tx.SandboxAttemptGetByReference(ctx, "sandbox", a.Reference)
		})
		get("SandboxAttemptGetByReference of the other provider", b, func(tx payd.Tx) (*payd.SandboxAttempt, error) {
			return tx.SandboxAttemptGetByReference(ctx, "sandbox_backup", b.Reference)
		})

		// The bank moves its state through lock, change, write.
		mustTx(t, s, func(tx payd.Tx) error {
			locked, err := tx.SandboxAttemptGetForUpdate(ctx, a.ID)
			if err != nil {
				return err
			}
			locked.State, locked.ThreeDSUsed, locked.LastNotification = "authorized", true, []byte(`{"id":"ntf_1"}`)
			a = locked
			return tx.SandboxAttemptUpdate(ctx, locked)
		})
		get("SandboxAttemptGet after SandboxAttemptUpdate", a, func(tx payd.Tx) (*payd.SandboxAttempt, error) {
			return tx.SandboxAttemptGet(ctx, a.ID)
		})
		get("SandboxAttemptGetByReference after SandboxAttemptUpdate", a, func(tx payd.Tx) (*payd.SandboxAttempt, error) {
			return tx.SandboxAttemptGetByReference(ctx, "sandbox", a.Reference)
		})
		get("SandboxAttemptGet of the untouched attempt", b, func(tx payd.Tx) (*payd.SandboxAttempt, error) {
			return tx.SandboxAttemptGet(ctx, b.ID)
		})

		// The bank answers an unknown attempt with status unknown, from
		// ErrNoRows.
		for name, fn := range map[string]func(tx payd.Tx) error{
			"SandboxAttemptGet of a missing id": func(tx payd.Tx) error {
				_, err := tx.SandboxAttemptGet(ctx, newID(payd.PrefixSandboxAttempt, now))
				return err
			},
			"SandboxAttemptGetForUpdate of a missing id": func(tx payd.Tx) error {
				_, err := tx.SandboxAttemptGetForUpdate(ctx, newID(payd.PrefixSandboxAttempt, now))
				return err
			},
			"SandboxAttemptGetByReference of another provider's reference": func(tx payd.Tx) error {
				_, err := tx.SandboxAttemptGetByReference(ctx, "sandbox", b.Reference)
				return err
			},
			"SandboxAttemptGetByReference of an unknown reference": func(tx payd.Tx) error {
				_, err := tx.SandboxAttemptGetByReference(ctx, "sandbox", payID+"_2")
				return err
			},
			"SandboxAttemptUpdate of a missing attempt": func(tx payd.Tx) error {
				return tx.SandboxAttemptUpdate(ctx, newSandboxAttempt("sandbox", payID, payID+"_3", now))
			},
		} {
			wantErr(t, name, s.Tx(ctx, fn), payd.ErrNoRows)
		}
		dup := newSandboxAttempt("sandbox", payID, payID+"_4", now)
		dup.ID = a.ID
		wantErr(t, "SandboxAttemptInsert of a taken id", s.Tx(ctx, func(tx payd.Tx) error {
			return tx.SandboxAttemptInsert(ctx, dup)
		}), payd.ErrConflict)
	})

	t.Run("GetForUpdateLocks", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		now := ts(time.Now())
		a := newSandboxAttempt("sandbox", newID(payd.PrefixPayment, now), "ref", now)
		mustTx(t, s, func(tx payd.Tx) error { return tx.SandboxAttemptInsert(t.Context(), a) })
		wantLocks(t, s, func(ctx context.Context, tx payd.Tx) error {
			_, err := tx.SandboxAttemptGetForUpdate(ctx, a.ID)
			return err
		})
	})
}
