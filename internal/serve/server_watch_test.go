package serve

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestServerWatch: the first server a connection reaches is the usual
// one; each connection that reaches another than the one before counts.
func TestServerWatch(t *testing.T) {
	w := newServerWatch()
	for _, s := range []string{"10.0.0.1:5432 t0", "10.0.0.1:5432 t0", "10.0.0.2:5432 t1", "10.0.0.2:5432 t1", "10.0.0.2:5432 t2"} {
		w.reached(s)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(w.changes)
	families, err := reg.Gather()
	if err != nil || len(families) != 1 {
		t.Fatalf("gather: %v, %d families", err, len(families))
	}
	if v := families[0].GetMetric()[0].GetCounter().GetValue(); v != 2 {
		t.Fatalf("payd_db_server_changes_total = %v after a failover and a restart, want 2", v)
	}
}
