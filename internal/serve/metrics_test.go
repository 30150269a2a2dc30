package serve_test

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paydhq/payd/internal/serve"
)

// metricValue is the value of the series of name whose labels include
// labels (name=value pairs), and whether there is one.
func metricValue(t *testing.T, g prometheus.Gatherer, name string, labels ...string) (float64, bool) {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
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

// TestReadyGauge: payd_ready is 1 while the instance is ready and 0 once
// it drains, as /readyz answers.
func TestReadyGauge(t *testing.T) {
	t.Parallel()
	in, err := serve.New(context.Background(), serve.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close(context.Background())
	if v, ok := metricValue(t, in.Registry, "payd_ready"); !ok || v != 1 {
		t.Fatalf("payd_ready = %v (exported %v) while ready, want 1", v, ok)
	}
	in.Drain()
	if v, _ := metricValue(t, in.Registry, "payd_ready"); v != 0 {
		t.Fatalf("payd_ready = %v while draining, want 0", v)
	}
}
