package sqlstore_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestIdempotencyStatusColumn: the status column keeps the HTTP status of
// the first answer, as earlier builds wrote it, so records stored before
// outcomes were named read as the same outcomes and records written now
// read the same in an earlier build.
func TestIdempotencyStatusColumn(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		ctx := t.Context()
		s := openUnmigrated(t, b)
		if _, err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC().Truncate(time.Microsecond)
		ids := payd.NewIDGen()
		shopID := ids.NewFor(payd.PrefixShop, now, ids.New(payd.PrefixMerchant, now))
		get := func(key string) *payd.IdempotencyRecord {
			t.Helper()
			var rec *payd.IdempotencyRecord
			err := s.Tx(ctx, func(tx payd.Tx) error {
				locked, ok, err := tx.IdempotencyLockGet(ctx, shopID, payd.ModeTest, key)
				if err != nil || !ok || locked == nil {
					t.Fatalf("IdempotencyLockGet(%s): %v, %v, %v", key, locked, ok, err)
				}
				if rec, err = tx.IdempotencyGet(ctx, shopID, payd.ModeTest, key); err != nil {
					return err
				}
				if locked.Outcome != rec.Outcome {
					t.Errorf("%s: IdempotencyLockGet reads outcome %d, IdempotencyGet %d", key, locked.Outcome, rec.Outcome)
				}
				return nil
			})
			if err != nil {
				t.Fatalf("IdempotencyGet(%s): %v", key, err)
			}
			return rec
		}

		// Rows as an earlier build stored them, without a body: since
		// migration 0029 a body is sealed, and one in clear does not read.
		for status, want := range map[int]payd.Outcome{200: payd.OutcomeOK, 201: payd.OutcomeCreated, 202: payd.OutcomeAccepted} {
			key := "earlier-" + strconv.Itoa(status)
			if err := s.Exec(ctx, `INSERT INTO idempotency_keys (shop_id, mode, idem_key, request_hash, status, body, created_at, expires_at, merchant_key)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, shopID, payd.ModeTest, key, []byte{1}, status, nil,
				now.UnixMicro(), now.Add(time.Hour).UnixMicro(), int32(payd.KeyOf(shopID))); err != nil {
				t.Fatal(err)
			}
			if got := get(key).Outcome; got != want {
				t.Errorf("a row with status %d reads as outcome %d, want %d", status, got, want)
			}
		}

		// Rows written now hold the status an earlier build would have.
		for o, status := range map[payd.Outcome]int{payd.OutcomeOK: 200, payd.OutcomeCreated: 201,
			payd.OutcomeAccepted: 202, payd.OutcomeNoContent: 204} {
			key, moved := "now-"+strconv.Itoa(int(o)), "status-"+strconv.Itoa(status)
			err := s.Tx(ctx, func(tx payd.Tx) error {
				return tx.IdempotencyPut(ctx, &payd.IdempotencyRecord{ShopID: shopID, Mode: payd.ModeTest, Key: key,
					RequestHash: []byte{1}, Outcome: o, CreatedAt: now, ExpiresAt: now.Add(time.Hour)})
			})
			if err != nil {
				t.Fatal(err)
			}
			// The row moves to the key named after its status only if
			// the column holds that status.
			if err := s.Exec(ctx, `UPDATE idempotency_keys SET idem_key = $1 WHERE shop_id = $2 AND idem_key = $3 AND status = $4`,
				moved, shopID, key, status); err != nil {
				t.Fatal(err)
			}
			var rec *payd.IdempotencyRecord
			err = s.View(ctx, func(tx payd.Tx) (err error) {
				rec, err = tx.IdempotencyGet(ctx, shopID, payd.ModeTest, moved)
				return err
			})
			if err != nil {
				t.Fatalf("outcome %d: no row with status %d: %v", o, status, err)
			}
			if rec.Outcome != o {
				t.Errorf("outcome %d stored as status %d reads back as %d", o, status, rec.Outcome)
			}
		}
	})
}
