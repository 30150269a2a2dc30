package paydtest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd/internal/dispatch"
	"github.com/paydhq/payd/internal/jobs"
)

// settleWithin bounds Settle. A loaded CI machine has taken more than
// 30 s to run a job due now; after a jump of the clock each periodic kind
// runs once more (jobs.skipAhead), so past a minute something holds the
// work, and the failure says what.
const settleWithin = time.Minute

// settlePoll is how often Settle looks again when nothing woke it: time
// alone makes a scheduled job due, which nothing signals.
const settlePoll = 20 * time.Millisecond

// Settle waits until the service has nothing due now: no job due or
// running (jobs.Queue.Due), then a look of the webhook sender at its
// queue, begun after that, that found no delivery due while it had none
// in hand, and still no job due, none ended and nothing sent since. A
// test that asserts that nothing happened (no webhook sent, no status
// changed yet) calls it first: work wrongly due by then has been done,
// and the assertion sees it. Work on the service clock's future is not
// due: a test moves the clock, then settles.
//
// Settle waits on the queue's and the sender's own signals (a job's run
// ending, the sender's looks and records), and looks again every
// settlePoll for what nothing signals. It fails the test, naming what was
// still due, when the service has not settled within settleWithin; it
// never returns on a timeout.
func (e *Env) Settle(t testing.TB) {
	t.Helper()
	e.settle(t, true)
}

// SettleDeliveries is Settle for the webhook sender alone: it waits for a
// look of the sender, begun now, that found no delivery due with none in
// hand. A test of deliveries already queued (a retry's time, a lease)
// uses it: it does not wait for the periodic runs each move of the clock
// starts, which queue no delivery, so it returns within the margin such a
// test leaves before the next delivery falls due on the running clock.
func (e *Env) SettleDeliveries(t testing.TB) {
	t.Helper()
	e.settle(t, false)
}

func (e *Env) settle(t testing.TB, withJobs bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), settleWithin)
	defer cancel()
	q, d := e.Instance.Queue, e.Instance.Deliveries()
	watch := q.Watch()
	defer watch.Stop()
	why := "nothing looked yet"
	at := e.Clock.Now()
	for {
		if reason := e.settled(ctx, watch, at, withJobs); reason == "" {
			return
		} else if ctx.Err() == nil {
			why = reason
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the service did not settle within %v: %s", settleWithin, why)
		case <-watch.C:
		case <-d.Activity().Changed:
		case <-time.After(settlePoll):
		}
	}
}

// settled makes one attempt of Settle's checks (without the jobs' unless
// withJobs), and returns why the service has not settled ("" when it
// has).
func (e *Env) settled(ctx context.Context, watch *jobs.Watch, at time.Time, withJobs bool) string {
	q, d := e.Instance.Queue, e.Instance.Deliveries()
	jobsDue := func() string {
		if !withJobs {
			return ""
		}
		due, err := q.Due(ctx, at)
		if err != nil {
			return "the job queue: " + err.Error()
		}
		if len(due) > 0 {
			return "jobs due or running: " + strings.Join(due, "; ")
		}
		return ""
	}
	// The jobs first: a job's run commits the deliveries it queues
	// before it ends, so once none runs, what they queued is there for
	// the sender's look.
	ended := watch.Ended()
	if why := jobsDue(); why != "" {
		return why
	}
	look := d.Look()
	var quiet dispatch.Activity
	for {
		quiet = d.Activity()
		if quiet.QuietLook >= look {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Sprintf("the webhook sender found deliveries due or had some in hand (%d in hand, %d looks, the last that found nothing due: %d)",
				quiet.InHand, quiet.Looks, quiet.QuietLook)
		case <-quiet.Changed:
		}
	}
	// A job ended, or the sender claimed or recorded deliveries, after
	// the look: what they did may be due.
	if why := jobsDue(); why != "" {
		return why
	}
	if withJobs && watch.Ended() != ended {
		return "a job ended while the webhook sender looked"
	}
	if now := d.Activity(); now.InHand > 0 || now.Changes != quiet.Changes {
		return fmt.Sprintf("the webhook sender is sending (%d in hand)", now.InHand)
	}
	return ""
}
