package tracing

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// propagator is the one format payd reads from requests and writes into
// outgoing ones and stored rows: W3C trace context (traceparent,
// tracestate). Baggage is neither read nor sent: what a caller puts there
// has no place in payd's spans or a merchant's webhook.
var propagator propagation.TextMapPropagator = propagation.TraceContext{}

// Carrier returns the trace context of ctx as the W3C headers, for a row
// that outlives the request (a webhook delivery, a job), or nil when ctx
// carries no span. It is payd.Config.TraceCarrierFunc.
func Carrier(ctx context.Context) map[string]string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	c := propagation.MapCarrier{}
	propagator.Inject(ctx, c)
	return c
}

// Remote returns the span context a carrier holds (invalid when it holds
// none).
func Remote(carrier map[string]string) trace.SpanContext {
	if len(carrier) == 0 {
		return trace.SpanContext{}
	}
	return trace.SpanContextFromContext(propagator.Extract(context.Background(), propagation.MapCarrier(carrier)))
}
