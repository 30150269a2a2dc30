package serve_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
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

// TestMetricsWithoutDatabase: with the database gone, /metrics still
// answers, with payd_ready at 0, rather than failing whole because the
// job queue's collector cannot read its table: the scrape is how the
// outage is seen.
func TestMetricsWithoutDatabase(t *testing.T) {
	t.Parallel()
	in, err := serve.New(context.Background(), serve.Config{DataDir: t.TempDir(), AdminToken: "adm_" + strings.Repeat("m", 24)})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close(context.Background())
	in.Store.Close()
	rec := httptest.NewRecorder()
	in.Admin.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "\npayd_ready 0\n") {
		t.Fatalf("GET /metrics without a database: %d\n%s", rec.Code, rec.Body.String())
	}
}
