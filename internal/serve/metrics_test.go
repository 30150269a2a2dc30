package serve_test

import (
	"context"
	"testing"

	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/serve"
)

// TestReadyGauge: payd_ready is 1 while the instance is ready and 0 once
// it drains, as /readyz answers.
func TestReadyGauge(t *testing.T) {
	t.Parallel()
	in, err := serve.New(context.Background(), serve.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close(context.Background())
	if v, ok := paydtest.MetricValue(t, in.Registry, "payd_ready"); !ok || v != 1 {
		t.Fatalf("payd_ready = %v (exported %v) while ready, want 1", v, ok)
	}
	in.Drain()
	if v, _ := paydtest.MetricValue(t, in.Registry, "payd_ready"); v != 0 {
		t.Fatalf("payd_ready = %v while draining, want 0", v)
	}
}
