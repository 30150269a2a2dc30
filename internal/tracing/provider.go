package tracing

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/contrib/exporters/autoexport"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Enabled reports whether the environment asks for traces, as
// OpenTelemetry documents its variables: OTEL_SDK_DISABLED=true turns
// everything off; OTEL_TRACES_EXPORTER names the exporter ("none" turns
// traces off); without it, an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) turns them on. Nothing set: off.
func Enabled(getenv func(string) string) bool {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	if e := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); e != "" {
		return e != "none"
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Start builds the tracer provider of the process from the standard
// environment: the exporter OTEL_TRACES_EXPORTER names (otlp by default,
// over OTEL_EXPORTER_OTLP_PROTOCOL, http/protobuf by default, to
// OTEL_EXPORTER_OTLP_ENDPOINT; console writes spans to stdout), the sampler
// of OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG (parentbased_always_on
// by default), the batch processor's OTEL_BSP_* limits, and the resource of
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (service.name "payd" by
// default). The caller shuts it down, which sends the spans still queued.
func Start(ctx context.Context, version string) (*sdktrace.TracerProvider, error) {
	exp, err := autoexport.NewSpanExporter(ctx)
	if err != nil {
		return nil, fmt.Errorf("trace exporter: %w", err)
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", "payd")}
	if version != "" {
		attrs = append(attrs, attribute.String("service.version", version))
	}
	// Later detectors win: the environment overrides payd's defaults.
	res, err := resource.New(ctx, resource.WithAttributes(attrs...), resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		exp.Shutdown(ctx)
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res)), nil
}
