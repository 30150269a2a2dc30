package payd

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

// raceStore plays the window idempotent allows for on PostgreSQL: the
// locking read finds no record, yet another instance has committed one for
// the key, which the transaction then meets (a refused IdempotencyPut or a
// rule its effect breaks) and which a fresh read finds.
type raceStore struct {
	Store
	committed *IdempotencyRecord // what a fresh read finds; nil: nothing
	putErr    error
	// commitErr is what the commit reports after fn succeeded: a store
	// may send the last writes with the COMMIT (Tx.IdempotencyPut,
	// Tx.PaymentInsertAtCommit).
	commitErr error
}

type raceTx struct {
	Tx
	s *raceStore
}

func (s *raceStore) Tx(ctx context.Context, fn func(Tx) error) error {
	if err := fn(raceTx{s: s}); err != nil {
		return err
	}
	return s.commitErr
}

func (s *raceStore) View(ctx context.Context, fn func(Tx) error) error { return fn(raceTx{s: s}) }

// IdempotencyLockGet finds no record, and no reset of the sandbox under
// way.
func (t raceTx) IdempotencyLockGet(context.Context, string, Mode, string) (*IdempotencyRecord, bool, error) {
	return nil, true, nil
}

func (t raceTx) IdempotencyPut(context.Context, *IdempotencyRecord) error {
	return t.s.putErr
}

func (t raceTx) IdempotencyGet(context.Context, string, Mode, string) (*IdempotencyRecord, error) {
	if t.s.committed == nil {
		return nil, ErrNoRows
	}
	return t.s.committed, nil
}

// idempotentFixture is a principal and its request under a key, and the
// record of the key's first answer, live for an hour on the clock.
func idempotentFixture() (*TestClock, *Principal, Idempotency, *IdempotencyRecord) {
	clock := &TestClock{}
	first := &IdempotencyRecord{ShopID: "shp_1", Mode: ModeTest, Key: "key-1", RequestHash: []byte{1},
		Outcome: OutcomeCreated, Body: []byte(`{"id":"pay_1"}`), ExpiresAt: clock.Now().Add(time.Hour)}
	return clock, &Principal{Shop: &Shop{ID: "shp_1"}, Mode: ModeTest}, Idempotency{Key: "key-1", Hash: []byte{1}}, first
}

func TestIdempotentMeetsARecordCommittedMeanwhile(t *testing.T) {
	t.Parallel()
	clock, p, idem, first := idempotentFixture()
	other := *first
	other.RequestHash = []byte{2}
	expired := *first
	expired.ExpiresAt = clock.Now().Add(-time.Second)
	dup := duplicateOrder("pay_1")
	created := func(Tx) (Outcome, any, error) { return OutcomeCreated, map[string]string{"id": "pay_2"}, nil }
	failing := func(err error) func(Tx) (Outcome, any, error) {
		return func(Tx) (Outcome, any, error) { return 0, nil, err }
	}

	cases := []struct {
		name      string
		committed *IdempotencyRecord
		putErr    error
		commitErr error
		fn        func(Tx) (Outcome, any, error)
		wantCode  ErrorCode // "" when a replay of first is wanted
		wantErr   error
	}{
		{"ErrKeyTakenReplays", first, ErrConflict, nil, created, "", nil},
		{"ErrKeyTakenByAnotherRequest", &other, ErrConflict, nil, created, CodeIdempotencyConflict, nil},
		{"ErrKeyTakenUnseen", nil, ErrConflict, nil, created, CodeIdempotencyInProgress, nil},
		{"ErrKeyTakenAtCommitReplays", first, nil, ErrConflict, created, "", nil},
		{"ErrKeyTakenAtCommitUnseen", nil, nil, ErrConflict, created, CodeIdempotencyInProgress, nil},
		{"RuleBrokenByTheFirstEffectReplays", first, nil, nil, failing(dup), "", nil},
		{"OrderIDTakenAtCommitByTheFirstEffectReplays", first, nil, ErrOrderIDTaken, created, "", nil},
		{"OrderIDTakenAtCommitOfItsOwnKept", nil, nil, ErrOrderIDTaken, created, "", ErrOrderIDTaken},
		{"ErrDuplicateOrderIDOfItsOwn", nil, nil, nil, failing(dup), CodeDuplicateOrderID, nil},
		{"ErrDuplicateOrderIDBesideAnExpiredRecord", &expired, nil, nil, failing(dup), CodeDuplicateOrderID, nil},
		{"InternalErrorKept", first, nil, nil, failing(context.DeadlineExceeded), "", context.DeadlineExceeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := &raceStore{committed: tc.committed, putErr: tc.putErr, commitErr: tc.commitErr}
			s := NewService(Config{Store: st, Clock: clock})
			resp, err := s.idempotent(t.Context(), "test", p, idem, tc.fn)
			switch {
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
			case tc.wantCode != "":
				if ErrorCodeOf(err) != tc.wantCode {
					t.Fatalf("err = %v, want %s", err, tc.wantCode)
				}
			default:
				if err != nil || !resp.Replayed || resp.Outcome != OutcomeOK || !bytes.Equal(resp.Body, first.Body) {
					t.Fatalf("got %+v, %v; want the replay of the committed record", resp, err)
				}
			}
		})
	}
}

// claimStore is a store that claims keys: the claims of its first refuse
// transactions do not hold (their commit says so), and IdempotencyLockGet
// then finds rec.
type claimStore struct {
	Store
	refuse                int
	rec                   *IdempotencyRecord
	txs, claims, lockGets int
}

type claimTx struct {
	Tx
	s       *claimStore
	claimed bool
}

func (s *claimStore) Tx(ctx context.Context, fn func(Tx) error) error {
	s.txs++
	t := &claimTx{s: s}
	if err := fn(t); err != nil {
		return err
	}
	if t.claimed && s.refuse > 0 {
		s.refuse--
		return ErrClaimRefused
	}
	return nil
}

func (t *claimTx) IdempotencyClaim(context.Context, string, Mode, string) (bool, error) {
	t.s.claims++
	t.claimed = true
	return true, nil
}

func (t *claimTx) IdempotencyLockGet(context.Context, string, Mode, string) (*IdempotencyRecord, bool, error) {
	t.s.lockGets++
	return t.s.rec, true, nil
}

func (t *claimTx) IdempotencyPut(context.Context, *IdempotencyRecord) error { return nil }

// TestIdempotentClaimed: a claimed effect runs in one transaction when its
// claim holds; when it does not, the effect is run again behind the key's
// lock, which finds the record to replay or the key free. An effect that
// is not claimed never asks for a claim.
func TestIdempotentClaimed(t *testing.T) {
	t.Parallel()
	clock, p, idem, first := idempotentFixture()
	cases := []struct {
		name                                 string
		claim                                bool
		refuse                               int
		rec                                  *IdempotencyRecord
		wantReplay                           bool
		wantTxs, wantClaims, wantLocks, runs int
	}{
		{"HeldOneTransaction", true, 0, nil, false, 1, 1, 0, 1},
		{"RefusedThenReplayed", true, 1, first, true, 2, 1, 1, 1},
		{"RefusedThenFree", true, 1, nil, false, 2, 1, 1, 2},
		{"NotClaimed", false, 0, nil, false, 1, 0, 1, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := &claimStore{refuse: tc.refuse, rec: tc.rec}
			s := NewService(Config{Store: st, Clock: clock})
			runs := 0
			fn := func(Tx) (Outcome, any, error) { runs++; return OutcomeCreated, map[string]string{"id": "pay_2"}, nil }
			run := s.idempotent
			if tc.claim {
				run = s.claimed
			}
			resp, err := run(t.Context(), "test", p, idem, fn)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Replayed != tc.wantReplay || (tc.wantReplay && !bytes.Equal(resp.Body, first.Body)) ||
				(!tc.wantReplay && (resp.Outcome != OutcomeCreated || string(resp.Body) != `{"id":"pay_2"}`)) {
				t.Fatalf("got %+v (%s), replay %v wanted", resp, resp.Body, tc.wantReplay)
			}
			if st.txs != tc.wantTxs || st.claims != tc.wantClaims || st.lockGets != tc.wantLocks || runs != tc.runs {
				t.Fatalf("transactions %d, claims %d, locks %d, effects run %d; want %d, %d, %d, %d",
					st.txs, st.claims, st.lockGets, runs, tc.wantTxs, tc.wantClaims, tc.wantLocks, tc.runs)
			}
		})
	}
}
