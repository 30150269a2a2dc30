package jobs

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Due describes the jobs due and not yet done: those running or
// available, the scheduled and retryable ones whose time had come by the
// service time at (River's scheduler makes them available within
// seconds), and the periodic runs askAfterRun is still asking for. Empty,
// nothing is due. A test reads it before asserting that nothing happened,
// so that work wrongly due has been done first. at is when the test
// asked: the test clock goes on with real time, and what falls due after
// it is not waited for (what is made available, by a job or a jump of
// the clock, is).
func (q *Queue) Due(ctx context.Context, at time.Time) ([]string, error) {
	var out []string
	// Up to dueListed of each, enough to say what holds the queue.
	const dueListed = 20
	for _, waiting := range []bool{false, true} {
		states := []rivertype.JobState{rivertype.JobStateRunning, rivertype.JobStateAvailable}
		if waiting {
			states = []rivertype.JobState{rivertype.JobStateScheduled, rivertype.JobStateRetryable}
		}
		res, err := q.client.JobList(ctx, river.NewJobListParams().States(states...).
			OrderBy(river.JobListOrderByScheduledAt, river.SortOrderAsc).First(dueListed))
		if err != nil {
			return nil, err
		}
		for _, j := range res.Jobs {
			if waiting && j.ScheduledAt.After(at) {
				break
			}
			out = append(out, fmt.Sprintf("%s %d %s (due %s)", j.Kind, j.ID, j.State, j.ScheduledAt.Format(time.RFC3339Nano)))
		}
	}
	q.asking.Range(func(kind, flag any) bool {
		if flag.(*atomic.Bool).Load() {
			out = append(out, fmt.Sprintf("%s: a run asked for after the one running", kind))
		}
		return true
	})
	return out, nil
}

// Watch counts the runs of jobs that end (completed, failed, snoozed or
// cancelled) from its start until Stop. Tests wait on C instead of
// sleeping, and compare Ended before and after a look at the queue to
// tell whether a job ended in between.
type Watch struct {
	// C receives after runs end (one value for any number not yet
	// received).
	C     <-chan struct{}
	ended atomic.Uint64
	stop  func()
}

// Ended is how many runs have ended since the watch began.
func (w *Watch) Ended() uint64 { return w.ended.Load() }

// Stop ends the watch.
func (w *Watch) Stop() { w.stop() }

// Watch begins a Watch of the queue's job runs, on River's event
// subscription. The queue must have started.
func (q *Queue) Watch() *Watch {
	events, cancel := q.client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed,
		river.EventKindJobSnoozed, river.EventKindJobCancelled)
	c := make(chan struct{}, 1)
	done := make(chan struct{})
	w := &Watch{C: c}
	var once sync.Once
	w.stop = func() {
		once.Do(func() {
			close(done)
			cancel()
		})
	}
	go func() {
		for {
			select {
			case <-done:
				return
			case _, ok := <-events:
				if !ok {
					return
				}
				w.ended.Add(1)
				select {
				case c <- struct{}{}:
				default:
				}
			}
		}
	}()
	return w
}
