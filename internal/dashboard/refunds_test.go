package dashboard_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// The refunds page lists the shop's refunds, each linking to its payment,
// and its status filter keeps only refunds of the status.
func TestRefundsList(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	shop := env.NewShop(payd.RegionRU, "")
	c := env.As(shop, false)
	id := paidPayment(t, c, "300.00", "order-r1", false)
	refund := c.Post("/v1/refunds", idemKey(), map[string]any{"payment_id": id,
		"amount": map[string]any{"value": "100.00", "currency": "RUB"}}).Expect(t, 201).JSON(t)
	other := paidPayment(t, c, "50.00", "order-r2", false) // no refund

	v := signedIn(t, env, shop, payd.RoleViewer)
	p := v.get("/dashboard/test/refunds")
	if p.status != 200 || !strings.Contains(p.body, refund["id"].(string)) ||
		!strings.Contains(p.body, `href="/dashboard/test/payments/`+id+`"`) || strings.Contains(p.body, other) {
		t.Fatalf("refunds page = %d\n%s", p.status, p.body)
	}
	status := c.Get("/v1/refunds/"+refund["id"].(string)).Expect(t, 200).JSON(t)["status"].(string)
	if p := v.get("/dashboard/test/refunds?status=" + status); !strings.Contains(p.body, refund["id"].(string)) {
		t.Fatalf("filter by its status %s lost the refund\n%s", status, p.body)
	}
	for _, s := range []string{"pending", "succeeded", "canceled"} {
		if s == status {
			continue
		}
		if p := v.get("/dashboard/test/refunds?status=" + s); p.status != 200 || strings.Contains(p.body, refund["id"].(string)) ||
			!strings.Contains(p.body, `id="no-refunds"`) {
			t.Fatalf("filter by %s shows the %s refund (%d)", s, status, p.status)
		}
	}
	if p := v.get("/dashboard/test/refunds?status=lost"); p.status != http.StatusBadRequest || !strings.Contains(p.body, `role="alert"`) {
		t.Fatalf("unknown status filter = %d", p.status)
	}
	// Live data holds no test refund.
	if p := v.get("/dashboard/refunds"); p.status != 200 || strings.Contains(p.body, refund["id"].(string)) {
		t.Fatalf("live refunds page = %d, shows the test refund", p.status)
	}
}
