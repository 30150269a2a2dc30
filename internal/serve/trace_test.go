package serve_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/paydhq/payd/internal/serve"
)

// TestDashboardOwnListenerTraced: the dashboard on a listener of its own
// (--dashboard-addr) gives server spans as the APIs' listeners do.
func TestDashboardOwnListenerTraced(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	ctx := context.Background()
	in, err := serve.New(ctx, serve.Config{DataDir: t.TempDir(), DashboardOwnListener: true, TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close(ctx)
	if in.Dashboard == nil {
		t.Fatal("no dashboard handler of its own")
	}
	rec := httptest.NewRecorder()
	in.Dashboard.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/dashboard/signin", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("sign-in page = %d", rec.Code)
	}
	for _, s := range exp.GetSpans() {
		if s.SpanKind == trace.SpanKindServer {
			return
		}
	}
	t.Fatalf("no server span for the dashboard's own listener among %d spans", len(exp.GetSpans()))
}
