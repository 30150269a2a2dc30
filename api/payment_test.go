package api_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/paydtest"
)

func newPayment(value string, extra map[string]any) map[string]any {
	body := map[string]any{
		"amount":       map[string]any{"value": value, "currency": "RUB"},
		"order_id":     fmt.Sprintf("order-%d", time.Now().UnixNano()),
		"description":  "Order with two books",
		"confirmation": map[string]any{"type": "redirect", "return_url": "https://shop.example.com/return"},
	}
	for k, v := range extra {
		body[k] = v
	}
	return body
}

var idemSeq struct {
	sync.Mutex
	n int
}

func key() string {
	idemSeq.Lock()
	defer idemSeq.Unlock()
	idemSeq.n++
	return fmt.Sprintf("idem-key-%06d", idemSeq.n)
}

func TestPaymentRedirectCardSucceeds(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		shop := env.NewShop(payd.RegionRU, "")
		env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"display_name": "Book Corner", "statement_name": "Book corner #1 (Moscow)"}).Expect(t, 200)
		c := env.As(shop, false)
		created := c.Post("/v1/payments", key(), newPayment("1000.00", nil)).Expect(t, 201).JSON(t)
		id := created["id"].(string)
		conf := created["confirmation"].(map[string]any)
		url, _ := conf["confirmation_url"].(string)
		if created["status"] != "pending" || created["paid"] != false || created["refundable"] != false ||
			created["merchant_display_name"] != "Book Corner" || created["statement_descriptor"] != "BOOK CORNER 1 MOSCOW" ||
			!strings.Contains(url, "/checkout/") || created["test"] != true {
			t.Fatalf("created = %v", created)
		}
		if v := created["captured_amount"].(map[string]any)["value"]; v != "0.00" {
			t.Fatalf("captured_amount before capture = %v", v)
		}
		if _, ok := created["fee_amount"]; ok {
			t.Fatal("fee_amount before succeeded")
		}
		exp, _ := time.Parse(time.RFC3339, created["expires_at"].(string))
		if d := exp.Sub(env.Clock.Now()); d < 23*time.Hour || d > 25*time.Hour {
			t.Fatalf("default lifetime %v, want 24h", d)
		}
		// The one-time address is never shown again.
		got := c.Get("/v1/payments/"+id).Expect(t, 200)
		if strings.Contains(string(got.Body), "/checkout/") {
			t.Fatal("GET shows the confirmation_url")
		}
		// Before a method is chosen there is nothing to simulate.
		c.Post("/v1/test/payments/"+id+"/simulate", key(), map[string]any{"outcome": "succeed"}).
			ExpectError(t, 422, payd.CodeInvalidState, "")

		payer := env.Payer()
		page := payer.Get(url)
		for _, want := range []string{"Book Corner", "1\u00a0000,00\u00a0₽", "Order with two books", "method-bank_card", "method-sbp"} {
			if !strings.Contains(page.Body, want) {
				t.Fatalf("checkout page lacks %q:\n%s", want, page.Body)
			}
		}
		bank := payer.Choose(url, "bank_card")
		if !strings.Contains(bank, "/sandbox/bank/sbx_") {
			t.Fatalf("sent to %s", bank)
		}
		// The token is spent.
		if pg := payer.Get(url); pg.Status != 404 {
			t.Fatalf("second visit of the checkout: %d", pg.Status)
		}
		csrf := payer.Get(bank).CSRF()
		done := payer.PayCard(bank, "123456")
		if done.Status != 303 || done.Location != "https://shop.example.com/return" {
			t.Fatalf("after 3-D Secure: %d %s", done.Status, done.Location)
		}
		// A second submission of a decided operation: 409, already processed.
		if again := payer.Post(bank+"/3ds", "csrf", csrf, "code", "123456"); again.Status != 409 {
			t.Fatalf("second 3-D Secure submission: %d", again.Status)
		}
		pay := c.WaitStatus(id, "succeeded")
		if pay["paid"] != true || pay["refundable"] != true ||
			pay["captured_amount"].(map[string]any)["value"] != "1000.00" ||
			pay["fee_amount"].(map[string]any)["value"] != "28.00" ||
			pay["refundable_amount"].(map[string]any)["value"] != "1000.00" || pay["captured_at"] == nil {
			t.Fatalf("succeeded = %v", pay)
		}
		card := pay["payment_method"].(map[string]any)["card"].(map[string]any)
		if card["first6"] != "220220" || card["last4"] == "" || card["brand"] == "" {
			t.Fatalf("card = %v", card)
		}
		auth := pay["authorization_details"].(map[string]any)
		if auth["rrn"] == "" || auth["three_d_secure"].(map[string]any)["applied"] != true {
			t.Fatalf("authorization = %v", auth)
		}
		// One event, with the payment as it was.
		var events struct {
			Items []map[string]any
		}
		c.Get("/v1/events?object_id="+id).Expect(t, 200).Decode(t, &events)
		if len(events.Items) != 1 || events.Items[0]["type"] != "payment.succeeded" {
			t.Fatalf("events = %v", events.Items)
		}
		obj := events.Items[0]["data"].(map[string]any)["object"].(map[string]any)
		if obj["status"] != "succeeded" || obj["id"] != id {
			t.Fatalf("event object = %v", obj)
		}
	})
}

func TestPaymentTwoStage(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		created := c.Post("/v1/payments", key(), newPayment("100.00", map[string]any{"capture": false})).Expect(t, 201).JSON(t)
		id := created["id"].(string)
		payer := env.Payer()
		payer.PayCard(payer.Choose(created["confirmation"].(map[string]any)["confirmation_url"].(string), "bank_card"), "123456")
		pay := c.WaitStatus(id, "waiting_for_capture")
		if pay["paid"] != false || pay["authorized_at"] == nil || pay["captured_amount"].(map[string]any)["value"] != "0.00" {
			t.Fatalf("authorized = %v", pay)
		}
		capture := func(body any) *paydtest.Response {
			return c.Post("/v1/payments/"+id+"/capture", key(), body)
		}
		capture(map[string]any{"amount": map[string]any{"value": "100.01", "currency": "RUB"}}).ExpectError(t, 400, payd.CodeInvalidRequest, "amount.value")
		capture(map[string]any{"amount": map[string]any{"value": "10.00", "currency": "KZT"}}).ExpectError(t, 400, payd.CodeInvalidRequest, "amount.currency")
		capture(map[string]any{"amount": map[string]any{"value": "0.00", "currency": "RUB"}}).ExpectError(t, 400, payd.CodeInvalidRequest, "amount.value")
		capture(map[string]any{"receipt": map[string]any{"items": []any{}}}).ExpectError(t, 422, payd.CodeReceiptInvalid, "receipt")
		done := capture(map[string]any{"amount": map[string]any{"value": "60.00", "currency": "RUB"}}).Expect(t, 200).JSON(t)
		if done["status"] != "succeeded" || done["amount"].(map[string]any)["value"] != "100.00" ||
			done["captured_amount"].(map[string]any)["value"] != "60.00" || done["fee_amount"].(map[string]any)["value"] != "1.68" {
			t.Fatalf("after partial capture = %v", done)
		}
		capture(nil).ExpectError(t, 422, payd.CodeInvalidState, "")
		c.Post("/v1/payments/"+id+"/cancel", key(), nil).ExpectError(t, 422, payd.CodeInvalidState, "")
	})
}

func TestPaymentCancel(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		created := c.Post("/v1/payments", key(), newPayment("100.00", nil)).Expect(t, 201).JSON(t)
		id := created["id"].(string)
		res := c.Post("/v1/payments/"+id+"/cancel", key(), nil).Expect(t, 200).JSON(t)
		cd := res["cancellation_details"].(map[string]any)
		if res["status"] != "canceled" || cd["party"] != "merchant" || res["canceled_at"] == nil {
			t.Fatalf("canceled = %v", res)
		}
		c.Post("/v1/payments/"+id+"/cancel", key(), nil).ExpectError(t, 422, payd.CodeInvalidState, "")
		c.Post("/v1/payments/"+id+"/capture", key(), nil).ExpectError(t, 422, payd.CodeInvalidState, "")
		// The checkout of a canceled payment is closed.
		if pg := env.Payer().Get(created["confirmation"].(map[string]any)["confirmation_url"].(string)); pg.Status != 404 {
			t.Fatalf("checkout after cancel: %d", pg.Status)
		}
		// Another shop cannot see or touch it.
		other := env.As(env.NewShop(payd.RegionRU, ""), false)
		other.Get("/v1/payments/"+id).ExpectError(t, 404, payd.CodeNotFound, "")
		other.Post("/v1/payments/"+id+"/cancel", key(), nil).ExpectError(t, 404, payd.CodeNotFound, "")
	})
}
