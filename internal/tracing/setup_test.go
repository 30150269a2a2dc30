package tracing_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/paydhq/payd/internal/paydtest"
)

// traced is a service whose spans go to an in-memory exporter and whose
// log is kept as JSON lines, with a merchant's HTTPS receiver.
type traced struct {
	env  *paydtest.Env
	exp  *tracetest.InMemoryExporter
	logs *lockedBuffer
	rc   *receiver
}

func startTraced(t *testing.T, b paydtest.Backend) *traced {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	// Every span is exported as it ends, so a test sees it at once.
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	rc := newReceiver(t)
	pool := x509.NewCertPool()
	pool.AddCert(rc.srv.Certificate())
	logs := &lockedBuffer{}
	env := paydtest.Start(t, b, &paydtest.Options{
		TracerProvider: tp, Logger: slog.New(slog.NewJSONHandler(logs, nil)),
		WebhookAllowHosts: []string{"127.0.0.1"}, WebhookRootCAs: pool,
	})
	return &traced{env: env, exp: exp, logs: logs, rc: rc}
}

// spans returns the spans ended so far.
func (tr *traced) spans() tracetest.SpanStubs { return tr.exp.GetSpans() }

// span waits for the one span that ok picks out and returns it.
func (tr *traced) span(t *testing.T, what string, ok func(s tracetest.SpanStub) bool) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	paydtest.Eventually(t, what, func() bool {
		found = found[:0]
		for _, s := range tr.spans() {
			if ok(s) {
				found = append(found, s)
			}
		}
		return len(found) > 0
	})
	if len(found) != 1 {
		t.Fatalf("%s: %d spans, want 1: %v", what, len(found), names(found))
	}
	return found[0]
}

func names(list []tracetest.SpanStub) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.Name)
	}
	return out
}

// attr returns a span's attribute as a string ("" when absent).
func attr(s tracetest.SpanStub, key string) string {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value.Emit()
		}
	}
	return ""
}

// linkedTo reports whether s has a link into trace id.
func linkedTo(s tracetest.SpanStub, id trace.TraceID) bool {
	for _, l := range s.Links {
		if l.SpanContext.TraceID() == id {
			return true
		}
	}
	return false
}

// logLines returns the service's log lines so far, decoded.
func (tr *traced) logLines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(tr.logs.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

// receiver is a merchant's HTTPS endpoint: it records each request's
// traceparent and answers with answer(n) for the n-th (1-based), and with
// body when the status is 200.
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []http.Header
	answer func(n int) int
	body   string
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{answer: func(int) int { return 200 }}
	rc.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, r.Header.Clone())
		status, body := rc.answer(len(rc.got)), rc.body
		rc.mu.Unlock()
		if body != "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) requests() []http.Header {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]http.Header(nil), rc.got...)
}

// traceparent reads a W3C traceparent header into its trace and parent
// span ids.
func traceparent(t *testing.T, h http.Header) (trace.TraceID, trace.SpanID) {
	t.Helper()
	v := h.Get("traceparent")
	parts := strings.Split(v, "-")
	if len(parts) != 4 || parts[0] != "00" {
		t.Fatalf("traceparent %q is not W3C version 00", v)
	}
	tid, err := trace.TraceIDFromHex(parts[1])
	if err != nil {
		t.Fatalf("traceparent %q: %v", v, err)
	}
	sid, err := trace.SpanIDFromHex(parts[2])
	if err != nil {
		t.Fatalf("traceparent %q: %v", v, err)
	}
	return tid, sid
}

var keySeq struct {
	sync.Mutex
	n int
}

func key() string {
	keySeq.Lock()
	defer keySeq.Unlock()
	keySeq.n++
	return fmt.Sprintf("trace-key-%06d", keySeq.n)
}

func newPayment(confirmation string) map[string]any {
	conf := map[string]any{"type": confirmation}
	if confirmation == "redirect" {
		conf["return_url"] = "https://shop.example.com/return"
	}
	return map[string]any{
		"amount":       map[string]any{"value": "100.00", "currency": "RUB"},
		"order_id":     fmt.Sprintf("order-%d", time.Now().UnixNano()),
		"description":  "Order with two books",
		"confirmation": conf,
	}
}

// logTraces writes the spans as trees, one per trace, with their links, in
// the order their traces began (go test -v shows it; docs/operations.md
// quotes one run).
func logTraces(t *testing.T, spans tracetest.SpanStubs) {
	t.Helper()
	if !testing.Verbose() {
		return
	}
	children := map[trace.SpanID][]tracetest.SpanStub{}
	var roots []tracetest.SpanStub
	known := map[trace.SpanID]bool{}
	for _, s := range spans {
		known[s.SpanContext.SpanID()] = true
	}
	for _, s := range spans {
		if p := s.Parent.SpanID(); s.Parent.IsValid() && known[p] {
			children[p] = append(children[p], s)
		} else {
			roots = append(roots, s)
		}
	}
	byStart := func(list []tracetest.SpanStub) {
		sort.Slice(list, func(i, j int) bool { return list[i].StartTime.Before(list[j].StartTime) })
	}
	byStart(roots)
	var b strings.Builder
	var walk func(s tracetest.SpanStub, depth int)
	walk = func(s tracetest.SpanStub, depth int) {
		fmt.Fprintf(&b, "%s%s [%s] %s", strings.Repeat("  ", depth), s.Name, strings.TrimPrefix(s.SpanKind.String(), "SpanKind"),
			s.EndTime.Sub(s.StartTime).Round(10*time.Microsecond))
		for _, key := range []string{"http.route", "http.response.status_code", "db.query.text", "db.statement", "kind",
			"payd.provider.name", "payd.event.type", "payd.delivery.attempt", "payd.delivery.outcome"} {
			if v := attr(s, key); v != "" {
				if len(v) > 60 {
					v = v[:60] + "…"
				}
				fmt.Fprintf(&b, " %s=%q", key, v)
			}
		}
		for _, l := range s.Links {
			fmt.Fprintf(&b, " link→trace %s", l.SpanContext.TraceID().String()[:8])
		}
		b.WriteString("\n")
		kids := children[s.SpanContext.SpanID()]
		byStart(kids)
		for _, k := range kids {
			walk(k, depth+1)
		}
	}
	for _, r := range roots {
		fmt.Fprintf(&b, "trace %s\n", r.SpanContext.TraceID().String()[:8])
		walk(r, 1)
	}
	t.Log("\n" + b.String())
}
