package httpapi

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// ContextLogger returns a logger over base's handler for the parts of a
// listener that keep a logger of their own (the payer's pages): a line
// logged with a framed request's context (ErrorContext(r.Context(), ...))
// gets the request's request_id and, with tracing on, its trace_id and
// span_id, as the lines of Frame's request logger do. Lines logged
// without such a context are left as they are.
func ContextLogger(base *slog.Logger) *slog.Logger {
	return slog.New(contextHandler{base.Handler()})
}

type contextHandler struct{ slog.Handler }

func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
			r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
		}
	}
	return h.Handler.Handle(ctx, r)
}

func (h contextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return contextHandler{h.Handler.WithAttrs(attrs)}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{h.Handler.WithGroup(name)}
}
