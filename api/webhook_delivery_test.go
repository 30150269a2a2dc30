package api_test

import (
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/paydtest"
	"github.com/paydhq/payd/webhook"
)

// receiver is a merchant's HTTPS webhook endpoint on 127.0.0.1.
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []delivered
	answer func(n int) int // status for the n-th delivery (1-based)
}

type delivered struct {
	header http.Header
	body   []byte
	at     time.Time
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{answer: func(int) int { return 200 }}
	rc.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, delivered{header: r.Header.Clone(), body: body, at: time.Now()})
		n := len(rc.got)
		answer := rc.answer
		rc.mu.Unlock()
		w.WriteHeader(answer(n))
		io.WriteString(w, strings.Repeat("r", 5000))
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) deliveries() []delivered {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivered(nil), rc.got...)
}

// startWithReceiver runs the service trusting the receiver's certificate
// and allowing its loopback host, as --webhook-ca-file and
// --webhook-allow-host do for local development.
func startWithReceiver(t *testing.T, b paydtest.Backend, rc *receiver) *paydtest.Env {
	pool := x509.NewCertPool()
	pool.AddCert(rc.srv.Certificate())
	return paydtest.Start(t, b, &paydtest.Options{WebhookAllowHosts: []string{"127.0.0.1"}, WebhookRootCAs: pool})
}

func TestWebhookDeliverySigned(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		rc := newReceiver(t)
		env := startWithReceiver(t, b, rc)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		ep := c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": rc.srv.URL + "/hook", "events": []string{"payment.succeeded"}}).Expect(t, 201).JSON(t)
		secret := ep["secret"].(string)
		pay := c.Post("/v1/payments", key(), newPayment("100.00", map[string]any{"confirmation": map[string]any{"type": "qr"}})).Expect(t, 201).JSON(t)
		c.Post("/v1/test/payments/"+pay["id"].(string)+"/simulate", key(), map[string]any{"outcome": "succeed"}).Expect(t, 202)
		paydtest.Eventually(t, "the delivery", func() bool { return len(rc.deliveries()) == 1 })
		d := rc.deliveries()[0]
		if d.header.Get("Content-Type") != "application/json" || d.header.Get("User-Agent") != "Service-Webhooks/1.0" {
			t.Fatalf("headers = %v", d.header)
		}
		evID := d.header.Get("X-Service-Event-Id")
		if err := webhook.Verify(d.header.Get("X-Service-Signature"), d.body, []string{secret}, time.Now()); err != nil {
			t.Fatalf("signature: %v (%s)", err, d.header.Get("X-Service-Signature"))
		}
		stored := c.Get("/v1/events/" + evID).Expect(t, 200)
		if string(stored.Body) != string(d.body) {
			t.Fatalf("delivered body differs from the stored event:\n%s\n%s", d.body, stored.Body)
		}
		var list struct {
			Items []struct {
				ID       string
				Delivery struct {
					Status           string
					Attempts         int
					LastResponseCode int `json:"last_response_code"`
				}
			}
		}
		paydtest.Eventually(t, "the summary", func() bool {
			c.Get("/v1/events?object_id="+pay["id"].(string)).Expect(t, 200).Decode(t, &list)
			return len(list.Items) == 1 && list.Items[0].Delivery.Status == "succeeded"
		})
		if list.Items[0].Delivery.Attempts != 1 || list.Items[0].Delivery.LastResponseCode != 200 {
			t.Fatalf("summary = %+v", list.Items[0].Delivery)
		}
		// The operator sees the attempt, with the answer cut to 4 KB.
		var log struct {
			Items []payd.DeliveryAttempt
		}
		env.AdminDo("GET", "/admin/v1/events/"+evID+"/attempts", nil).Expect(t, 200).Decode(t, &log)
		if len(log.Items) != 1 || log.Items[0].StatusCode != 200 || len(log.Items[0].ResponseBody) != 4096 {
			t.Fatalf("attempt log = %+v", log.Items)
		}
	})
}
