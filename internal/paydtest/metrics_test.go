package paydtest

import (
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// failing is a collector whose reading fails, as the job queue's does
// when its counts outlast their timeout.
type failing struct{ desc *prometheus.Desc }

func (f failing) Describe(ch chan<- *prometheus.Desc) { ch <- f.desc }
func (f failing) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.NewInvalidMetric(f.desc, errors.New("timeout"))
}

// A series is read beside another collector's failure, as a scrape
// serves it.
func TestMetricValueBesideAFailedCollector(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	attempts := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "attempts_total", Help: "h"}, []string{"outcome"})
	attempts.WithLabelValues("failed").Add(2)
	reg.MustRegister(attempts, failing{prometheus.NewDesc("jobs", "h", nil, nil)})
	if _, err := reg.Gather(); err == nil {
		t.Fatal("the failing collector did not fail the gathering")
	}
	if v, ok := MetricValue(t, reg, "attempts_total", "outcome", "failed"); !ok || v != 2 {
		t.Errorf("attempts_total = %v, %v; want 2", v, ok)
	}
}
