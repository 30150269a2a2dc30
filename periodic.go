package payd

import (
	"context"
	"errors"
	"time"
)

// ErrWorkLeft is what periodic work returns when it stopped at its budget
// with more to do: its job runs again at once, a new run that reads the
// clock anew, instead of waiting for its next period. Each batch before it
// has committed, so nothing done is done again.
var ErrWorkLeft = errors.New("periodic work stopped at its budget with more to do")

// workBudget bounds one run of periodic work (a sweep, a purge, the
// settlement run), well inside a job's timeout: long work is a chain of
// short runs, each of committed batches.
const workBudget = 30 * time.Second

// purgeBatch is how many rows one statement of a retention purge deletes:
// each batch is its own short transaction, so a purge of millions of
// expired rows never holds locks or a snapshot for long.
const purgeBatch = 5000

// PurgeInBatches deletes what batch deletes, each call in a transaction of
// its own and of at most limit rows, until a call deletes fewer, or the
// budget of periodic work is spent (ErrWorkLeft). Each batch is a range
// of an index, so a purge costs what it deletes, however large the table.
// The domain's purges and the account service's go through it.
func PurgeInBatches(ctx context.Context, store Store, batch func(tx Tx, limit int) (int64, error)) (int64, error) {
	started := time.Now()
	var total int64
	for {
		var n int64
		err := store.Tx(ctx, func(tx Tx) (err error) {
			n, err = batch(tx, purgeBatch)
			return err
		})
		total += n
		if err != nil || n < purgeBatch {
			return total, err
		}
		if time.Since(started) >= workBudget {
			return total, ErrWorkLeft
		}
	}
}
