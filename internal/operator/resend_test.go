package operator_test

import (
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestSupportResendsEvent: support (and risk and admin) deliver any
// merchant's event again, byte for byte, by its id; finance is refused; the
// resend is in the operator audit log under the person and in the
// merchant's audit log as the operator's; an unknown event is not_found
// and changes nothing.
func TestSupportResendsEvent(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		var mu sync.Mutex
		got := map[string][]string{} // event id -> bodies delivered
		rc := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			mu.Lock()
			id := r.Header.Get("X-Service-Event-Id")
			got[id] = append(got[id], string(body))
			mu.Unlock()
		}))
		t.Cleanup(rc.Close)
		delivered := func(id string) []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), got[id]...)
		}
		pool := x509.NewCertPool()
		pool.AddCert(rc.Certificate())
		env := startStaff(t, b, &paydtest.Options{WebhookAllowHosts: []string{"127.0.0.1"}, WebhookRootCAs: pool})
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		c.Post("/v1/webhook-endpoints", "endpoint-resend", map[string]any{"url": rc.URL + "/hook", "events": []string{"payment.succeeded"}}).Expect(t, 201)
		p := c.Post("/v1/payments", "payment-resend", map[string]any{"amount": map[string]any{"value": "100.00", "currency": "RUB"},
			"order_id": "resend-1", "confirmation": map[string]any{"type": "qr"}}).Expect(t, 201).JSON(t)
		c.Post("/v1/test/payments/"+p["id"].(string)+"/simulate", "simulate-resend", map[string]any{"outcome": "succeed"}).Expect(t, 202)
		var evID string
		paydtest.Eventually(t, "the first delivery", func() bool {
			mu.Lock()
			defer mu.Unlock()
			for id := range got {
				evID = id
			}
			return evID != ""
		})

		env.as(payd.StaffFinance, "POST", "/admin/v1/events/"+evID+"/resend", nil).ExpectError(t, 403, payd.CodeForbidden, "")
		ans := env.as(payd.StaffSupport, "POST", "/admin/v1/events/"+evID+"/resend", nil).Expect(t, 200).JSON(t)
		if ans["id"] != evID || ans["object"] != "event" || ans["type"] != string(payd.EventPaymentSucceeded) || ans["delivery"] == nil {
			t.Fatalf("resend answer = %v", ans)
		}
		paydtest.Eventually(t, "the resent delivery", func() bool { return len(delivered(evID)) == 2 })
		if d := delivered(evID); d[0] != d[1] {
			t.Errorf("the resend is not the same event, byte for byte:\n%s\n%s", d[0], d[1])
		}
		env.as(payd.StaffRisk, "POST", "/admin/v1/events/"+evID+"/resend", nil).Expect(t, 200)
		paydtest.Eventually(t, "the risk member's resend", func() bool { return len(delivered(evID)) == 3 })

		// Who did it: the person in the operator's log, the operator in
		// the merchant's.
		entries := auditItems(t, env, "?action=events.resend")
		if len(entries) != 2 || entries[1]["staff_id"] != env.ids[payd.StaffSupport] || entries[1]["object_id"] != evID ||
			entries[1]["merchant_id"] != shop.MerchantID {
			t.Errorf("operator audit of the resends = %v, want the support member's first, naming the event and merchant", entries)
		}
		var merchantLog []map[string]any
		for _, it := range env.as(payd.StaffAdmin, "GET", "/admin/v1/merchants/"+shop.MerchantID+"/audit", nil).Expect(t, 200).JSON(t)["items"].([]any) {
			if e := it.(map[string]any); e["action"] == string(payd.AuditResendEvent) {
				merchantLog = append(merchantLog, e)
			}
		}
		if len(merchantLog) != 2 || merchantLog[0]["object_id"] != evID || merchantLog[0]["user_id"] != nil || merchantLog[0]["shop_id"] != shop.ID {
			t.Errorf("merchant audit of the resends = %v, want two of the operator (no user) naming the event and shop", merchantLog)
		}

		for _, id := range []string{"evt_00000000000000000000000000", "not-an-id"} {
			env.as(payd.StaffSupport, "POST", "/admin/v1/events/"+id+"/resend", nil).ExpectError(t, 404, payd.CodeNotFound, "")
		}
		if n := len(auditItems(t, env, "?action=events.resend")); n != 2 {
			t.Errorf("%d resend entries after the refused ones, want 2", n)
		}
	})
}
