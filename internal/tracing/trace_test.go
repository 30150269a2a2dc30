package tracing_test

import (
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/internal/sandbank"
)

// TestTraceOfPaymentCreation: one POST /v1/payments gives a server span
// named by its route with the status, the database statements under it
// (their text, not their values), and the job it enqueued runs in
// a span linked to it; the pre-check that job sends carries the job's
// trace in its traceparent, and its call to the bank is a client span of
// that trace; the request's log lines carry its trace and
// span ids.
func TestTraceOfPaymentCreation(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		tr := startTraced(t, b)
		tr.rc.body = `{"decision":"allow"}`
		shop := tr.env.NewShop(payd.RegionRU, "")
		tr.env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"authorize_request_webhook": true}).Expect(t, 200)
		c := tr.env.As(shop, false)
		c.Post("/v1/webhook-endpoints", key(), map[string]any{
			"url": tr.rc.srv.URL + "/precheck", "events": []string{"payment.authorize_request"}}).Expect(t, 201)
		body := newPayment("qr")
		c.Post("/v1/payments", key(), body).Expect(t, 201)

		server := tr.span(t, "the server span of the creation", func(s tracetest.SpanStub) bool {
			return s.SpanKind == trace.SpanKindServer && s.Name == "POST /v1/payments"
		})
		if attr(server, "http.route") != "/v1/payments" || attr(server, "http.response.status_code") != "201" {
			t.Fatalf("server span attributes = %v", server.Attributes)
		}
		if server.Parent.IsValid() {
			t.Fatalf("a request without traceparent has a parent: %v", server.Parent)
		}
		tid := server.SpanContext.TraceID()

		// Statements are the request's children, or its grandchildren
		// under a span of the pgx batch that carried them.
		var statements []string
		for _, s := range tr.spans() {
			if s.SpanContext.TraceID() == tid && s.SpanKind == trace.SpanKindClient {
				q := attr(s, "db.query.text") + attr(s, "db.statement")
				if q == "" {
					continue
				}
				statements = append(statements, q)
				if strings.Contains(q, body["order_id"].(string)) {
					t.Fatalf("a statement span carries a bound value: %s", q)
				}
			}
		}
		if len(statements) < 2 || !strings.Contains(strings.Join(statements, "\n"), "$1") {
			t.Fatalf("database child spans of the request = %q, want its statements with placeholders", statements)
		}

		// The queue's polling and the sender's claims, made under no span,
		// are not traced: every statement span has a parent.
		for _, s := range tr.spans() {
			if attr(s, "db.query.text")+attr(s, "db.statement") != "" && !s.Parent.IsValid() {
				t.Fatalf("a statement traced as a root span: %s %s", s.Name, attr(s, "db.query.text"))
			}
		}

		job := tr.span(t, "the span of the job's work", func(s tracetest.SpanStub) bool {
			return s.SpanKind == trace.SpanKindConsumer && s.Name == "river.work/qr_attempt"
		})
		if !linkedTo(job, tid) {
			t.Fatalf("job span links %v, want one into the request's trace %s", job.Links, tid)
		}
		if job.SpanContext.TraceID() == tid {
			t.Fatal("the job's span is in the request's trace; it should be linked, not a child")
		}
		paydtest.Eventually(t, "the pre-check", func() bool { return len(tr.rc.requests()) == 1 })
		ptid, _ := traceparent(t, tr.rc.requests()[0])
		if ptid != job.SpanContext.TraceID() {
			t.Fatalf("pre-check traceparent trace %s, want the job's %s", ptid, job.SpanContext.TraceID())
		}

		// Allowed, the job asks the bank for the attempt: a client span.
		bank := tr.span(t, "the provider call of the job", func(s tracetest.SpanStub) bool {
			return s.Name == "provider create_attempt" && s.SpanContext.TraceID() == job.SpanContext.TraceID()
		})
		if bank.SpanKind != trace.SpanKindClient || attr(bank, "payd.provider.name") != "sandbox" {
			t.Fatalf("provider span = %v %v", bank.SpanKind, bank.Attributes)
		}

		// /metrics is what it was: Prometheus, no OpenTelemetry metrics,
		// and its scrapes are not traced.
		m := string(tr.env.Do("GET", tr.env.Admin.URL, "/metrics", nil, nil).Expect(t, 200).Body)
		if !strings.Contains(m, `payd_http_requests_total{route="POST /v1/payments",server="merchant",status="201"} 1`) ||
			strings.Contains(m, "http_server_request") || strings.Contains(m, "otel") {
			t.Fatalf("/metrics with tracing on:\n%s", m)
		}
		for _, s := range tr.spans() {
			if strings.Contains(s.Name, "/metrics") {
				t.Fatalf("a scrape was traced: %s", s.Name)
			}
		}

		var line map[string]any
		for _, l := range tr.logLines(t) {
			if l["msg"] == "request" && l["route"] == "POST /v1/payments" {
				line = l
			}
		}
		if line == nil || line["request_id"] == nil || line["trace_id"] != tid.String() ||
			line["span_id"] != server.SpanContext.SpanID().String() {
			t.Fatalf("access log line = %v, want request_id, trace_id %s and span_id %s", line, tid, server.SpanContext.SpanID())
		}
	})
}

// TestTraceAcrossWebhookDelivery: a merchant's traceparent becomes the
// parent of payd's server span; the delivery of the event that request
// caused carries a traceparent in the same trace; its retry carries a new
// trace id, whose span is linked to the first trace.
func TestTraceAcrossWebhookDelivery(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		tr := startTraced(t, b)
		tr.rc.answer = func(n int) int {
			if n == 1 {
				return 500
			}
			return 200
		}
		shop := tr.env.NewShop(payd.RegionRU, "")
		c := tr.env.As(shop, false)
		c.Post("/v1/webhook-endpoints", key(), map[string]any{
			"url": tr.rc.srv.URL + "/hook", "events": []string{"payment.canceled"}}).Expect(t, 201)
		pay := c.Post("/v1/payments", key(), newPayment("redirect")).Expect(t, 201).JSON(t)

		const merchantTrace, merchantSpan = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
		c.Do("POST", "/v1/payments/"+pay["id"].(string)+"/cancel", nil,
			"Idempotency-Key", key(), "traceparent", "00-"+merchantTrace+"-"+merchantSpan+"-01").Expect(t, 200)
		server := tr.span(t, "the server span of the cancel", func(s tracetest.SpanStub) bool {
			return s.SpanKind == trace.SpanKindServer && s.Name == "POST /v1/payments/{payment_id}/cancel"
		})
		if server.SpanContext.TraceID().String() != merchantTrace || server.Parent.SpanID().String() != merchantSpan || !server.Parent.IsRemote() {
			t.Fatalf("server span in trace %s under %s, want the merchant's %s under %s",
				server.SpanContext.TraceID(), server.Parent.SpanID(), merchantTrace, merchantSpan)
		}

		paydtest.Eventually(t, "the first delivery", func() bool { return len(tr.rc.requests()) == 1 })
		first, firstParent := traceparent(t, tr.rc.requests()[0])
		if first.String() != merchantTrace {
			t.Fatalf("first delivery in trace %s, want the request's %s", first, merchantTrace)
		}
		client := tr.span(t, "the client span of the first delivery", func(s tracetest.SpanStub) bool {
			return s.SpanContext.SpanID() == firstParent
		})
		if client.SpanKind != trace.SpanKindClient || attr(client, "http.response.status_code") != "500" {
			t.Fatalf("the traceparent's span = %s %v %v", client.Name, client.SpanKind, client.Attributes)
		}

		// The retry, a minute later on the service clock.
		tr.env.Settle(t) // the failure recorded, its retry timed, before the clock moves
		paydtest.Eventually(t, "the retry", func() bool {
			tr.env.Clock.Advance(payd.RetrySchedule()[0] + time.Second)
			return len(tr.rc.requests()) == 2
		})
		retry, _ := traceparent(t, tr.rc.requests()[1])
		if retry == first {
			t.Fatal("the retry continues the first trace; it should start its own")
		}
		attempt := tr.span(t, "the span of the retry", func(s tracetest.SpanStub) bool {
			return s.Name == "webhook.deliver" && s.SpanContext.TraceID() == retry
		})
		if attr(attempt, "payd.delivery.attempt") != "2" || !linkedTo(attempt, first) || attempt.Parent.IsValid() {
			t.Fatalf("retry span: attempt %s, parent %v, links %v; want attempt 2, a root linked to trace %s",
				attr(attempt, "payd.delivery.attempt"), attempt.Parent, attempt.Links, first)
		}
	})
}

// TestTraceAttributesHoldNoSecret runs a card payment through the payer's
// pages with a signed webhook to the merchant, then reads every span name,
// attribute, event and link of it: none holds the shop's secret key (nor
// its Basic credentials), the webhook signing secret, the operator's token,
// the one-time checkout token, the 3-D Secure code, the order id or the
// description (statements are traced without their values).
func TestTraceAttributesHoldNoSecret(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		tr := startTraced(t, b)
		shop := tr.env.NewShop(payd.RegionRU, "")
		c := tr.env.As(shop, false)
		ep := c.Post("/v1/webhook-endpoints", key(), map[string]any{
			"url": tr.rc.srv.URL + "/hook?token=merchant-url-secret", "events": []string{"payment.succeeded"}}).Expect(t, 201).JSON(t)
		body := newPayment("redirect")
		pay := c.Post("/v1/payments", key(), body).Expect(t, 201).JSON(t)
		confirmation := pay["confirmation"].(map[string]any)["confirmation_url"].(string)
		payer := tr.env.Payer()
		bank := payer.Choose(confirmation, "bank_card")
		payer.PayCard(bank, sandbank.ThreeDSCode)
		c.WaitStatus(pay["id"].(string), "succeeded")
		paydtest.Eventually(t, "the delivery", func() bool { return len(tr.rc.requests()) == 1 })
		tr.span(t, "the delivery's span", func(s tracetest.SpanStub) bool { return s.Name == "webhook.deliver" })

		secrets := map[string]string{
			"secret key":         shop.TestKey,
			"live key":           shop.LiveKey,
			"webhook secret":     ep["secret"].(string),
			"operator token":     tr.env.Token,
			"checkout token":     confirmation[strings.LastIndex(confirmation, "/")+1:],
			"3-D Secure code":    sandbank.ThreeDSCode,
			"order id":           body["order_id"].(string),
			"description":        body["description"].(string),
			"endpoint URL token": "merchant-url-secret",
		}
		seen := 0
		check := func(where, v string) {
			seen++
			for what, s := range secrets {
				if s != "" && strings.Contains(v, s) {
					t.Errorf("%s holds the %s: %s", where, what, v)
				}
			}
		}
		for _, s := range tr.spans() {
			check("span name", s.Name)
			check("status of "+s.Name, s.Status.Description)
			for _, kv := range s.Attributes {
				check(s.Name+" "+string(kv.Key), kv.Value.Emit())
			}
			for _, ev := range s.Events {
				check(s.Name+" event", ev.Name)
				for _, kv := range ev.Attributes {
					check(s.Name+" event "+string(kv.Key), kv.Value.Emit())
				}
			}
			for _, l := range s.Links {
				for _, kv := range l.Attributes {
					check(s.Name+" link "+string(kv.Key), kv.Value.Emit())
				}
			}
		}
		logTraces(t, tr.spans())
		if seen < 100 {
			t.Fatalf("only %d values read: the flow was not traced", seen)
		}
	})
}
