package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

func testIdempotency(t *testing.T, open func(t *testing.T) payd.Store) {
	get := func(t *testing.T, s payd.Store, r *payd.IdempotencyRecord) (*payd.IdempotencyRecord, error) {
		var got *payd.IdempotencyRecord
		err := s.View(t.Context(), func(tx payd.Tx) (err error) {
			got, err = tx.IdempotencyGet(t.Context(), r.ShopID, r.Mode, r.Key)
			return err
		})
		return got, err
	}
	put := func(t *testing.T, s payd.Store, r *payd.IdempotencyRecord) error {
		return s.Tx(t.Context(), func(tx payd.Tx) error { return tx.IdempotencyPut(t.Context(), r) })
	}
	lock := func(ctx context.Context, tx payd.Tx, shopID string, mode payd.Mode, key string) (bool, error) {
		_, locked, err := tx.IdempotencyLockGet(ctx, shopID, mode, key)
		return locked, err
	}
	record := func(shopID string, mode payd.Mode, key string, created time.Time) *payd.IdempotencyRecord {
		return &payd.IdempotencyRecord{ShopID: shopID, Mode: mode, Key: key,
			RequestHash: payd.RequestHash("POST", "/payments", []byte(`{"amount":1}`)), Outcome: payd.OutcomeCreated,
			Body: []byte(`{"id":"pay_1"}`), CreatedAt: created, ExpiresAt: created.Add(payd.IdempotencyTTL)}
	}

	t.Run("PutGet", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		now := ts(time.Now())
		shopID := newID(payd.PrefixShop, now)

		r := record(shopID, payd.ModeLive, "order-42/ключ", now)
		_, err := get(t, s, r)
		wantErr(t, "IdempotencyGet of a missing key", err, payd.ErrNoRows)

		// The body is the response as sent and the hash raw SHA-256: both
		// must come back byte for byte, NUL and invalid UTF-8 included.
		r.Body = []byte("{\"a\":\"\x00\xff\xfe\"}\r\n")
		r.RequestHash[0], r.RequestHash[1] = 0x00, 0xff
		if err := put(t, s, r); err != nil {
			t.Fatalf("IdempotencyPut: %v", err)
		}
		got, err := get(t, s, r)
		if err != nil {
			t.Fatalf("IdempotencyGet: %v", err)
		}
		wantDiff(t, "IdempotencyGet", r, got)

		// The same key in the other mode, or of another shop, is another
		// record.
		for _, o := range []*payd.IdempotencyRecord{
			record(shopID, payd.ModeTest, r.Key, now),
			record(newID(payd.PrefixShop, now), payd.ModeLive, r.Key, now),
		} {
			if _, err := get(t, s, o); !errors.Is(err, payd.ErrNoRows) {
				t.Errorf("IdempotencyGet(%s, %s): error %v before any put, want ErrNoRows", o.ShopID, o.Mode, err)
			}
			o.Outcome, o.Body = payd.OutcomeNoContent, nil
			if err := put(t, s, o); err != nil {
				t.Fatalf("IdempotencyPut of the same key in another scope: %v", err)
			}
			got, err := get(t, s, o)
			if err != nil {
				t.Fatalf("IdempotencyGet: %v", err)
			}
			if len(got.Body) != 0 {
				t.Errorf("IdempotencyGet of a record without body: body %q, want empty", got.Body)
			}
			got.Body = nil
			wantDiff(t, "IdempotencyGet of another scope", o, got)
		}
		got, err = get(t, s, r)
		if err != nil {
			t.Fatalf("IdempotencyGet: %v", err)
		}
		wantDiff(t, "IdempotencyGet after puts in other scopes", r, got)
	})

	t.Run("PutConflictReplace", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		now := ts(time.Now())
		shopID := newID(payd.PrefixShop, now)
		old := record(shopID, payd.ModeTest, "k", now)
		if err := put(t, s, old); err != nil {
			t.Fatalf("IdempotencyPut: %v", err)
		}

		// One microsecond before its expiry the old record is live.
		live := record(shopID, payd.ModeTest, "k", old.ExpiresAt.Add(-time.Microsecond))
		live.Outcome = payd.OutcomeOK
		wantErr(t, "IdempotencyPut over a live record", put(t, s, live), payd.ErrConflict)
		// The refusal leaves the transaction usable (on PostgreSQL a failed
		// statement would abort it), so the caller can still roll back on
		// its own terms or read on.
		err := s.Tx(t.Context(), func(tx payd.Tx) error {
			if err := tx.IdempotencyPut(t.Context(), live); !errors.Is(err, payd.ErrConflict) {
				return fmt.Errorf("IdempotencyPut over a live record inside a Tx: %v, want ErrConflict", err)
			}
			_, err := tx.IdempotencyGet(t.Context(), old.ShopID, old.Mode, old.Key)
			return err
		})
		if err != nil {
			t.Fatalf("read after a refused put in the same Tx: %v", err)
		}
		got, err := get(t, s, old)
		if err != nil {
			t.Fatalf("IdempotencyGet: %v", err)
		}
		wantDiff(t, "IdempotencyGet after the refused put", old, got)

		// From its ExpiresAt on it is expired and is replaced.
		repl := record(shopID, payd.ModeTest, "k", old.ExpiresAt)
		repl.Outcome, repl.Body = payd.OutcomeOK, []byte(`{"replaced":true}`)
		repl.RequestHash = payd.RequestHash("POST", "/refunds", nil)
		if err := put(t, s, repl); err != nil {
			t.Fatalf("IdempotencyPut over an expired record: %v", err)
		}
		got, err = get(t, s, old)
		if err != nil {
			t.Fatalf("IdempotencyGet: %v", err)
		}
		wantDiff(t, "IdempotencyGet after replacing the expired record", repl, got)
	})

	t.Run("DeleteExpired", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		now := ts(time.Now())
		shopA, shopB := newID(payd.PrefixShop, now), newID(payd.PrefixShop, now)
		withExpiry := func(shopID string, mode payd.Mode, key string, expires time.Time) *payd.IdempotencyRecord {
			r := record(shopID, mode, key, expires.Add(-payd.IdempotencyTTL))
			r.ExpiresAt = expires
			return r
		}
		expired := []*payd.IdempotencyRecord{
			withExpiry(shopA, payd.ModeLive, "old", now.Add(-time.Hour)),
			withExpiry(shopB, payd.ModeTest, "old", now.Add(-48*time.Hour)),
			// Expired at its ExpiresAt, as IdempotencyPut treats it.
			withExpiry(shopA, payd.ModeTest, "edge", now),
		}
		live := []*payd.IdempotencyRecord{
			withExpiry(shopA, payd.ModeLive, "new", now.Add(time.Microsecond)),
			withExpiry(shopB, payd.ModeLive, "new", now.Add(time.Hour)),
		}
		for _, r := range append(append([]*payd.IdempotencyRecord{}, expired...), live...) {
			if err := put(t, s, r); err != nil {
				t.Fatalf("IdempotencyPut: %v", err)
			}
		}
		// A batch of one takes the record expired longest ago
		// (expired[1]) and leaves the others for the next batches.
		var n int64
		mustTx(t, s, func(tx payd.Tx) (err error) { n, err = tx.IdempotencyDeleteExpired(t.Context(), now, 1); return err })
		if _, err := get(t, s, expired[1]); n != 1 || !errors.Is(err, payd.ErrNoRows) {
			t.Errorf("IdempotencyDeleteExpired of a batch of 1 = %d (the oldest record read: %v), want 1 and the oldest gone", n, err)
		}
		mustTx(t, s, func(tx payd.Tx) (err error) { n, err = tx.IdempotencyDeleteExpired(t.Context(), now, 100); return err })
		if n != int64(len(expired))-1 {
			t.Errorf("IdempotencyDeleteExpired = %d, want %d", n, len(expired)-1)
		}
		for _, r := range expired {
			_, err := get(t, s, r)
			wantErr(t, "IdempotencyGet of a deleted expired record", err, payd.ErrNoRows)
		}
		for _, r := range live {
			got, err := get(t, s, r)
			if err != nil {
				t.Errorf("IdempotencyGet of a live record after IdempotencyDeleteExpired: %v", err)
				continue
			}
			wantDiff(t, "live record after IdempotencyDeleteExpired", r, got)
		}
		mustTx(t, s, func(tx payd.Tx) (err error) { n, err = tx.IdempotencyDeleteExpired(t.Context(), now, 100); return err })
		if n != 0 {
			t.Errorf("second IdempotencyDeleteExpired = %d, want 0", n)
		}
	})

	t.Run("LockGet", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		now := ts(time.Now())
		r := record(newID(payd.PrefixShop, now), payd.ModeLive, "k", now)
		var got *payd.IdempotencyRecord
		var locked bool
		mustTx(t, s, func(tx payd.Tx) (err error) {
			got, locked, err = tx.IdempotencyLockGet(ctx, r.ShopID, r.Mode, r.Key)
			return err
		})
		if !locked || got != nil {
			t.Errorf("IdempotencyLockGet of a new key = %v, locked %v; want nil, true", got, locked)
		}
		if err := put(t, s, r); err != nil {
			t.Fatalf("IdempotencyPut: %v", err)
		}
		mustTx(t, s, func(tx payd.Tx) (err error) {
			got, locked, err = tx.IdempotencyLockGet(ctx, r.ShopID, r.Mode, r.Key)
			return err
		})
		if !locked {
			t.Fatalf("IdempotencyLockGet of a recorded free key: not locked")
		}
		wantDiff(t, "IdempotencyLockGet", r, got)
		// Another mode of the same key is another record.
		mustTx(t, s, func(tx payd.Tx) (err error) {
			got, locked, err = tx.IdempotencyLockGet(ctx, r.ShopID, payd.ModeTest, r.Key)
			return err
		})
		if !locked || got != nil {
			t.Errorf("IdempotencyLockGet in the other mode = %v, locked %v; want nil, true", got, locked)
		}
	})

	t.Run("Lock", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		shopID := newID(payd.PrefixShop, time.Now())
		var ok bool
		mustTx(t, s, func(tx payd.Tx) (err error) {
			ok, err = lock(ctx, tx, shopID, payd.ModeLive, "k")
			return err
		})
		if !ok {
			t.Errorf("IdempotencyLock of a free key = false, want true")
		}
		// The lock ends with its transaction.
		mustTx(t, s, func(tx payd.Tx) (err error) {
			ok, err = lock(ctx, tx, shopID, payd.ModeLive, "k")
			return err
		})
		if !ok {
			t.Errorf("IdempotencyLock after the holding transaction ended = false, want true")
		}
	})

	// A record another transaction commits after LockGet's read (its
	// snapshot precedes the lock on PostgreSQL) is refused, whether the
	// store reports it at IdempotencyPut or at the commit, and nothing of
	// the refused transaction is kept.
	t.Run("RecordCommittedAfterRead", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		if d := dialect(s); d != "postgres" {
			// SQLite runs one transaction at a time: no record can
			// appear between the read and the write.
			t.Skipf("concurrent transactions need PostgreSQL; dialect %q", d)
		}
		ctx := t.Context()
		now := ts(time.Now())
		shopID := newID(payd.PrefixShop, now)
		theirs := record(shopID, payd.ModeLive, "k", now)
		ours := record(shopID, payd.ModeLive, "k", now)
		ours.Body = []byte(`{"id":"pay_2"}`)
		other := record(shopID, payd.ModeLive, "k-other", now)
		err := s.Tx(ctx, func(tx payd.Tx) error {
			rec, locked, err := tx.IdempotencyLockGet(ctx, shopID, payd.ModeLive, "k")
			if err != nil || !locked || rec != nil {
				return fmt.Errorf("IdempotencyLockGet of a new key = %v, %v, %v", rec, locked, err)
			}
			if err := put(t, s, theirs); err != nil {
				return fmt.Errorf("the other transaction's IdempotencyPut: %w", err)
			}
			if err := tx.IdempotencyPut(ctx, other); err != nil {
				return fmt.Errorf("IdempotencyPut of another key: %w", err)
			}
			return tx.IdempotencyPut(ctx, ours)
		})
		wantErr(t, "a transaction recording a key committed after its read", err, payd.ErrConflict)
		got, err := get(t, s, theirs)
		if err != nil {
			t.Fatalf("IdempotencyGet: %v", err)
		}
		wantDiff(t, "the record committed first", theirs, got)
		_, err = get(t, s, other)
		wantErr(t, "IdempotencyGet of a key written by the refused transaction", err, payd.ErrNoRows)
	})

	t.Run("LockConcurrent", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		if d := dialect(s); d != "postgres" {
			// SQLite runs one transaction at a time, so a second one can
			// never meet the lock held.
			t.Skipf("concurrent transactions need PostgreSQL; dialect %q", d)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		shopID := newID(payd.PrefixShop, time.Now())

		// Transaction A takes the lock and holds it until release closes.
		locked := make(chan error, 1)
		release := make(chan struct{})
		done := make(chan error, 1)
		exited := make(chan struct{})
		var once sync.Once
		stop := func() { once.Do(func() { close(release) }) }
		// On an early failure, end A before the store closes.
		t.Cleanup(func() { stop(); <-exited })
		go func() {
			defer close(exited)
			done <- s.Tx(ctx, func(tx payd.Tx) error {
				ok, err := lock(ctx, tx, shopID, payd.ModeLive, "k")
				if err == nil && !ok {
					err = errors.New("lock of a free key refused")
				}
				locked <- err
				if err != nil {
					return err
				}
				select {
				case <-release:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
		}()
		select {
		case err := <-locked:
			if err != nil {
				t.Fatalf("transaction A: IdempotencyLock: %v", err)
			}
		case <-ctx.Done():
			t.Fatalf("transaction A did not take the lock: %v", ctx.Err())
		}

		// Transaction B, while A holds "k".
		var same, otherKey, otherMode, otherShop bool
		err := s.Tx(ctx, func(tx payd.Tx) (err error) {
			if same, err = lock(ctx, tx, shopID, payd.ModeLive, "k"); err != nil {
				return err
			}
			if otherKey, err = lock(ctx, tx, shopID, payd.ModeLive, "k2"); err != nil {
				return err
			}
			if otherMode, err = lock(ctx, tx, shopID, payd.ModeTest, "k"); err != nil {
				return err
			}
			otherShop, err = lock(ctx, tx, newID(payd.PrefixShop, time.Now()), payd.ModeLive, "k")
			return err
		})
		stop()
		if err != nil {
			t.Fatalf("transaction B: %v", err)
		}
		if err := <-done; err != nil {
			t.Fatalf("transaction A: %v", err)
		}
		if same {
			t.Errorf("IdempotencyLock of a key another transaction holds = true, want false")
		}
		if !otherKey || !otherMode || !otherShop {
			t.Errorf("IdempotencyLock beside a held key: other key %v, other mode %v, other shop %v; want all true",
				otherKey, otherMode, otherShop)
		}

		// A has committed, so the key is free again.
		var again bool
		mustTx(t, s, func(tx payd.Tx) (err error) {
			again, err = lock(ctx, tx, shopID, payd.ModeLive, "k")
			return err
		})
		if !again {
			t.Errorf("IdempotencyLock after the holder committed = false, want true")
		}
	})
}
