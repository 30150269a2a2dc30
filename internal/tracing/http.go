package tracing

import (
	"net/http"
	"net/url"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
)

// Handler traces a listener's requests: a server span per request, the
// child of an incoming traceparent when the caller sent one (a merchant
// that propagates its trace sees payd's spans under its own), with
// http.response.status_code. httpapi.Frame names the span by its route
// once the mux has matched it. With tp nil, h is returned as it is.
func Handler(h http.Handler, tp trace.TracerProvider, listener string) http.Handler {
	if tp == nil {
		return h
	}
	return otelhttp.NewHandler(h, listener,
		otelhttp.WithTracerProvider(tp), otelhttp.WithPropagators(propagator),
		// /metrics stays what it is: Prometheus, not OpenTelemetry.
		otelhttp.WithMeterProvider(noop.NewMeterProvider()),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method }),
		otelhttp.WithFilter(notProbe))
}

// notProbe leaves out the probes a load balancer and Prometheus make every
// few seconds: a trace each would bury the requests worth looking at.
func notProbe(r *http.Request) bool {
	switch r.URL.Path {
	case "/healthz", "/readyz", "/metrics":
		return false
	}
	return true
}

// Transport traces the requests sent through rt (webhook deliveries,
// pre-checks): a client span each, and the W3C traceparent of that span in
// the request, so that the receiver's own tracing continues payd's trace.
// The span's url.full leaves out the query: a merchant's endpoint may carry
// a token there. With tp nil, rt is returned as it is.
func Transport(rt http.RoundTripper, tp trace.TracerProvider) http.RoundTripper {
	if tp == nil {
		return rt
	}
	return otelhttp.NewTransport(withoutQuery{rt},
		otelhttp.WithTracerProvider(tp), otelhttp.WithPropagators(propagator),
		otelhttp.WithMeterProvider(noop.NewMeterProvider()),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method }))
}

// withoutQuery runs inside the client span and writes over the url.full
// that otelhttp gave it.
type withoutQuery struct{ rt http.RoundTripper }

func (w withoutQuery) RoundTrip(r *http.Request) (*http.Response, error) {
	if span := trace.SpanFromContext(r.Context()); span.IsRecording() {
		u := url.URL{Scheme: r.URL.Scheme, Host: r.URL.Host, Path: r.URL.Path}
		span.SetAttributes(attribute.String("url.full", u.String()))
	}
	return w.rt.RoundTrip(r)
}
