package jobs

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Stats is the queue as an operator watches it: how many jobs each queue
// holds in each live state, and for each kind how many wait, run and wait
// to retry, and how long its oldest waiting job has been due.
type Stats struct {
	Queues []QueueStats `json:"queues"`
	Kinds  []KindStats  `json:"kinds"`
}

// QueueStats is one queue's jobs by state.
type QueueStats struct {
	Queue string           `json:"queue"`
	Jobs  map[string]int64 `json:"jobs"`
}

// KindStats is one kind's live jobs. OldestWaiting is how long the oldest
// job due and not yet taken has been due, on the service clock (zero when
// none waits): the figure to alert on, as a backlog shows in it before
// anything else.
type KindStats struct {
	Kind          string        `json:"kind"`
	Waiting       int64         `json:"waiting"`
	Running       int64         `json:"running"`
	Retrying      int64         `json:"retrying"`
	Scheduled     int64         `json:"scheduled"`
	OldestWaiting time.Duration `json:"-"`
	// OldestWaitingSeconds is OldestWaiting for JSON.
	OldestWaitingSeconds float64 `json:"oldest_waiting_seconds"`
}

// liveStates are the states of jobs not yet finished: what the counts
// read, one range of River's fetch index each, so a read costs the live
// jobs and not the finished ones River keeps for a day.
var liveStates = []string{"available", "scheduled", "running", "retryable", "pending"}

// Stats reads the queue's live jobs.
func (q *Queue) Stats(ctx context.Context) (*Stats, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT queue, kind, state, COUNT(*) FROM river_job
		WHERE state IN ('`+strings.Join(liveStates, "', '")+`') GROUP BY queue, kind, state`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	queues := map[string]map[string]int64{}
	kinds := map[string]*KindStats{}
	var order []string
	for rows.Next() {
		var queue, kind, state string
		var n int64
		if err := rows.Scan(&queue, &kind, &state, &n); err != nil {
			return nil, err
		}
		if queues[queue] == nil {
			queues[queue] = map[string]int64{}
		}
		queues[queue][state] += n
		k := kinds[kind]
		if k == nil {
			k = &KindStats{Kind: kind}
			kinds[kind] = k
			order = append(order, kind)
		}
		switch state {
		case "available":
			k.Waiting += n
		case "running":
			k.Running += n
		case "retryable":
			k.Retrying += n
		default:
			k.Scheduled += n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := &Stats{}
	for _, name := range []string{river.QueueDefault, queuePeriodic, queuePrecheck, queueWebhooks} {
		jobs := map[string]int64{}
		for _, st := range liveStates {
			jobs[st] = queues[name][st]
		}
		out.Queues = append(out.Queues, QueueStats{Queue: name, Jobs: jobs})
	}
	slices.Sort(order)
	now := q.clock.Now()
	for _, kind := range order {
		k := kinds[kind]
		if k.Waiting > 0 {
			res, err := q.client.JobList(ctx, river.NewJobListParams().Kinds(kind).States(rivertype.JobStateAvailable).
				OrderBy(river.JobListOrderByScheduledAt, river.SortOrderAsc).First(1))
			if err != nil {
				return nil, err
			}
			if len(res.Jobs) > 0 && now.After(res.Jobs[0].ScheduledAt) {
				k.OldestWaiting = now.Sub(res.Jobs[0].ScheduledAt)
				k.OldestWaitingSeconds = k.OldestWaiting.Seconds()
			}
		}
		out.Kinds = append(out.Kinds, *k)
	}
	return out, nil
}
