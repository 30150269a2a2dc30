package payd

import (
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
