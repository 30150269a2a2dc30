package dispatch

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/tracing"
)

// attemptSpan starts the span of one delivery attempt (nil tracer: none,
// ctx as it is). The first attempt continues the trace of the change that
// queued the delivery (its stored carrier), so the merchant's webhook is in
// the same trace as the request that caused it. A retry comes minutes or
// days later: it starts a trace of its own, linked to that change, rather
// than stretching one trace over the whole retry schedule. The outgoing
// request's client span, and the traceparent the receiver gets, are this
// span's children (the sender's transport).
func (d *Dispatcher) attemptSpan(ctx context.Context, w *payd.DeliveryWork) (context.Context, trace.Span) {
	if d.tracer == nil {
		return ctx, nil
	}
	dl := w.Delivery
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		attribute.String("payd.delivery.id", dl.ID), attribute.String("payd.event.id", dl.EventID),
		attribute.String("payd.webhook_endpoint.id", dl.EndpointID), attribute.Int("payd.delivery.attempt", dl.Attempts+1),
	)}
	if w.Event != nil {
		opts = append(opts, trace.WithAttributes(attribute.String("payd.event.type", string(w.Event.Type))))
	}
	origin := tracing.Remote(dl.Trace)
	switch {
	case origin.IsValid() && dl.Attempts == 0:
		ctx = trace.ContextWithRemoteSpanContext(ctx, origin)
	case origin.IsValid():
		opts = append(opts, trace.WithNewRoot(), trace.WithLinks(trace.Link{SpanContext: origin}))
	default:
		opts = append(opts, trace.WithNewRoot())
	}
	return d.tracer.Start(ctx, "webhook.deliver", opts...)
}

// endAttempt ends an attempt's span with its outcome.
func endAttempt(span trace.Span, out *payd.DeliveryOutcome) {
	if span == nil {
		return
	}
	span.SetAttributes(attribute.String("payd.delivery.outcome", out.Name()))
	if out.Name() == string(payd.DeliveryStateFailed) {
		span.SetStatus(codes.Error, out.Name())
	}
	span.End()
}
