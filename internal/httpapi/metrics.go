package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paydhq/payd"
)

// Metrics are the HTTP metrics of a listener.
type Metrics struct {
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	failures  prometheus.Counter
	throttled prometheus.Counter
	// unavailable counts the 503 answers by cause (NoteUnavailable).
	unavailable *prometheus.CounterVec
	// keys counts the requests that presented an API key by its state
	// (KeyUsed).
	keys *prometheus.CounterVec
}

// NewMetrics registers the HTTP metrics of the listener named server
// ("merchant" or "operator") with reg.
func NewMetrics(reg prometheus.Registerer, server string) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "payd_http_requests_total", Help: "HTTP requests by route and status.",
			ConstLabels: prometheus.Labels{"server": server},
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "payd_http_request_duration_seconds", Help: "HTTP request latency by route.",
			ConstLabels: prometheus.Labels{"server": server},
			Buckets:     []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route"}),
	}
	m.failures = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "payd_auth_failures_total", Help: "Requests whose credentials were presented and refused (401).",
		ConstLabels: prometheus.Labels{"server": server},
	})
	m.throttled = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "payd_auth_throttled_total", Help: "Requests answered 429 because their source address failed authentication too often.",
		ConstLabels: prometheus.Labels{"server": server},
	})
	m.unavailable = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name:        "payd_http_unavailable_total",
		Help:        "Requests answered 503, by cause: storage (database unreachable or read-only), rate_limit_store (Redis unreachable), provider, sandbox_reset, draining and not_ready (the readiness probe), other.",
		ConstLabels: prometheus.Labels{"server": server},
	}, []string{"cause"})
	for _, c := range unavailableCauses {
		m.unavailable.WithLabelValues(c)
	}
	m.keys = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name:        "payd_api_key_authentications_total",
		Help:        "Requests that presented a shop's API key, by the key's state: active, expiring (an older key in its rotation's overlap, which stops working at its end) and expired (a key a rotation ended, refused with 401).",
		ConstLabels: prometheus.Labels{"server": server},
	}, []string{"state"})
	for _, st := range []payd.KeyState{payd.KeyActive, payd.KeyExpiring, payd.KeyExpired} {
		m.keys.WithLabelValues(string(st))
	}
	reg.MustRegister(m.requests, m.latency, m.failures, m.throttled, m.unavailable, m.keys)
	return m
}

// KeyUsed counts a request that presented an API key in state st.
func (m *Metrics) KeyUsed(st payd.KeyState) {
	if m != nil {
		m.keys.WithLabelValues(string(st)).Inc()
	}
}

func (m *Metrics) authFailed() {
	if m != nil {
		m.failures.Inc()
	}
}

func (m *Metrics) authThrottled() {
	if m != nil {
		m.throttled.Inc()
	}
}

func (m *Metrics) observe(route string, status int, cause string, d time.Duration) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
	if status == http.StatusServiceUnavailable {
		if cause == "" {
			cause = causeOther
		}
		m.unavailable.WithLabelValues(cause).Inc()
	}
}
