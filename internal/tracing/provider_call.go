package tracing

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// ProviderCall returns payd.Config.ProviderCallFunc for tp: a client span
// for each call to a payment or payout provider, named by its operation
// ("provider create_attempt") and carrying the provider's name, so that a
// slow bank shows in the trace whatever its adapter does inside. An
// adapter that calls over HTTP can trace its own requests under this span
// (Transport). With tp nil it returns nil.
func ProviderCall(tp trace.TracerProvider) func(ctx context.Context, provider, op string) (context.Context, func(error)) {
	if tp == nil {
		return nil
	}
	tracer := tp.Tracer("github.com/paydhq/payd/internal/tracing")
	return func(ctx context.Context, provider, op string) (context.Context, func(error)) {
		ctx, span := tracer.Start(ctx, "provider "+op, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("payd.provider.name", provider), attribute.String("payd.provider.operation", op)))
		return ctx, func(err error) {
			if err != nil {
				span.RecordError(err)
				span.SetStatus(codes.Error, "provider call failed")
			}
			span.End()
		}
	}
}
