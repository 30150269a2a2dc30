package tracing

import (
	"context"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
)

// ChildOnly returns a provider whose tracers start spans only under a span
// already in the context. The database instrumentation uses it: the job
// queue polls and the webhook sender claims several times a second, and
// each of those statements would otherwise be a trace of its own, one
// span long, that nobody asked about. A statement made for a request, a
// job or a delivery attempt has that span as parent and is traced.
func ChildOnly(tp trace.TracerProvider) trace.TracerProvider { return childOnly{tp: tp} }

type childOnly struct {
	embedded.TracerProvider
	tp trace.TracerProvider
}

func (c childOnly) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	return childTracer{t: c.tp.Tracer(name, opts...)}
}

type childTracer struct {
	embedded.Tracer
	t trace.Tracer
}

func (c childTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		// The context's own span: a no-op one, which records nothing.
		return ctx, trace.SpanFromContext(ctx)
	}
	return c.t.Start(ctx, name, opts...)
}
