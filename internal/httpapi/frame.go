package httpapi

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/paydhq/payd"
)

type (
	requestIDKey struct{}
	loggerKey    struct{}
)

// RequestID returns the id Frame gave the request ("" outside a framed
// request).
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

var errPanic = errors.New("handler panic")

// requestLog is a request's logger, made the first time it is asked for
// (Logger): most requests log nothing but their access line, which Frame
// writes with the same attributes; making one for each took about 2 % of
// payd's time in a GET.
type requestLog struct {
	base *slog.Logger
	// attrs are request_id and, with tracing on, trace_id and span_id.
	attrs []slog.Attr
	made  atomic.Pointer[slog.Logger]
}

func (l *requestLog) logger() *slog.Logger {
	if m := l.made.Load(); m != nil {
		return m
	}
	args := make([]any, len(l.attrs))
	for i, a := range l.attrs {
		args[i] = a
	}
	l.made.CompareAndSwap(nil, l.base.With(args...))
	return l.made.Load()
}

// maxHeaderBytes bounds the request's headers; larger requests are refused
// with the contract's error rather than the server's bare 431.
const maxHeaderBytes = 32 << 10

// statusRecorder remembers the status for logs and metrics, and the
// cause of a 503 (NoteUnavailable).
type statusRecorder struct {
	http.ResponseWriter
	status int
	cause  string
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// FrameConfig assembles Frame.
type FrameConfig struct {
	// Logger writes the access log; nil discards it.
	Logger *slog.Logger
	// Metrics counts requests by route and status; nil counts nothing.
	Metrics *Metrics
	// Quiet, when set, picks out the requests whose log line is written
	// at debug rather than info level; route is the matched pattern
	// ("unmatched" when none).
	Quiet func(r *http.Request, route string, status int) bool
}

// Frame gives every request an id (the X-Request-Id header and the
// request_id of errors), a logger carrying it, panic recovery, metrics and
// one access log line. Nothing here logs headers or bodies: they carry
// secrets and one-time tokens.
func Frame(cfg FrameConfig, next http.Handler) http.Handler {
	base, m := cfg.Logger, cfg.Metrics
	if base == nil {
		base = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := "req_" + ulid.MustNew(ulid.Timestamp(start), rand.Reader).String()
		log := &requestLog{base: base, attrs: make([]slog.Attr, 1, 7)}
		log.attrs[0] = slog.String("request_id", id)
		// With tracing on, the request's server span is in the context
		// (tracing.Handler): its ids go on every line of the request's
		// log, so that a log line leads to its trace and back.
		span := trace.SpanFromContext(r.Context())
		if sc := span.SpanContext(); sc.IsValid() {
			log.attrs = append(log.attrs, slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
		}
		ctx := context.WithValue(context.WithValue(r.Context(), requestIDKey{}, id), loggerKey{}, log)
		r = r.WithContext(ctx)
		w.Header()["X-Request-Id"] = []string{id}
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.logger().Error("panic", "panic", v)
				if rec.status == 0 {
					WriteError(rec, r, errPanic)
				}
			}
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			if span.IsRecording() {
				nameSpan(span, r.Method, r.Pattern)
			}
			m.observe(route, rec.status, rec.cause, time.Since(start))
			level := slog.LevelInfo
			if cfg.Quiet != nil && cfg.Quiet(r, route, rec.status) {
				level = slog.LevelDebug
			}
			base.LogAttrs(r.Context(), level, "request", append(log.attrs, slog.String("method", r.Method), slog.String("route", route),
				slog.Int("status", rec.status), slog.Int64("duration_ms", time.Since(start).Milliseconds()))...)
		}()
		if headerSize(r) > maxHeaderBytes {
			WriteError(rec, r, payd.Invalid("", "request headers exceed %d bytes", maxHeaderBytes))
			return
		}
		next.ServeHTTP(rec, r)
	})
}

// nameSpan names the server span by the route the mux matched ("POST
// /v1/payments/{id}/capture"), with http.route the path template, as
// OpenTelemetry's conventions for HTTP servers ask. The mux sets the
// pattern on the request Frame passes on, which the tracing middleware
// outside never sees, so Frame names it. The span's url.path becomes the
// template too ("unmatched" for no route), as the access log has only the
// route: the payer's pages carry one-time tokens in their paths
// (/checkout/{token}), which have no place in a trace backend.
func nameSpan(span trace.Span, method, pattern string) {
	if pattern == "" {
		span.SetAttributes(attribute.String("url.path", "unmatched"))
		return
	}
	path := pattern
	if i := strings.IndexByte(pattern, ' '); i >= 0 {
		path = pattern[i+1:]
	}
	span.SetName(method + " " + path)
	span.SetAttributes(attribute.String("http.route", path), attribute.String("url.path", path))
}

func headerSize(r *http.Request) int {
	n := len(r.RequestURI)
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}
