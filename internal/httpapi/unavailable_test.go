package httpapi

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/paydhq/payd"
)

// TestUnavailableByCause: every 503 is counted once under the cause its
// handler gave, and one that gave none under "other"; other answers are
// not counted.
func TestUnavailableByCause(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		handler http.HandlerFunc
		want    string // "" is no 503 counted
	}{
		{"storage", func(w http.ResponseWriter, r *http.Request) {
			WriteError(w, r, fmt.Errorf("create payment: %w", &payd.Error{Code: payd.CodeProviderUnavailable, Cause: payd.CauseStorage}))
		}, "storage"},
		{"rate limit store", func(w http.ResponseWriter, r *http.Request) {
			WriteError(w, r, &payd.Error{Code: payd.CodeProviderUnavailable, Cause: payd.CauseRateLimitStore})
		}, "rate_limit_store"},
		{"provider", func(w http.ResponseWriter, r *http.Request) {
			WriteError(w, r, &payd.Error{Code: payd.CodeProviderUnavailable, Cause: payd.CauseProvider})
		}, "provider"},
		{"page of its own", func(w http.ResponseWriter, r *http.Request) {
			NoteUnavailableError(w, &payd.Error{Code: payd.CodeProviderUnavailable, Cause: payd.CauseSandboxReset})
			w.WriteHeader(http.StatusServiceUnavailable)
		}, "sandbox_reset"},
		{"draining probe", func(w http.ResponseWriter, r *http.Request) {
			NoteUnavailable(w, CauseDraining)
			WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "draining"})
		}, "draining"},
		{"no cause", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
		}, "other"},
		{"not a 503", func(w http.ResponseWriter, r *http.Request) {
			WriteError(w, r, &payd.Error{Code: payd.CodeTooManyRequests})
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			reg := prometheus.NewRegistry()
			m := NewMetrics(reg, "merchant")
			mux := http.NewServeMux()
			mux.Handle("GET /x", c.handler)
			rec := httptest.NewRecorder()
			Frame(FrameConfig{Metrics: m}, mux).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
			for _, cause := range unavailableCauses {
				want := 0.0
				if cause == c.want {
					want = 1
				}
				if got := counterValue(t, m.unavailable.WithLabelValues(cause)); got != want {
					t.Errorf("payd_http_unavailable_total{cause=%q} = %v, want %v (status %d)", cause, got, want, rec.Code)
				}
			}
		})
	}
}

func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}
