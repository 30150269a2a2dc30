package paydtest

import (
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// MetricValue is the value of the series of name whose labels include
// labels (name, value pairs): a counter's or gauge's value, a histogram's
// count of observations; and whether there is such a series.
//
// A collector of other series that failed (the job queue's counts past
// their two seconds on a loaded database) does not fail the read, as it
// does not fail a scrape (the operator's /metrics continues on errors);
// the test fails when name's own series are not there to read.
func MetricValue(t testing.TB, g prometheus.Gatherer, name string, labels ...string) (float64, bool) {
	t.Helper()
	families, err := g.Gather()
	if err != nil && !slices.ContainsFunc(families, func(f *dto.MetricFamily) bool { return f.GetName() == name }) {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for i := 0; i+1 < len(labels); i += 2 {
				if have[labels[i]] != labels[i+1] {
					continue series
				}
			}
			switch {
			case m.Gauge != nil:
				return m.GetGauge().GetValue(), true
			case m.Counter != nil:
				return m.GetCounter().GetValue(), true
			case m.Histogram != nil:
				return float64(m.GetHistogram().GetSampleCount()), true
			}
		}
	}
	return 0, false
}

// Metric is the value of the service's series of name with labels (zero
// when there is none): MetricValue on its registry.
func (e *Env) Metric(name string, labels ...string) float64 {
	e.T.Helper()
	v, _ := MetricValue(e.T, e.Instance.Registry, name, labels...)
	return v
}
