package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// linkEnv is a service at stage M5 with a test shop.
func linkEnv(t *testing.T, b paydtest.Backend) (*paydtest.Env, *paydtest.Shop, *paydtest.Client) {
	t.Helper()
	env := paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM5})
	shop := env.NewShop(payd.RegionRU, "")
	env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"display_name": "Book Corner"}).Expect(t, 200)
	return env, shop, env.As(shop, false)
}

func newLink(extra map[string]any) map[string]any {
	body := map[string]any{"description": "Two books"}
	for k, v := range extra {
		body[k] = v
	}
	return body
}

// linkPayment submits the link page's form (with amount on an open link)
// and returns the answer.
func linkPayment(t *testing.T, payer *paydtest.Payer, url, amount string) *paydtest.Page {
	t.Helper()
	pg := payer.Get(url)
	if pg.Status != 200 {
		t.Fatalf("link page: %d\n%s", pg.Status, pg.Body)
	}
	kv := []string{"token", pg.Field("token"), "csrf", pg.Field("csrf")}
	if amount != "" {
		kv = append(kv, "amount", amount)
	}
	return payer.Post(url, kv...)
}

func TestPaymentLinkCreateGetList(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := linkEnv(t, b)
		exp := env.Clock.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
		body := newLink(map[string]any{"amount": rub("1500.00"), "order_id": "inv-1", "capture": false,
			"expires_at": exp.Format(time.RFC3339), "return_url": "https://shop.example.com/back",
			"metadata": map[string]any{"cart": "7"}, "customer": map[string]any{"email": "a@example.com"}})
		k := key()
		created := c.Post("/v1/payment-links", k, body).Expect(t, 201).JSON(t)
		id, _ := created["id"].(string)
		if !payd.ValidID(payd.PrefixPaymentLink, id) || created["status"] != "active" || created["test"] != true ||
			created["capture"] != false || created["reusable"] != false || created["order_id"] != "inv-1" ||
			created["url"] != env.API.URL+"/links/"+id || created["expires_at"] != exp.Format(time.RFC3339) {
			t.Fatalf("created link = %v", created)
		}
		if p, _ := created["payments"].([]any); p == nil || len(p) != 0 {
			t.Fatalf("payments of a new link = %v, want []", created["payments"])
		}
		// Replay: the first answer, 200.
		replay := c.Post("/v1/payment-links", k, body).Expect(t, 200).JSON(t)
		if replay["id"] != id {
			t.Fatalf("replay made another link: %v", replay["id"])
		}
		c.Post("/v1/payment-links", k, newLink(nil)).ExpectError(t, 409, payd.CodeIdempotencyConflict, "")
		got := c.Get("/v1/payment-links/"+id).Expect(t, 200).JSON(t)
		if got["id"] != id || got["return_url"] != "https://shop.example.com/back" {
			t.Fatalf("GET = %v", got)
		}
		// Pages, newest first.
		ids := []string{id}
		for range 4 {
			l := c.Post("/v1/payment-links", key(), newLink(nil)).Expect(t, 201).JSON(t)
			ids = append(ids, l["id"].(string))
		}
		var listed []string
		cursor := ""
		for {
			path := "/v1/payment-links?limit=2"
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			page := c.Get(path).Expect(t, 200).JSON(t)
			for _, it := range page["items"].([]any) {
				listed = append(listed, it.(map[string]any)["id"].(string))
			}
			next, _ := page["next_cursor"].(string)
			if next == "" {
				break
			}
			cursor = next
		}
		if len(listed) != 5 {
			t.Fatalf("listed %v", listed)
		}
		for i := range listed {
			if listed[i] != ids[len(ids)-1-i] {
				t.Fatalf("list order %v, want newest first of %v", listed, ids)
			}
		}
		c.Get("/v1/payment-links?limit=0").ExpectError(t, 400, payd.CodeInvalidRequest, "limit")
		c.Get("/v1/payment-links?limit=101").ExpectError(t, 400, payd.CodeInvalidRequest, "limit")

		// Another shop's link is not found; so is a live key's view of a
		// test link, and the live list is empty.
		other := env.As(env.NewShop(payd.RegionRU, ""), false)
		other.Get("/v1/payment-links/"+id).ExpectError(t, 404, payd.CodeNotFound, "")
		other.Post("/v1/payment-links/"+id+"/deactivate", key(), nil).ExpectError(t, 404, payd.CodeNotFound, "")
		if items := other.Get("/v1/payment-links").Expect(t, 200).JSON(t)["items"].([]any); len(items) != 0 {
			t.Fatalf("another shop lists %v", items)
		}
		shop := env.NewShop(payd.RegionRU, "")
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
		test, live := env.As(shop, false), env.As(shop, true)
		tl := test.Post("/v1/payment-links", key(), newLink(nil)).Expect(t, 201).JSON(t)
		live.Get("/v1/payment-links/"+tl["id"].(string)).ExpectError(t, 404, payd.CodeNotFound, "")
		if items := live.Get("/v1/payment-links").Expect(t, 200).JSON(t)["items"].([]any); len(items) != 0 {
			t.Fatalf("the live list shows test links: %v", items)
		}
		ll := live.Post("/v1/payment-links", key(), newLink(map[string]any{"amount": rub("100.00")})).Expect(t, 201).JSON(t)
		if ll["test"] != false {
			t.Fatalf("live link = %v", ll)
		}
	})
}

func TestPaymentLinkValidation(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := linkEnv(t, b)
		past := env.Clock.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
		tooLate := env.Clock.Now().Add(400 * 24 * time.Hour).UTC().Format(time.RFC3339)
		meta := map[string]any{}
		for i := range 17 {
			meta[fmt.Sprintf("k%d", i)] = "v"
		}
		tests := []struct {
			name   string
			body   map[string]any
			status int
			code   payd.ErrorCode
			param  string
		}{
			{"ErrDescriptionMissing", map[string]any{"amount": rub("10.00")}, 400, payd.CodeInvalidRequest, "description"},
			{"ErrDescriptionEmpty", map[string]any{"description": ""}, 400, payd.CodeInvalidRequest, "description"},
			{"ErrDescriptionLong", map[string]any{"description": strings.Repeat("d", 257)}, 400, payd.CodeInvalidRequest, "description"},
			{"ErrAmountFormat", newLink(map[string]any{"amount": rub("10")}), 400, payd.CodeInvalidRequest, "amount.value"},
			{"ErrAmountZero", newLink(map[string]any{"amount": rub("0.00")}), 400, payd.CodeInvalidRequest, "amount.value"},
			{"ErrAmountCurrency", newLink(map[string]any{"amount": map[string]any{"value": "1.00", "currency": "GBP"}}), 400, payd.CodeInvalidRequest, "amount.currency"},
			{"ErrAmountWithMin", newLink(map[string]any{"amount": rub("10.00"), "min_amount": rub("5.00")}), 400, payd.CodeInvalidRequest, "min_amount"},
			{"ErrAmountWithMax", newLink(map[string]any{"amount": rub("10.00"), "max_amount": rub("50.00")}), 400, payd.CodeInvalidRequest, "max_amount"},
			{"ErrMinAboveMax", newLink(map[string]any{"min_amount": rub("50.00"), "max_amount": rub("10.00")}), 400, payd.CodeInvalidRequest, "max_amount.value"},
			{"ErrCurrenciesDiffer", newLink(map[string]any{"min_amount": rub("5.00"), "max_amount": map[string]any{"value": "50.00", "currency": "KZT"}}), 400, payd.CodeInvalidRequest, "max_amount.currency"},
			{"ErrMinZero", newLink(map[string]any{"min_amount": rub("0.00")}), 400, payd.CodeInvalidRequest, "min_amount.value"},
			{"ErrOrderIDEmpty", newLink(map[string]any{"order_id": ""}), 400, payd.CodeInvalidRequest, "order_id"},
			{"ErrOrderIDLong", newLink(map[string]any{"order_id": strings.Repeat("o", 129)}), 400, payd.CodeInvalidRequest, "order_id"},
			{"ErrExpiresPast", newLink(map[string]any{"expires_at": past}), 400, payd.CodeInvalidRequest, "expires_at"},
			{"ErrExpiresTooLate", newLink(map[string]any{"expires_at": tooLate}), 400, payd.CodeInvalidRequest, "expires_at"},
			{"ErrReturnURLHTTP", newLink(map[string]any{"return_url": "http://shop.example.com/"}), 400, payd.CodeInvalidRequest, "return_url"},
			{"ErrReturnURLCredentials", newLink(map[string]any{"return_url": "https://u:p@shop.example.com/"}), 400, payd.CodeInvalidRequest, "return_url"},
			{"ErrReturnURLEmpty", newLink(map[string]any{"return_url": ""}), 400, payd.CodeInvalidRequest, "return_url"},
			{"ErrMetadata", newLink(map[string]any{"metadata": meta}), 400, payd.CodeInvalidRequest, "metadata"},
			{"ErrCustomerEmail", newLink(map[string]any{"customer": map[string]any{"email": strings.Repeat("e", 257)}}), 400, payd.CodeInvalidRequest, "customer.email"},
			{"ErrReceipt", newLink(map[string]any{"receipt": map[string]any{"profile": "ru"}}), 422, payd.CodeReceiptInvalid, "receipt"},
			{"ErrAmountAboveMethods", newLink(map[string]any{"amount": rub("300000.01")}), 422, payd.CodeAmountLimit, "amount.value"},
			{"ErrMinAboveMethods", newLink(map[string]any{"min_amount": rub("300000.01")}), 422, payd.CodeAmountLimit, "min_amount.value"},
			{"ErrMaxBelowMethods", newLink(map[string]any{"max_amount": rub("0.50")}), 422, payd.CodeAmountLimit, "max_amount.value"},
			{"ErrReadOnlyStatus", newLink(map[string]any{"status": "paid"}), 400, payd.CodeInvalidRequest, "status"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				c.Post("/v1/payment-links", key(), tt.body).ExpectError(t, tt.status, tt.code, tt.param)
			})
		}
		if items := c.Get("/v1/payment-links").Expect(t, 200).JSON(t)["items"].([]any); len(items) != 0 {
			t.Fatalf("refused requests created links: %v", items)
		}
		// A test key may return to a local address (reachability lifted);
		// the address is kept canonical.
		l := c.Post("/v1/payment-links", key(), newLink(map[string]any{"return_url": "https://LOCALHOST:8443/back"})).Expect(t, 201).JSON(t)
		if l["return_url"] != "https://localhost:8443/back" {
			t.Fatalf("return_url = %v", l["return_url"])
		}
		// Every reachability rule is lifted there, the IP notation and the
		// platform rule included: payd never connects to a return address.
		for raw, want := range map[string]string{
			"https://2130706433/back":      "https://127.0.0.1/back",
			"https://169.254.169.254/back": "https://169.254.169.254/back",
		} {
			l := c.Post("/v1/payment-links", key(), newLink(map[string]any{"return_url": raw})).Expect(t, 201).JSON(t)
			if l["return_url"] != want {
				t.Fatalf("return_url %s = %v, want %s", raw, l["return_url"], want)
			}
		}
		// A live key may not.
		shop := env.NewShop(payd.RegionRU, "")
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
		env.As(shop, true).Post("/v1/payment-links", key(), newLink(map[string]any{"return_url": "https://localhost/back"})).
			ExpectError(t, 400, payd.CodeInvalidRequest, "return_url")
		env.As(shop, true).Post("/v1/payment-links", key(), newLink(map[string]any{"return_url": "https://10.1.2.3/back"})).
			ExpectError(t, 400, payd.CodeInvalidRequest, "return_url")
		env.As(shop, true).Post("/v1/payment-links", key(), newLink(map[string]any{"return_url": "https://169.254.169.254/back"})).
			ExpectError(t, 400, payd.CodeInvalidRequest, "return_url")
		env.As(shop, true).Post("/v1/payment-links", key(), newLink(map[string]any{"return_url": "https://1572395042/back"})).
			ExpectError(t, 400, payd.CodeInvalidRequest, "return_url")
	})
}

func TestPaymentLinkDeactivate(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := linkEnv(t, b)
		l := c.Post("/v1/payment-links", key(), newLink(map[string]any{"amount": rub("100.00")})).Expect(t, 201).JSON(t)
		id := l["id"].(string)
		k := key()
		d := c.Post("/v1/payment-links/"+id+"/deactivate", k, nil).Expect(t, 200).JSON(t)
		if d["status"] != "deactivated" {
			t.Fatalf("deactivated = %v", d)
		}
		r := c.Post("/v1/payment-links/"+id+"/deactivate", k, nil).Expect(t, 200)
		if r.Header.Get("Idempotent-Replayed") != "true" {
			t.Error("the replay is not marked")
		}
		// A new key on a deactivated link: the link again, 200.
		if again := c.Post("/v1/payment-links/"+id+"/deactivate", key(), nil).Expect(t, 200).JSON(t); again["status"] != "deactivated" {
			t.Fatalf("second deactivation = %v", again)
		}
		c.Post("/v1/payment-links/"+id+"/deactivate", "", nil).ExpectError(t, 400, payd.CodeInvalidRequest, "Idempotency-Key")
		c.Post("/v1/payment-links/pl_00000000000000000000000000/deactivate", key(), nil).ExpectError(t, 404, payd.CodeNotFound, "")
		c.Get("/v1/payment-links/nope").ExpectError(t, 404, payd.CodeNotFound, "")
		// The page says so and creates nothing.
		payer := env.Payer()
		pg := payer.Get("/links/" + id)
		if pg.Status != http.StatusGone || !strings.Contains(pg.Body, `data-state="deactivated"`) {
			t.Fatalf("deactivated page: %d\n%s", pg.Status, pg.Body)
		}
		if got := c.Get("/v1/payment-links/"+id).Expect(t, 200).JSON(t)["payments"].([]any); len(got) != 0 {
			t.Fatalf("payments %v", got)
		}
	})
}

// payThrough pays a payment by card through the checkout page at to, with
// the 3-D Secure code that succeeds, and waits for it to succeed.
func payThrough(t *testing.T, c *paydtest.Client, payer *paydtest.Payer, to string) map[string]any {
	t.Helper()
	bank := payer.Choose(to, "bank_card")
	payer.PayCard(bank, "123456")
	var pay map[string]any
	paydtest.Eventually(t, "the link's payment to succeed", func() bool {
		pay = linkPayments(t, c, to)
		return pay != nil && pay["status"] == "succeeded"
	})
	return pay
}

// linkPayments finds the payment whose checkout is at to: the newest
// payment of the shop (the tests make one at a time).
func linkPayments(t *testing.T, c *paydtest.Client, _ string) map[string]any {
	t.Helper()
	items := c.Get("/v1/payments?limit=1").Expect(t, 200).JSON(t)["items"].([]any)
	if len(items) == 0 {
		return nil
	}
	return items[0].(map[string]any)
}

func TestPaymentLinkOneTimePaid(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := linkEnv(t, b)
		l := c.Post("/v1/payment-links", key(), newLink(map[string]any{"amount": rub("1500.00"), "order_id": "inv-42",
			"return_url": "https://shop.example.com/back", "metadata": map[string]any{"cart": "7"}})).Expect(t, 201).JSON(t)
		id, url := l["id"].(string), l["url"].(string)
		payer := env.Payer()
		payer.AcceptLanguage = "en"
		pg := payer.Get(url)
		for _, want := range []string{"Book Corner", "Two books", "1,500.00\u00a0RUB", `id="pay"`} {
			if !strings.Contains(pg.Body, want) {
				t.Fatalf("link page lacks %q:\n%s", want, pg.Body)
			}
		}
		if pg.Status != 200 {
			t.Fatalf("page status %d", pg.Status)
		}
		token, csrf := pg.Field("token"), pg.Field("csrf")
		first := payer.Post(url, "token", token, "csrf", csrf)
		if first.Status != http.StatusSeeOther || !strings.Contains(first.Location, "/checkout/") {
			t.Fatalf("pay: %d %s\n%s", first.Status, first.Location, first.Body)
		}
		// A double submit of the same form is the same payment.
		second := payer.Post(url, "token", token, "csrf", csrf)
		if second.Status != http.StatusSeeOther || second.Location != first.Location {
			t.Fatalf("double submit: %d %s, want %s", second.Status, second.Location, first.Location)
		}
		// A forged form is refused.
		if f := payer.Post(url, "token", "made-up", "csrf", csrf); f.Status != http.StatusForbidden {
			t.Fatalf("forged form: %d", f.Status)
		}
		got := c.Get("/v1/payment-links/"+id).Expect(t, 200).JSON(t)
		payments := got["payments"].([]any)
		if len(payments) != 1 || got["status"] != "active" {
			t.Fatalf("link after pay = %v", got)
		}
		payID := payments[0].(string)
		pay := c.Get("/v1/payments/"+payID).Expect(t, 200).JSON(t)
		conf, _ := pay["confirmation"].(map[string]any)
		if pay["order_id"] != "inv-42" || pay["status"] != "pending" || pay["description"] != "Two books" ||
			conf["return_url"] != "https://shop.example.com/back" || pay["metadata"].(map[string]any)["cart"] != "7" {
			t.Fatalf("link payment = %v", pay)
		}
		// In flight: another payer's page refuses a second payment.
		other := env.Payer()
		if busy := other.Get(url); busy.Status != http.StatusConflict || !strings.Contains(busy.Body, `data-state="busy"`) ||
			strings.Contains(busy.Body, `id="continue"`) {
			t.Fatalf("busy page for another payer: %d\n%s", busy.Status, busy.Body)
		}
		// The payer who started it may continue it.
		back := payer.Get(url)
		if back.Status != http.StatusConflict || !strings.Contains(back.Body, `id="continue"`) {
			t.Fatalf("busy page for the payer: %d\n%s", back.Status, back.Body)
		}
		cont := payer.Post(url, "token", back.Field("token"), "csrf", back.Field("csrf"))
		if cont.Status != http.StatusSeeOther || cont.Location != first.Location {
			t.Fatalf("continue: %d %s, want %s", cont.Status, cont.Location, first.Location)
		}

		bank := payer.Choose(first.Location, "bank_card")
		payer.PayCard(bank, "123456")
		c.WaitStatus(payID, "succeeded")
		got = c.Get("/v1/payment-links/"+id).Expect(t, 200).JSON(t)
		if got["status"] != "paid" {
			t.Fatalf("link after its payment succeeded = %v", got)
		}
		// payment_link.paid to the link's shop, with the link's order_id.
		evs := c.Get("/v1/events?type=payment_link.paid").Expect(t, 200).JSON(t)["items"].([]any)
		if len(evs) != 1 {
			t.Fatalf("payment_link.paid events: %v", evs)
		}
		data := evs[0].(map[string]any)["data"].(map[string]any)
		obj := data["object"].(map[string]any)
		if data["object_type"] != "payment_link" || obj["id"] != id || obj["status"] != "paid" || obj["order_id"] != "inv-42" {
			t.Fatalf("event data = %v", data)
		}
		// A payer who comes back sees it paid, with the way back.
		paid := other.Get(url)
		if paid.Status != 200 || !strings.Contains(paid.Body, `data-state="paid"`) || !strings.Contains(paid.Body, "https://shop.example.com/back") {
			t.Fatalf("paid page: %d\n%s", paid.Status, paid.Body)
		}
		// A paid link cannot be deactivated.
		c.Post("/v1/payment-links/"+id+"/deactivate", key(), nil).ExpectError(t, 422, payd.CodeInvalidState, "")
	})
}

// A canceled payment frees a one-time link; the next payment takes the
// order id with its number.
func TestPaymentLinkCanceledPaymentFreesLink(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := linkEnv(t, b)
		l := c.Post("/v1/payment-links", key(), newLink(map[string]any{"amount": rub("700.00"), "order_id": "inv-9"})).Expect(t, 201).JSON(t)
		id, url := l["id"].(string), l["url"].(string)
		payer := env.Payer()
		if r := linkPayment(t, payer, url, ""); r.Status != http.StatusSeeOther {
			t.Fatalf("first pay: %d\n%s", r.Status, r.Body)
		}
		first := c.Get("/v1/payment-links/"+id).Expect(t, 200).JSON(t)["payments"].([]any)[0].(string)
		c.Post("/v1/payments/"+first+"/cancel", key(), nil).Expect(t, 200)
		if r := linkPayment(t, env.Payer(), url, ""); r.Status != http.StatusSeeOther {
			t.Fatalf("pay after cancel: %d\n%s", r.Status, r.Body)
		}
		got := c.Get("/v1/payment-links/"+id).Expect(t, 200).JSON(t)
		payments := got["payments"].([]any)
		if len(payments) != 2 || payments[0] != first || got["status"] != "active" {
			t.Fatalf("link = %v", got)
		}
		if oid := c.Get("/v1/payments/"+payments[1].(string)).Expect(t, 200).JSON(t)["order_id"]; oid != "inv-9-2" {
			t.Fatalf("second payment's order_id = %v, want inv-9-2", oid)
		}
	})
}

func TestPaymentLinkOpenAmountReusable(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := linkEnv(t, b)
		l := c.Post("/v1/payment-links", key(), newLink(map[string]any{"min_amount": rub("100.00"), "max_amount": rub("5000.00"),
			"reusable": true})).Expect(t, 201).JSON(t)
		id, url := l["id"].(string), l["url"].(string)
		if l["amount"] != nil || l["min_amount"].(map[string]any)["value"] != "100.00" {
			t.Fatalf("open link = %v", l)
		}
		payer := env.Payer()
		payer.AcceptLanguage = "ru"
		pg := payer.Get(url)
		if !strings.Contains(pg.Body, `id="amount"`) || !strings.Contains(pg.Body, "От 100,00\u00a0₽ до 5\u00a0000,00\u00a0₽") {
			t.Fatalf("open page:\n%s", pg.Body)
		}
		for _, tt := range []struct{ entry, want string }{
			{"abc", "Введите сумму цифрами"},
			{"2,500.00", "Введите сумму цифрами"},
			{"12.345", "Непонятно, тысячи или дробная часть в записи 12.345."},
			{"1,500", "Непонятно, тысячи или дробная часть в записи 1,500."},
			{"99,99", "Введите сумму от 100,00\u00a0₽ до 5\u00a0000,00\u00a0₽."},
			{"5000.01", "Введите сумму от 100,00\u00a0₽ до 5\u00a0000,00\u00a0₽."},
		} {
			r := payer.Post(url, "token", pg.Field("token"), "csrf", pg.Field("csrf"), "amount", tt.entry)
			if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, tt.want) || !strings.Contains(r.Body, `id="amount-error"`) {
				t.Fatalf("entry %q: %d\n%s", tt.entry, r.Status, r.Body)
			}
		}
		if got := c.Get("/v1/payment-links/"+id).Expect(t, 200).JSON(t)["payments"].([]any); len(got) != 0 {
			t.Fatalf("bad entries made payments: %v", got)
		}
		// Each page reads sums as its language writes them.
		for i, a := range []struct{ lang, entry, value string }{
			{"ru", "1 500,50", "1500.50"},
			{"en", "2,500.5", "2500.50"},
			{"kk", "250", "250.00"},
		} {
			p := env.Payer()
			p.AcceptLanguage = a.lang
			r := linkPayment(t, p, url, a.entry)
			if r.Status != http.StatusSeeOther {
				t.Fatalf("pay %q in %s: %d\n%s", a.entry, a.lang, r.Status, r.Body)
			}
			pay := payThrough(t, c, p, r.Location)
			if pay["amount"].(map[string]any)["value"] != a.value || pay["order_id"] != fmt.Sprintf("%s-%d", id, i+1) {
				t.Fatalf("payment %d = %v", i+1, pay)
			}
		}
		got := c.Get("/v1/payment-links/"+id).Expect(t, 200).JSON(t)
		if got["status"] != "active" || len(got["payments"].([]any)) != 3 {
			t.Fatalf("reusable link after three payments = %v", got)
		}
		if evs := c.Get("/v1/events?type=payment_link.paid").Expect(t, 200).JSON(t)["items"].([]any); len(evs) != 0 {
			t.Fatalf("a reusable link was announced paid: %v", evs)
		}
	})
}

// Links expire by the sweep on the service clock; before the sweep comes,
// the page already refuses.
func TestPaymentLinkExpirySweep(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := linkEnv(t, b)
		soon := env.Clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		later := env.Clock.Now().Add(3 * time.Hour).UTC().Format(time.RFC3339)
		due := c.Post("/v1/payment-links", key(), newLink(map[string]any{"amount": rub("100.00"), "expires_at": soon})).Expect(t, 201).JSON(t)
		stays := c.Post("/v1/payment-links", key(), newLink(map[string]any{"amount": rub("100.00"), "expires_at": later})).Expect(t, 201).JSON(t)
		never := c.Post("/v1/payment-links", key(), newLink(map[string]any{"amount": rub("100.00")})).Expect(t, 201).JSON(t)
		payer := env.Payer()
		pg := payer.Get(due["url"].(string))
		env.Clock.Advance(2 * time.Hour)
		// The form fetched before expiry creates nothing after it.
		if r := payer.Post(due["url"].(string), "token", pg.Field("token"), "csrf", pg.Field("csrf")); r.Status != http.StatusGone ||
			!strings.Contains(r.Body, `data-state="expired"`) {
			t.Fatalf("pay after expiry: %d\n%s", r.Status, r.Body)
		}
		paydtest.Eventually(t, "the sweep to expire the link", func() bool {
			return c.Get("/v1/payment-links/"+due["id"].(string)).Expect(t, 200).JSON(t)["status"] == "expired"
		})
		for _, l := range []map[string]any{stays, never} {
			if st := c.Get("/v1/payment-links/"+l["id"].(string)).Expect(t, 200).JSON(t)["status"]; st != "active" {
				t.Fatalf("link %v is %v", l["id"], st)
			}
		}
		if got := c.Get("/v1/payment-links/"+due["id"].(string)).Expect(t, 200).JSON(t)["payments"].([]any); len(got) != 0 {
			t.Fatalf("expired link has payments %v", got)
		}
		c.Post("/v1/payment-links/"+due["id"].(string)+"/deactivate", key(), nil).ExpectError(t, 422, payd.CodeInvalidState, "")
		env.Clock.Advance(2 * time.Hour)
		paydtest.Eventually(t, "the sweep to expire the second link", func() bool {
			return c.Get("/v1/payment-links/"+stays["id"].(string)).Expect(t, 200).JSON(t)["status"] == "expired"
		})
	})
}

// Below stage M5 the link operations answer 501 naming their stage, and
// the page does not exist.
func TestPaymentLinksBeforeM5(t *testing.T) {
	t.Parallel()
	for _, st := range []payd.Stage{payd.StageM1, payd.StageM2} {
		t.Run(st.String(), func(t *testing.T) {
			t.Parallel()
			env := paydtest.Start(t, paydtest.Backends(t)[0], &paydtest.Options{Stage: st})
			c := env.As(env.NewShop(payd.RegionRU, ""), false)
			r := c.Post("/v1/payment-links", key(), newLink(map[string]any{"amount": rub("10.00")}))
			r.ExpectError(t, 501, payd.CodeNotImplemented, "")
			if d := r.JSON(t)["description"].(string); !strings.Contains(d, "M5") {
				t.Fatalf("description %q does not name M5", d)
			}
			c.Get("/v1/payment-links").ExpectError(t, 501, payd.CodeNotImplemented, "")
			if pg := env.Payer().Get("/links/pl_00000000000000000000000000"); pg.Status != 404 {
				t.Fatalf("link page below M5: %d", pg.Status)
			}
		})
	}
}

// Payers of one one-time link who press Pay at once make one payment: the
// link is locked in the payment's transaction, and the others are told a
// payment is in progress.
func TestPaymentLinkConcurrentPayers(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := linkEnv(t, b)
		l := c.Post("/v1/payment-links", key(), newLink(map[string]any{"amount": rub("300.00")})).Expect(t, 201).JSON(t)
		url := l["url"].(string)
		const n = 8
		payers := make([]*paydtest.Payer, n)
		forms := make([]*paydtest.Page, n)
		for i := range payers {
			payers[i] = env.Payer()
			forms[i] = payers[i].Get(url)
		}
		results := make([]*paydtest.Page, n)
		var wg sync.WaitGroup
		for i := range payers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = payers[i].Post(url, "token", forms[i].Field("token"), "csrf", forms[i].Field("csrf"))
			}()
		}
		wg.Wait()
		created := 0
		for _, r := range results {
			switch {
			case r.Status == http.StatusSeeOther:
				created++
			case r.Status == http.StatusConflict && strings.Contains(r.Body, `data-state="busy"`):
			default:
				t.Errorf("a payer got %d:\n%s", r.Status, r.Body)
			}
		}
		got := c.Get("/v1/payment-links/"+l["id"].(string)).Expect(t, 200).JSON(t)["payments"].([]any)
		if created != 1 || len(got) != 1 {
			t.Fatalf("%d payers were sent to pay and the link has %d payments, want one", created, len(got))
		}
	})
}

// Every way a payment succeeds makes its one-time link paid: the bank's
// notification (above), a capture, and simulate.
func TestPaymentLinkPaidByEveryTrigger(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := linkEnv(t, b)
		start := func(capture bool) (string, string, string) {
			t.Helper()
			l := c.Post("/v1/payment-links", key(), newLink(map[string]any{"amount": rub("1000.00"), "capture": capture})).Expect(t, 201).JSON(t)
			payer := env.Payer()
			r := linkPayment(t, payer, l["url"].(string), "")
			if r.Status != http.StatusSeeOther {
				t.Fatalf("pay: %d\n%s", r.Status, r.Body)
			}
			bank := payer.Choose(r.Location, "bank_card")
			id := c.Get("/v1/payment-links/"+l["id"].(string)).Expect(t, 200).JSON(t)["payments"].([]any)[0].(string)
			return l["id"].(string), id, bank
		}
		linkStatus := func(id string) any {
			return c.Get("/v1/payment-links/"+id).Expect(t, 200).JSON(t)["status"]
		}

		t.Run("capture", func(t *testing.T) {
			linkID, payID, bank := start(false)
			env.Payer().PayCard(bank, "123456")
			pay := c.WaitStatus(payID, "waiting_for_capture")
			if pay["capture"] != false || linkStatus(linkID) != "active" {
				t.Fatalf("authorized: payment %v, link %v", pay["status"], linkStatus(linkID))
			}
			c.Post("/v1/payments/"+payID+"/capture", key(), nil).Expect(t, 200)
			if st := linkStatus(linkID); st != "paid" {
				t.Fatalf("link after capture = %v", st)
			}
		})
		t.Run("simulate", func(t *testing.T) {
			linkID, payID, _ := start(true)
			c.Post("/v1/test/payments/"+payID+"/simulate", key(), map[string]any{"outcome": "succeed"}).Expect(t, 202)
			c.WaitStatus(payID, "succeeded")
			if st := linkStatus(linkID); st != "paid" {
				t.Fatalf("link after a simulated success = %v", st)
			}
		})
		t.Run("decline frees", func(t *testing.T) {
			linkID, payID, _ := start(true)
			c.Post("/v1/test/payments/"+payID+"/simulate", key(), map[string]any{"outcome": "decline"}).Expect(t, 202)
			c.WaitStatus(payID, "canceled")
			if st := linkStatus(linkID); st != "active" {
				t.Fatalf("link after a decline = %v", st)
			}
			if pg := env.Payer().Get("/links/" + linkID); pg.Status != 200 || !strings.Contains(pg.Body, `id="pay"`) {
				t.Fatalf("page after a decline: %d\n%s", pg.Status, pg.Body)
			}
		})
	})
}

// A link's payment never fails for its order id: one the merchant already
// gave a payment is passed over for the next of the rule.
func TestPaymentLinkOrderIDTaken(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := linkEnv(t, b)
		c.Post("/v1/payments", key(), newPayment("100.00", map[string]any{"order_id": "inv-7"})).Expect(t, 201)
		l := c.Post("/v1/payment-links", key(), newLink(map[string]any{"amount": rub("100.00"), "order_id": "inv-7"})).Expect(t, 201).JSON(t)
		if r := linkPayment(t, env.Payer(), l["url"].(string), ""); r.Status != http.StatusSeeOther {
			t.Fatalf("pay: %d\n%s", r.Status, r.Body)
		}
		p := c.Get("/v1/payment-links/"+l["id"].(string)).Expect(t, 200).JSON(t)["payments"].([]any)[0].(string)
		if oid := c.Get("/v1/payments/"+p).Expect(t, 200).JSON(t)["order_id"]; oid != "inv-7-1" {
			t.Fatalf("order_id = %v, want inv-7-1", oid)
		}
	})
}

// The link sweep walks a backlog larger than one of its batches.
func TestPaymentLinkExpiryBacklog(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := linkEnv(t, b)
		soon := env.Clock.Now().Add(time.Minute).UTC().Format(time.RFC3339)
		const n = 105 // more than one batch of the sweep
		var wg sync.WaitGroup
		sem := make(chan struct{}, 8)
		for range n {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				c.Post("/v1/payment-links", key(), newLink(map[string]any{"expires_at": soon})).Expect(t, 201)
			}()
		}
		wg.Wait()
		env.Clock.Advance(2 * time.Minute)
		paydtest.Eventually(t, "every link to expire", func() bool {
			expired, cursor := 0, ""
			for {
				path := "/v1/payment-links?limit=100"
				if cursor != "" {
					path += "&cursor=" + cursor
				}
				page := c.Get(path).Expect(t, 200).JSON(t)
				for _, it := range page["items"].([]any) {
					if it.(map[string]any)["status"] == "expired" {
						expired++
					}
				}
				next, _ := page["next_cursor"].(string)
				if next == "" {
					return expired == n
				}
				cursor = next
			}
		})
	})
}

// A double click sends the form twice while the first is still being
// processed: the second waits for it and gets the same payment.
func TestPaymentLinkDoubleSubmitInFlight(t *testing.T) {
	t.Parallel()
	started, release, waiting := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var once, waited sync.Once
	env := paydtest.Start(t, paydtest.Backends(t)[0], &paydtest.Options{Stage: payd.StageM5,
		HoldIdempotentFunc: func(key string) {
			if !strings.HasPrefix(key, "link:") {
				return
			}
			once.Do(func() {
				close(started)
				select {
				case <-release:
				case <-time.After(10 * time.Second):
				}
			})
		},
		WaitIdempotentFunc: func(key string) {
			if strings.HasPrefix(key, "link:") {
				waited.Do(func() { close(waiting) })
			}
		}})
	c := env.As(env.NewShop(payd.RegionRU, ""), false)
	l := c.Post("/v1/payment-links", key(), newLink(map[string]any{"amount": rub("250.00")})).Expect(t, 201).JSON(t)
	url := l["url"].(string)
	payer := env.Payer()
	form := payer.Get(url)
	results := make([]*paydtest.Page, 2)
	var wg sync.WaitGroup
	submit := func(i int) {
		defer wg.Done()
		results[i] = payer.Post(url, "token", form.Field("token"), "csrf", form.Field("csrf"))
	}
	wg.Add(2)
	go submit(0)
	<-started
	second := make(chan struct{})
	go func() {
		defer close(second)
		submit(1)
	}()
	// The second is let go of once it has found the first in flight (or
	// has been answered without waiting: the checks below then fail).
	select {
	case <-waiting:
	case <-second:
	case <-time.After(time.Minute):
		t.Fatal("the second submission neither waited for the first nor was answered")
	}
	close(release)
	wg.Wait()
	for i, r := range results {
		if r.Status != http.StatusSeeOther || r.Location != results[0].Location {
			t.Fatalf("submission %d: %d %s, want 303 to %s\n%s", i, r.Status, r.Location, results[0].Location, r.Body)
		}
	}
	if got := c.Get("/v1/payment-links/"+l["id"].(string)).Expect(t, 200).JSON(t)["payments"].([]any); len(got) != 1 {
		t.Fatalf("payments %v, want one", got)
	}
}

// TestPaymentLinkPageRate: the link page is the one way to create a shop's
// payments without a key, so it has the shop's creation rate of its own,
// and each payer's address a small share of it; past either the payer gets
// 429 with Retry-After and no payment is made. Posts that can make no
// payment (a closed link) take nothing, and another shop's links and the
// shop's API keys are not touched.
func TestPaymentLinkPageRate(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM5, TrustProxy: true})
		shop := env.NewShop(payd.RegionRU, "")
		c := env.As(shop, false)
		env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"payments_per_minute": 12}).Expect(t, 200)
		payerAt := func(addr string) *paydtest.Payer {
			p := env.Payer()
			p.ForwardedFor = addr
			return p
		}
		// A form fetched while its link was open, posted after it closed.
		closed := c.Post("/v1/payment-links", key(), newLink(map[string]any{"amount": rub("100.00")})).Expect(t, 201).JSON(t)
		early := payerAt("203.0.113.1")
		form := early.Get(closed["url"].(string))
		c.Post("/v1/payment-links/"+closed["id"].(string)+"/deactivate", key(), nil).Expect(t, 200)
		for range 15 {
			pg := early.Post(closed["url"].(string), "token", form.Field("token"), "csrf", form.Field("csrf"))
			if pg.Status == http.StatusTooManyRequests || pg.Status == http.StatusSeeOther {
				t.Fatalf("a closed link's form answered %d", pg.Status)
			}
		}
		l := c.Post("/v1/payment-links", key(), newLink(map[string]any{"amount": rub("100.00"), "reusable": true})).Expect(t, 201).JSON(t)
		url := l["url"].(string)
		pay := func(addr string) *paydtest.Page { return linkPayment(t, payerAt(addr), url, "") }
		// The buckets refill as the service clock runs: allowed is what
		// one of perMinute lets through from began to now, its size and
		// what it refilled since, as a loaded machine can take seconds
		// over these requests.
		began := env.Clock.Now()
		since := func() time.Duration { return env.Clock.Now().Sub(began) }
		allowed := func(perMinute int) int {
			return perMinute + int(since()*time.Duration(perMinute)/time.Minute)
		}
		// untilRefused pays from addr(i) for i = 0, 1, ... until a payment
		// is refused with 429 and Retry-After, counting from paid, and
		// holds the count to the bucket of perMinute: at least its size,
		// at most what it let through since began.
		untilRefused := func(what string, perMinute, paid int, addr func(i int) string) int {
			t.Helper()
			for i := 0; ; i++ {
				pg := pay(addr(i))
				if pg.Status == http.StatusTooManyRequests {
					if pg.Header.Get("Retry-After") == "" {
						t.Fatalf("a payment past %s: 429 without Retry-After", what)
					}
					break
				}
				if pg.Status != http.StatusSeeOther {
					t.Fatalf("payment %d within %s: %d\n%s", paid+1, what, pg.Status, pg.Body)
				}
				if paid++; paid > allowed(perMinute) {
					t.Fatalf("%d payments in %v, past %s", paid, since(), what)
				}
			}
			if paid < perMinute {
				t.Fatalf("refused after %d payments, within %s", paid, what)
			}
			return paid
		}
		// One address: its ten a minute, then 429.
		fromOne := untilRefused("one address's ten a minute", 10, 0, func(int) string { return "203.0.113.1" })
		// Other addresses share the shop's twelve: two more, then 429.
		total := untilRefused("the shop's twelve a minute", 12, fromOne, func(i int) string { return fmt.Sprintf("203.0.113.%d", i+2) })
		if got := c.Get("/v1/payment-links/"+l["id"].(string)).Expect(t, 200).JSON(t)["payments"].([]any); len(got) != total {
			t.Fatalf("%d link payments, want the %d within the rates", len(got), total)
		}
		// The shop's API keys keep their own rate.
		c.Post("/v1/payments", key(), newPayment("10.00", nil)).Expect(t, 201)
		other := env.NewShop(payd.RegionRU, "")
		ol := env.As(other, false).Post("/v1/payment-links", key(), newLink(map[string]any{"amount": rub("100.00")})).Expect(t, 201).JSON(t)
		if pg := linkPayment(t, payerAt("203.0.113.4"), ol["url"].(string), ""); pg.Status != http.StatusSeeOther {
			t.Fatalf("another shop's link: %d\n%s", pg.Status, pg.Body)
		}
	})
}

// A paid link's page says what was paid: the shop and the payer's own sum
// on an open link, in the reader's language.
func TestPaymentLinkPaidPageSaysWhatWasPaid(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, _, c := linkEnv(t, b)
		l := c.Post("/v1/payment-links", key(), newLink(map[string]any{"min_amount": rub("100.00"), "max_amount": rub("5000.00")})).
			Expect(t, 201).JSON(t)
		url := l["url"].(string)
		payer := env.Payer()
		payer.AcceptLanguage = "en"
		r := linkPayment(t, payer, url, "2,500.5")
		if r.Status != http.StatusSeeOther {
			t.Fatalf("pay: %d\n%s", r.Status, r.Body)
		}
		payThrough(t, c, payer, r.Location)
		paydtest.Eventually(t, "the link to be paid", func() bool {
			return c.Get("/v1/payment-links/"+l["id"].(string)).Expect(t, 200).JSON(t)["status"] == "paid"
		})
		for lang, want := range map[string][]string{
			"en": {"Already paid", "Recipient: Book Corner", "Two books", "2,500.50\u00a0RUB"},
			"ru": {"Уже оплачено", "Получатель: Book Corner", "2\u00a0500,50\u00a0₽"},
		} {
			reader := env.Payer()
			reader.AcceptLanguage = lang
			pg := reader.Get(url)
			for _, w := range want {
				if pg.Status != 200 || !strings.Contains(pg.Body, w) {
					t.Fatalf("%s paid page lacks %q: %d\n%s", lang, w, pg.Status, pg.Body)
				}
			}
		}
	})
}
