package api_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
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
		// Nor its hash, to an operator.
		if op := env.AdminDo("GET", "/admin/v1/payments/"+id, nil).Expect(t, 200); strings.Contains(string(op.Body), "checkout_token") ||
			!strings.Contains(string(op.Body), id) {
			t.Fatalf("the operator's payment: %s", op.Body)
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

// TestPaymentKZQR checks the kz region's QR method, kz_qr: a `qr`
// confirmation with a kz key is paid by it, GET /payment-methods lists it,
// the hosted page offers it beside the card, and its payments take the
// default QR tariff and partial refunds.
func TestPaymentKZQR(t *testing.T) {
	t.Parallel()
	kzt := func(value string, extra map[string]any) map[string]any {
		body := newPayment(value, extra)
		body["amount"] = map[string]any{"value": value, "currency": "KZT"}
		return body
	}
	qr := map[string]any{"confirmation": map[string]any{"type": "qr"}}
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		t.Run("payment methods", func(t *testing.T) {
			t.Parallel()
			env := paydtest.Start(t, b, nil)
			c := env.As(env.NewShop(payd.RegionKZ, ""), false)
			var page struct{ Items []map[string]any }
			c.Get("/v1/payment-methods?currency=KZT").Expect(t, 200).Decode(t, &page)
			var found map[string]any
			for _, m := range page.Items {
				if m["type"] == payd.MethodKZQR {
					found = m
				}
			}
			if found == nil || found["available"] != true || found["two_stage"] != false || found["partial_refund"] != true ||
				found["min_amount"].(map[string]any)["value"] != "100.00" || found["max_amount"].(map[string]any)["value"] != "5000000.00" ||
				fmt.Sprint(found["currencies"]) != "[KZT]" {
				t.Fatalf("kz_qr in %v", page.Items)
			}
			c.Get("/v1/payment-methods?currency=USD").Expect(t, 200).Decode(t, &page)
			for _, m := range page.Items {
				if m["type"] == payd.MethodKZQR {
					t.Fatalf("kz_qr listed in USD: %v", m)
				}
			}
			// A ru shop has no kz_qr, and a kz shop no sbp.
			ru := env.As(env.NewShop(payd.RegionRU, ""), false)
			ru.Get("/v1/payment-methods").Expect(t, 200).Decode(t, &page)
			for _, m := range page.Items {
				if m["type"] == payd.MethodKZQR {
					t.Fatalf("kz_qr listed in ru: %v", m)
				}
			}
			ru.Post("/v1/payments", key(), newPayment("100.00", map[string]any{"payment_method": map[string]any{"type": "kz_qr"}})).
				ExpectError(t, 422, payd.CodeMethodUnavailable, "payment_method.type")
		})
		t.Run("qr confirmation", func(t *testing.T) {
			t.Parallel()
			env := paydtest.Start(t, b, nil)
			shop := env.NewShop(payd.RegionKZ, "")
			c := env.As(shop, false)
			p := c.Post("/v1/payments", key(), kzt("1000.00", qr)).Expect(t, 201).JSON(t)
			id := p["id"].(string)
			if data := p["confirmation"].(map[string]any)["confirmation_data"].(string); !strings.HasPrefix(data, env.API.URL+"/sandbox/kz-qr/sbx_") {
				t.Fatalf("confirmation_data = %q, want the kz QR app page", data)
			}
			c.Post("/v1/test/payments/"+id+"/simulate", key(), map[string]any{"outcome": "succeed"}).Expect(t, 202)
			pay := c.WaitStatus(id, "succeeded")
			if pay["payment_method"].(map[string]any)["type"] != "kz_qr" || pay["fee_amount"].(map[string]any)["value"] != "7.00" {
				t.Fatalf("paid = %v, want kz_qr with the 0.70%% fee", pay)
			}
			r := c.Post("/v1/refunds", key(), map[string]any{"payment_id": id, "amount": map[string]any{"value": "300.00", "currency": "KZT"}}).
				Expect(t, 201).JSON(t)
			waitRefund(t, c, r["id"].(string), "succeeded")
			if left := c.Get("/v1/payments/"+id).Expect(t, 200).JSON(t)["refundable_amount"].(map[string]any)["value"]; left != "700.00" {
				t.Fatalf("refundable after a partial refund: %v", left)
			}

			// A QR code in kz is paid by kz_qr alone, in KZT.
			for _, m := range []string{"sbp", "bank_card"} {
				c.Post("/v1/payments", key(), kzt("1000.00", map[string]any{"confirmation": qr["confirmation"], "payment_method": map[string]any{"type": m}})).
					ExpectError(t, 422, payd.CodeMethodUnavailable, "payment_method.type")
			}
			usd := newPayment("10.00", qr)
			usd["amount"] = map[string]any{"value": "10.00", "currency": "USD"}
			c.Post("/v1/payments", key(), usd).ExpectError(t, 422, payd.CodeMethodUnavailable, "")
			// Switched off by the operator, it is gone.
			env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"methods_disabled": []string{"kz_qr"}}).Expect(t, 200)
			c.Post("/v1/payments", key(), kzt("1000.00", qr)).ExpectError(t, 422, payd.CodeMethodUnavailable, "")
		})
		t.Run("hosted page", func(t *testing.T) {
			t.Parallel()
			env := paydtest.Start(t, b, nil)
			c := env.As(env.NewShop(payd.RegionKZ, ""), false)
			p := c.Post("/v1/payments", key(), kzt("1500.00", nil)).Expect(t, 201).JSON(t)
			url := p["confirmation"].(map[string]any)["confirmation_url"].(string)
			payer := env.Payer()
			pg := payer.Get(url)
			if !strings.Contains(pg.Body, `id="method-bank_card"`) || !strings.Contains(pg.Body, `id="method-kz_qr"`) || strings.Contains(pg.Body, `id="method-sbp"`) {
				t.Fatalf("kz checkout page:\n%s", pg.Body)
			}
			app := payer.Choose(url, "kz_qr")
			if !strings.HasPrefix(app, "/sandbox/kz-qr/sbx_") && !strings.HasPrefix(app, env.API.URL+"/sandbox/kz-qr/sbx_") {
				t.Fatalf("choosing kz_qr sent the payer to %s", app)
			}
			pg = payer.Get(app)
			res := payer.Post(app, "csrf", pg.CSRF(), "action", "pay")
			if res.Status != 303 {
				t.Fatalf("pay: %d\n%s", res.Status, res.Body)
			}
			pay := c.WaitStatus(p["id"].(string), "succeeded")
			if pay["payment_method"].(map[string]any)["type"] != "kz_qr" {
				t.Fatalf("paid = %v", pay)
			}
		})
	})
}
