package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

// testIdempotencyClaim checks Tx.IdempotencyClaim: a store that does not
// claim says so and leaves the transaction to IdempotencyLockGet; a store
// that claims commits the effect of a free key, and refuses, keeping
// nothing, a key that is recorded (live or expired), held by another
// transaction, or a test key of a shop whose sandbox is being reset —
// whether the refusal comes with the first statement or with the commit,
// and whatever the transaction's function made of it.
func testIdempotencyClaim(t *testing.T, open func(t *testing.T) payd.Store) {
	s := open(t)
	ctx := t.Context()
	now := ts(time.Now())
	shop := addShop(t, s, addMerchant(t, s, now).ID, now)
	record := func(mode payd.Mode, key string, created time.Time) *payd.IdempotencyRecord {
		return &payd.IdempotencyRecord{ShopID: shop.ID, Mode: mode, Key: key, RequestHash: []byte{1},
			Outcome: payd.OutcomeCreated, Body: []byte(`{"id":"pay_1"}`), CreatedAt: created, ExpiresAt: created.Add(payd.IdempotencyTTL)}
	}
	// body is the stored body of r's key, nil when there is no record.
	body := func(r *payd.IdempotencyRecord) []byte {
		var got *payd.IdempotencyRecord
		err := s.View(ctx, func(tx payd.Tx) (err error) {
			got, err = tx.IdempotencyGet(ctx, r.ShopID, r.Mode, r.Key)
			return err
		})
		if errors.Is(err, payd.ErrNoRows) {
			return nil
		}
		if err != nil {
			t.Fatalf("IdempotencyGet: %v", err)
		}
		return got.Body
	}
	stored := func(r *payd.IdempotencyRecord) bool { return body(r) != nil }
	put := func(r *payd.IdempotencyRecord) {
		if stored(r) {
			return // the case's second run
		}
		mustTx(t, s, func(tx payd.Tx) error { return tx.IdempotencyPut(ctx, r) })
	}
	// claim runs a transaction that claims r's key and then, with a
	// first statement when withStatement is set (an unrelated record,
	// written at once, whose error the function drops), records r at the
	// commit.
	claim := func(r *payd.IdempotencyRecord, withStatement bool) (claimed bool, err error) {
		err = s.Tx(ctx, func(tx payd.Tx) error {
			var err error
			if claimed, err = tx.IdempotencyClaim(ctx, r.ShopID, r.Mode, r.Key); err != nil || !claimed {
				return err
			}
			if withStatement {
				_ = tx.IdempotencyPut(ctx, record(r.Mode, r.Key+"-beside", now))
			}
			return tx.IdempotencyPut(ctx, r)
		})
		return claimed, err
	}

	claimed, err := claim(record(payd.ModeLive, "probe", now), false)
	if err != nil {
		t.Fatalf("a claim of a free key: %v", err)
	}
	if !claimed {
		// SQLite: no claim, and the transaction goes on with the lock.
		err := s.Tx(ctx, func(tx payd.Tx) error {
			if claimed, err := tx.IdempotencyClaim(ctx, shop.ID, payd.ModeLive, "unclaimed"); err != nil || claimed {
				return errors.Join(err, errors.New("a store that does not claim claimed"))
			}
			rec, locked, err := tx.IdempotencyLockGet(ctx, shop.ID, payd.ModeLive, "unclaimed")
			if err == nil && (!locked || rec != nil) {
				err = errors.New("IdempotencyLockGet after an unclaimed key did not lock a free key")
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if stored(record(payd.ModeLive, "probe", now)) {
			t.Fatal("a store that does not claim kept the record of a transaction that stopped at the claim")
		}
		return
	}
	if !stored(record(payd.ModeLive, "probe", now)) {
		t.Fatal("the record of a claimed free key was not kept")
	}

	type refusal struct {
		name  string
		key   *payd.IdempotencyRecord
		setup func() (undo func())
	}
	live, expired := record(payd.ModeLive, "live", now), record(payd.ModeLive, "expired", now.Add(-48*time.Hour))
	held := record(payd.ModeLive, "held", now)
	resetting := record(payd.ModeTest, "resetting", now)
	cases := []refusal{
		{"recorded", live, func() func() { put(live); return func() {} }},
		{"recorded and expired", expired, func() func() { put(expired); return func() {} }},
		{"held by another transaction", held, func() func() {
			locked, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
			go func() {
				done <- s.Tx(ctx, func(tx payd.Tx) error {
					_, _, err := tx.IdempotencyLockGet(ctx, held.ShopID, held.Mode, held.Key)
					close(locked)
					<-release
					return err
				})
			}()
			<-locked
			return func() {
				close(release)
				if err := <-done; err != nil {
					t.Fatalf("the transaction holding the key: %v", err)
				}
			}
		}},
		{"a test key while the sandbox is reset", resetting, func() func() {
			mark := markReset(t, s, shop.ID, now)
			return func() { clearReset(t, s, shop.ID, mark) }
		}},
	}
	for _, c := range cases {
		for _, withStatement := range []bool{false, true} {
			undo := c.setup()
			ours := *c.key
			ours.Body = []byte(`{"id":"pay_2"}`)
			_, err := claim(&ours, withStatement)
			undo()
			wantErr(t, c.name+" (refused at the "+map[bool]string{false: "commit", true: "first statement"}[withStatement]+")",
				err, payd.ErrClaimRefused)
			if stored(record(c.key.Mode, c.key.Key+"-beside", now)) {
				t.Errorf("%s: a write of the refused transaction was kept", c.name)
			}
			if string(body(c.key)) == string(ours.Body) {
				t.Errorf("%s: the refused transaction's record was kept", c.name)
			}
		}
	}
	// A function that turns the refusal into an error of its own still
	// leaves Store.Tx reporting the refusal.
	errOwn := errors.New("the function's own error")
	err = s.Tx(ctx, func(tx payd.Tx) error {
		if _, err := tx.IdempotencyClaim(ctx, live.ShopID, live.Mode, live.Key); err != nil {
			return err
		}
		if err := tx.IdempotencyPut(ctx, record(live.Mode, "own-error-beside", now)); err != nil {
			return errOwn
		}
		return errors.New("the first statement carried a refused claim and did not fail")
	})
	wantErr(t, "a refused claim the function reported as its own error", err, payd.ErrClaimRefused)
	// Once the reset is over, the claim of the test key holds.
	if claimed, err := claim(resetting, true); err != nil || !claimed {
		t.Fatalf("a claim of a test key after the reset: claimed %v, %v", claimed, err)
	}
	if !stored(resetting) || !stored(record(payd.ModeTest, "resetting-beside", now)) {
		t.Fatal("the claimed transaction's writes after the reset were not kept")
	}
}
