package serve

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paydhq/payd/internal/jobs"
)

// queueCollector reports the job queue's depth by state at scrape time,
// straight from the jobs table, so the figure is the same whichever
// instance is scraped.
type queueCollector struct {
	q    *jobs.Queue
	desc *prometheus.Desc
}

func newQueueCollector(q *jobs.Queue) *queueCollector {
	return &queueCollector{q: q, desc: prometheus.NewDesc("payd_jobs",
		"Jobs in the durable queue by state (available, scheduled, running, retryable, discarded...).", []string{"state"}, nil)}
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
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
