package payd

import (
	"context"
	"sync"
	"time"
)

// resealBatch is how many rows one transaction of ResealSecrets walks.
const resealBatch = 500

// resealState is where this instance's resealing stands between runs: the
// cursor a run stopped at, and the rows changed since its pass began.
type resealState struct {
	mu      sync.Mutex
	cursor  string
	changed int64
	// unconfirmed counts rows this instance resealed in earlier passes,
	// until a whole pass finds none left to reseal.
	unconfirmed int64
}

// ResealSecrets seals again, under the sealing key of the store's
// keyring, every secret sealed under another of its keys: the second half
// of a rotation of the key-encryption key (docs/security.md, "What is
// stored how"). It walks every row that holds a sealed value in batches
// of resealBatch, each its own short transaction, so the service keeps
// running; a periodic job runs it and, at its budget, it stops with
// ErrWorkLeft and the next run goes on from the same row. With a single
// key it has nothing to do. A pass that changed rows does not prove the
// others can go: an instance not yet promoted may still be sealing under
// the old key behind it. So the line saying they may be removed comes
// from the next pass, walked whole from the first row, that found nothing
// to reseal. It returns the rows changed by this run.
func (s *Service) ResealSecrets(ctx context.Context) (int64, error) {
	st := &s.reseal
	st.mu.Lock()
	defer st.mu.Unlock()
	started := time.Now()
	var total int64
	for {
		var next string
		var n int
		err := s.store.Tx(ctx, func(tx Tx) (err error) {
			next, n, err = tx.SecretsReseal(ctx, st.cursor, resealBatch)
			return err
		})
		if err != nil {
			return total, withOp("reseal secrets", err)
		}
		total += int64(n)
		st.changed += int64(n)
		st.cursor = next
		if next == "" {
			switch {
			case st.changed > 0:
				st.unconfirmed += st.changed
				s.log.Info("secrets resealed under the first key of the keyring; a pass that finds none left will say when the other keys may be removed",
					"rows", st.changed)
			case st.unconfirmed > 0:
				s.log.Info("secrets resealed: every sealed value is under the first key of the keyring; the other keys may be removed",
					"rows", st.unconfirmed)
				st.unconfirmed = 0
			}
			st.changed = 0
			return total, nil
		}
		if time.Since(started) >= workBudget {
			return total, ErrWorkLeft
		}
	}
}
