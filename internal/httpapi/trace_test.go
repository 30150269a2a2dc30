package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/tracing"
)

// tracedFrame serves one request through the tracing middleware and Frame,
// as serve builds a listener, and returns its one span and its log lines.
func tracedFrame(t *testing.T, pattern, target string, h http.HandlerFunc) (tracetest.SpanStub, []map[string]any) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	var logs bytes.Buffer
	mux := http.NewServeMux()
	mux.HandleFunc(pattern, h)
	srv := tracing.Handler(Frame(FrameConfig{Logger: slog.New(slog.NewJSONHandler(&logs, nil))}, mux), tp, "merchant")
	srv.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", target, nil))
	spans := exp.GetSpans()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	return spans[0], lines
}

// TestInternalErrorOnSpan: an internal error is recorded on the request's
// span with the operation of the domain that failed, and its log line
// carries the operation and the trace ids; a contract error is an answer,
// not a failure of the span.
func TestInternalErrorOnSpan(t *testing.T) {
	inner := errors.New("connection reset by peer")
	span, lines := tracedFrame(t, "POST /v1/payments/{payment_id}/capture", "/v1/payments/pay_1/capture",
		func(w http.ResponseWriter, r *http.Request) {
			WriteError(w, r, &payd.OpError{Op: "capture payment", Err: inner})
		})
	if span.Status.Code != codes.Error {
		t.Fatalf("span status = %v, want Error", span.Status)
	}
	var op string
	for _, ev := range span.Events {
		if ev.Name == "exception" {
			for _, kv := range ev.Attributes {
				if kv.Key == "payd.operation" {
					op = kv.Value.AsString()
				}
			}
		}
	}
	if op != "capture payment" {
		t.Fatalf("exception events %v, want one with payd.operation \"capture payment\"", span.Events)
	}
	var logged map[string]any
	for _, l := range lines {
		if l["msg"] == "internal error" {
			logged = l
		}
	}
	sc := span.SpanContext
	if logged == nil || logged["op"] != "capture payment" || logged["trace_id"] != sc.TraceID().String() ||
		logged["span_id"] != sc.SpanID().String() || logged["request_id"] == nil {
		t.Fatalf("internal error log line = %v", logged)
	}

	span, _ = tracedFrame(t, "POST /v1/payments/{payment_id}/capture", "/v1/payments/pay_1/capture",
		func(w http.ResponseWriter, r *http.Request) {
			WriteError(w, r, payd.Errorf(payd.CodeInvalidState, "already captured"))
		})
	if span.Status.Code == codes.Error || len(span.Events) != 0 {
		t.Fatalf("a 422 marked the span: %v %v", span.Status, span.Events)
	}
}

// TestSpanNamedByRoute: the server span is named by the matched route and
// keeps its template, not the path: payer pages carry one-time tokens in
// their paths.
func TestSpanNamedByRoute(t *testing.T) {
	span, _ := tracedFrame(t, "POST /checkout/{token}", "/checkout/tok_secret_one_time",
		func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(303) })
	want := map[string]string{"http.route": "/checkout/{token}", "url.path": "/checkout/{token}", "http.response.status_code": "303"}
	for _, kv := range span.Attributes {
		if w, ok := want[string(kv.Key)]; ok {
			if kv.Value.Emit() != w {
				t.Errorf("%s = %s, want %s", kv.Key, kv.Value.Emit(), w)
			}
			delete(want, string(kv.Key))
		}
		if strings.Contains(kv.Value.Emit(), "tok_secret") {
			t.Errorf("attribute %s carries the token: %s", kv.Key, kv.Value.Emit())
		}
	}
	if span.Name != "POST /checkout/{token}" || len(want) != 0 {
		t.Fatalf("span %q lacks %v", span.Name, want)
	}
}

// TestContextLoggerCarriesRequestAndTrace: a page's own logger, given the
// request's context, writes the request id and the trace ids on its line,
// the same as Frame's request logger does.
func TestContextLoggerCarriesRequestAndTrace(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	var logs bytes.Buffer
	base := slog.New(slog.NewJSONHandler(&logs, nil))
	pageLog := ContextLogger(base).With("component", "checkout")
	mux := http.NewServeMux()
	mux.HandleFunc("POST /checkout/{token}", func(w http.ResponseWriter, r *http.Request) {
		pageLog.ErrorContext(r.Context(), "checkout choice", "err", "boom")
		pageLog.Info("no request here")
		w.WriteHeader(500)
	})
	tracing.Handler(Frame(FrameConfig{Logger: base}, mux), tp, "merchant").
		ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/checkout/tok", nil))
	sc := exp.GetSpans()[0].SpanContext
	var page, bare, access map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		switch m["msg"] {
		case "checkout choice":
			page = m
		case "no request here":
			bare = m
		case "request":
			access = m
		}
	}
	if page == nil || access == nil || page["request_id"] != access["request_id"] || page["trace_id"] != sc.TraceID().String() ||
		page["span_id"] != sc.SpanID().String() || page["component"] != "checkout" {
		t.Fatalf("page line %v, access line %v, span %s/%s", page, access, sc.TraceID(), sc.SpanID())
	}
	if _, ok := bare["request_id"]; ok {
		t.Fatalf("a line without the request's context got its id: %v", bare)
	}
}
