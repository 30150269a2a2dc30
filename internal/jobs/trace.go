package jobs

import (
	"context"
	"encoding/json"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/riverqueue/rivercontrib/otelriver"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"

	"github.com/paydhq/payd/internal/tracing"
)

// traceMetaKey is the key of the job's metadata that keeps the W3C trace
// context of the transaction that inserted it.
const traceMetaKey = "trace"

// traceMiddleware is River's OpenTelemetry middleware (a producer span for
// every insert, a consumer span for every job worked), followed by
// traceLink, which carries the inserting span across the queue: a job runs
// in a trace of its own, after a delay and perhaps many times, so its span
// is linked to the request that enqueued it rather than made its child.
func traceMiddleware(tp trace.TracerProvider) []rivertype.Middleware {
	return []rivertype.Middleware{
		otelriver.NewMiddleware(&otelriver.MiddlewareConfig{
			TracerProvider: tp, MeterProvider: noop.NewMeterProvider(), EnableWorkSpanJobKindSuffix: true,
		}),
		&traceLink{},
	}
}

// traceLink writes the trace context of the insert into each job's
// metadata, and adds it as a link to the span of the job's work.
type traceLink struct{ river.MiddlewareDefaults }

func (*traceLink) InsertMany(ctx context.Context, many []*rivertype.JobInsertParams, doInner func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
	if carrier := tracing.Carrier(ctx); carrier != nil {
		for _, p := range many {
			meta := map[string]any{}
			if len(p.Metadata) > 0 {
				if err := json.Unmarshal(p.Metadata, &meta); err != nil {
					continue // not an object: left as River has it
				}
			}
			meta[traceMetaKey] = carrier
			if b, err := json.Marshal(meta); err == nil {
				p.Metadata = b
			}
		}
	}
	return doInner(ctx)
}

func (*traceLink) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	var meta struct {
		Trace map[string]string `json:"trace"`
	}
	if json.Unmarshal(job.Metadata, &meta) == nil {
		if sc := tracing.Remote(meta.Trace); sc.IsValid() {
			trace.SpanFromContext(ctx).AddLink(trace.Link{SpanContext: sc})
		}
	}
	return doInner(ctx)
}
