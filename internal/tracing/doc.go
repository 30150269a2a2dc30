// Package tracing holds what payd's OpenTelemetry traces share: the
// provider built from the standard OTEL_* environment (Start), the one
// propagation format (W3C trace context), the carrier a stored row keeps
// across the asynchronous gap, and the instrumentation of the HTTP
// listeners and of outgoing requests. Each adapter takes a
// trace.TracerProvider and, when it is nil, adds no instrumentation at all,
// so a service without tracing pays nothing for it. The domain never sees
// any of it: it passes context.Context and keeps an opaque carrier.
package tracing
