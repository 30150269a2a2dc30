package serve

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paydhq/payd/internal/jobs"
)

// queueCollector reports the job queue's depth by state at scrape time,
// straight from the jobs table, so the figure is the same whichever
// instance is scraped.
type queueCollector struct {
	q                         *jobs.Queue
	desc, queue, kind, oldest *prometheus.Desc
}

func newQueueCollector(q *jobs.Queue) *queueCollector {
	return &queueCollector{q: q, desc: prometheus.NewDesc("payd_jobs",
		"Jobs in the durable queue by state (available, scheduled, running, retryable, discarded...).", []string{"state"}, nil),
		queue: prometheus.NewDesc("payd_job_queue_depth",
			"Jobs not yet finished in each queue (default: outcomes; periodic: sweeps, purges, settlement runs), by state.",
			[]string{"queue", "state"}, nil),
		kind: prometheus.NewDesc("payd_job_kind_depth",
			"Jobs not yet finished of each kind, by state (waiting: due and not taken; running; retrying; scheduled).",
			[]string{"kind", "state"}, nil),
		oldest: prometheus.NewDesc("payd_job_oldest_waiting_seconds",
			"How long the oldest job of each kind that is due and not taken has been due, on the service clock.",
			[]string{"kind"}, nil),
	}
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.desc
	ch <- c.queue
	ch <- c.kind
	ch <- c.oldest
}

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c.collectLive(ctx, ch)
	depth, err := c.q.Depth(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	// Every state is reported, zero included, so alerts on a state never
	// see a series vanish.
	for _, state := range []string{"available", "scheduled", "running", "retryable", "pending", "completed", "cancelled", "discarded"} {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(depth[state]), state)
		delete(depth, state)
	}
	for state, n := range depth {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n), state)
	}
}

// collectLive reports the live jobs by queue and by kind (jobs.Stats).
func (c *queueCollector) collectLive(ctx context.Context, ch chan<- prometheus.Metric) {
	st, err := c.q.Stats(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.queue, err)
		return
	}
	for _, q := range st.Queues {
		for state, n := range q.Jobs {
			ch <- prometheus.MustNewConstMetric(c.queue, prometheus.GaugeValue, float64(n), q.Queue, state)
		}
	}
	live := map[string]bool{}
	for _, k := range st.Kinds {
		live[k.Kind] = true
		for state, n := range map[string]int64{"waiting": k.Waiting, "running": k.Running, "retrying": k.Retrying, "scheduled": k.Scheduled} {
			ch <- prometheus.MustNewConstMetric(c.kind, prometheus.GaugeValue, float64(n), k.Kind, state)
		}
		ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, k.OldestWaiting.Seconds(), k.Kind)
	}
	// A periodic kind with no live job has waited for nothing: reported
	// at zero, so that the series an alert reads is there before the
	// first backlog.
	for kind := range jobs.PeriodicKinds() {
		if !live[kind] {
			ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, 0, kind)
		}
	}
}

// readyGauge reports what /readyz answers, at scrape time: 1 while the
// instance is not draining and its database answers with this build's
// schema, else 0. It is what "no instance is ready" is alerted on
// (docs/alerts.md), the same on every instance whatever listener a load
// balancer probes.
func (in *Instance) readyGauge() prometheus.GaugeFunc {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "payd_ready",
		Help: "1 while the instance is ready to serve (what /readyz answers 200 for): not draining, and its database reachable and writable.",
	}, func() float64 {
		if in.draining.Load() {
			return 0
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if in.Store.Ready(ctx) != nil {
			return 0
		}
		return 1
	})
}

// serverWatch counts the changes of the database server that new
// connections reach (payd_db_server_changes_total): after a failover or a
// switchover they reach the new primary, after a restart the same address
// with another start time. The first connection sets what is usual.
type serverWatch struct {
	changes prometheus.Counter
	mu      sync.Mutex
	last    string
}

func newServerWatch() *serverWatch {
	return &serverWatch{changes: prometheus.NewCounter(prometheus.CounterOpts{
		Name: "payd_db_server_changes_total",
		Help: "Times a new database connection reached another PostgreSQL server than the connection before it (another address, or the same one restarted): a failover, a switchover or a restart.",
	})}
}

// reached notes the server a new connection reached (sqlstore.Options.OnServer).
func (w *serverWatch) reached(server string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last != "" && server != w.last {
		w.changes.Inc()
	}
	w.last = server
}
