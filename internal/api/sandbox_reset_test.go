package api_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/money"
)

// resetEnv starts a service at stage M2 with a live bank, and a merchant
// with two shops: a, activated, and b.
func resetEnv(t *testing.T, b paydtest.Backend) (env *paydtest.Env, a, other *paydtest.Shop, bank *paydtest.LiveProvider) {
	t.Helper()
	bank = paydtest.NewLiveProvider("acquirer")
	env = paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM2, LiveProviders: []payd.Provider{bank},
		WebhookAllowHosts: []string{"127.0.0.1"}})
	a = env.NewShop(payd.RegionRU, "")
	other = env.NewShop(payd.RegionRU, a.MerchantID)
	env.AdminDo("POST", "/admin/v1/shops/"+a.ID+"/activate", nil).Expect(t, 200)
	env.AdminDo("PUT", "/admin/v1/provider-routes", map[string]any{
		"region": "ru", "method": payd.MethodSBP, "currency": money.RUB, "providers": []string{"acquirer"}}).Expect(t, 200)
	return env, a, other, bank
}

// liveView is everything the live key of a shop reads; a reset of the
// sandbox must leave it as it was, byte for byte.
func liveView(t *testing.T, live *paydtest.Client) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, path := range []string{"/v1/payments", "/v1/refunds", "/v1/events", "/v1/disputes", "/v1/balance", "/v1/settlements", "/v1/webhook-endpoints"} {
		out[path] = string(live.Get(path).Expect(t, 200).Body)
	}
	return out
}

// TestSandboxReset: a reset deletes the shop's test data and nothing
// else — live data, the other shop's test objects, keys, webhook
// endpoints and settings stay — and the test balance is then what the
// other shop's remaining entries say, with the ledger check passing.
func TestSandboxReset(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env, a, other, bank := resetEnv(t, b)
		c, live, oc := env.As(a, false), env.As(a, true), env.As(other, false)

		// Live: a paid payment with its event, and a live endpoint.
		pid := live.Post("/v1/payments", key(), qrPayment("1000.00")).Expect(t, 201).JSON(t)["id"].(string)
		var lp payd.Payment
		env.AdminDo("GET", "/admin/v1/payments/"+pid, nil).Expect(t, 200).Decode(t, &lp)
		if err := bank.Notify(t.Context(), env.Service, payd.Notification{ID: "n1", Kind: payd.NotifySucceeded, ProviderPaymentID: lp.ProviderPaymentID}); err != nil {
			t.Fatal(err)
		}
		live.WaitStatus(pid, "succeeded")
		live.Post("/v1/webhook-endpoints", key(), map[string]any{"url": "https://127.0.0.1:1/live", "events": []string{"payment.succeeded"}}).Expect(t, 201)

		// The other shop's test payment: its money stays in the test
		// balance of the merchant.
		kept := paidPayment(t, oc, "300.00")
		balanceAfterOther := balanceOf(t, c)

		// The shop's sandbox: an endpoint, payments, a refund, a dispute,
		// their events and deliveries.
		c.Post("/v1/webhook-endpoints", key(), map[string]any{"url": "https://127.0.0.1:1/hook", "events": []string{"payment.succeeded"}}).Expect(t, 201)
		p1, p2 := paidPayment(t, c, "500.00"), paidPayment(t, c, "700.00")
		c.Post("/v1/refunds", key(), map[string]any{"payment_id": p1, "amount": rub("100.00")}).Expect(t, 201)
		openDispute(t, c, p2, map[string]any{"amount": rub("200.00")})
		c.Post("/v1/payments", key(), qrPayment("10.00")).Expect(t, 201)
		before := liveView(t, live)
		shopBefore := c.Get("/v1/shop").Expect(t, 200).Body
		endpointsBefore := c.Get("/v1/webhook-endpoints").Expect(t, 200).Body

		env.As(a, true).Post("/v1/test/reset", key(), nil).Expect(t, 403)
		var res struct{ Deleted map[string]int64 }
		c.Post("/v1/test/reset", key(), nil).Expect(t, 200).Decode(t, &res)
		d := res.Deleted
		if d["payments"] != 3 || d["refunds"] != 1 || d["disputes"] != 1 || d["events"] < 3 || d["ledger_entries"] < 4 || d["idempotency_records"] < 5 {
			t.Fatalf("deleted %v", d)
		}

		for _, path := range []string{"/v1/payments", "/v1/refunds", "/v1/disputes", "/v1/events"} {
			if items := c.Get(path).Expect(t, 200).JSON(t)["items"].([]any); len(items) != 0 {
				t.Errorf("%s after the reset: %v", path, items)
			}
		}
		c.Get("/v1/payments/"+p1).Expect(t, 404)
		if diff := cmp.Diff(before, liveView(t, live)); diff != "" {
			t.Errorf("live data changed (-before +after):\n%s", diff)
		}
		if got := c.Get("/v1/shop").Expect(t, 200).Body; string(got) != string(shopBefore) {
			t.Errorf("shop changed:\n%s\n%s", shopBefore, got)
		}
		if got := c.Get("/v1/webhook-endpoints").Expect(t, 200).Body; string(got) != string(endpointsBefore) {
			t.Errorf("webhook endpoints changed:\n%s\n%s", endpointsBefore, got)
		}
		oc.Get("/v1/payments/"+kept).Expect(t, 200)
		if got := balanceOf(t, c); !equal(got, balanceAfterOther) {
			t.Errorf("test balance after the reset %v, want the other shop's %v", got, balanceAfterOther)
		}
		checkLedger(t, env)

		// The key still works, an idempotency key used before the reset
		// makes a new object, and a second reset finds nothing.
		c.Post("/v1/payments", "again-0001", qrPayment("10.00")).Expect(t, 201)
		c.Post("/v1/test/reset", key(), nil).Expect(t, 200)
		c.Post("/v1/test/reset", key(), nil).Expect(t, 200).Decode(t, &res)
		for k, v := range res.Deleted {
			if v != 0 {
				t.Errorf("a second reset deleted %d %s", v, k)
			}
		}
		checkLedger(t, env)
	})
}

// TestSandboxResetRacingRequests: payments created while a reset runs
// land wholly before it (deleted with their idempotency record: the same
// key then creates a new payment) or wholly after it (kept with their
// record: the same key replays the payment), never half. Requests are
// sent before the reset, and into its middle: after its payments are
// deleted and before its idempotency records are, where a payment that
// did not wait for the reset would stay while its record went.
func TestSandboxResetRacingRequests(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		var c *paydtest.Client
		var mu sync.Mutex
		var keys, ids []string
		bodies := map[string]map[string]any{}
		var wg sync.WaitGroup
		// came tells the keys of the requests sent into the reset as each
		// finds the reset under way (and waits), or is answered.
		came := make(chan string, 16)
		tell := func(k string) {
			if strings.HasPrefix(k, "mid-") {
				select {
				case came <- k:
				default: // a waiting request tells again in a moment
				}
			}
		}
		create := func(k string) {
			defer wg.Done()
			body := qrPayment("20.00")
			mu.Lock()
			bodies[k] = body
			mu.Unlock()
			id := c.Post("/v1/payments", k, body).Expect(t, 201).JSON(t)["id"].(string)
			tell(k)
			mu.Lock()
			keys, ids = append(keys, k), append(ids, id)
			mu.Unlock()
		}
		step := func(kind payd.SandboxKind) {
			if kind != payd.SandboxEvents {
				return
			}
			for i := range 3 {
				wg.Add(1)
				go create(fmt.Sprintf("mid-%04d", i))
			}
			// The reset goes on once each has come to it: found it
			// under way, or (not waiting for it) been answered, which
			// the checks below catch.
			seen := map[string]bool{}
			bound := time.After(time.Minute)
			for len(seen) < 3 {
				select {
				case k := <-came:
					seen[k] = true
				case <-bound:
					t.Errorf("a minute into the reset, %d of the 3 requests sent into it had come to it", len(seen))
					return
				}
			}
		}
		env := paydtest.Start(t, b, &paydtest.Options{SandboxResetStepFunc: step, WaitIdempotentFunc: tell})
		a := env.NewShop(payd.RegionRU, "")
		c = env.As(a, false)
		for i := range 3 {
			wg.Add(1)
			create(fmt.Sprintf("before-%04d", i))
		}
		c.Post("/v1/test/reset", key(), nil).Expect(t, 200)
		wg.Wait()
		before, after := 0, 0
		for i, id := range ids {
			again := c.Post("/v1/payments", keys[i], bodies[keys[i]])
			if c.Get("/v1/payments/"+id).Status == 200 {
				after++
				if again.Expect(t, 200).JSON(t)["id"] != id {
					t.Errorf("payment %s (%s) kept but its key no longer replays it", id, keys[i])
				}
			} else {
				before++
				if got := again.Expect(t, 201).JSON(t)["id"]; got == id {
					t.Errorf("payment %s (%s) deleted but its key still replays it", id, keys[i])
				}
			}
		}
		if before != 3 || after != 3 {
			t.Errorf("%d payments landed before the reset and %d after, want 3 and 3 (the ones sent into its middle)", before, after)
		}
		checkLedger(t, env)
	})
}

// TestSandboxResetWaitEnds: a change of test data that has waited its
// whole bound for a reset of its shop's sandbox answers 503
// provider_unavailable with Retry-After, and changed nothing: once the
// reset is over, the same key creates the payment.
func TestSandboxResetWaitEnds(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		var test *paydtest.Client
		var waited *paydtest.Response
		var took time.Duration
		step := func(kind payd.SandboxKind) {
			if kind != payd.SandboxEvents {
				return
			}
			start := time.Now()
			waited = test.Post("/v1/payments", "waits-for-reset", qrPayment("20.00"))
			took = time.Since(start)
		}
		env := paydtest.Start(t, b, &paydtest.Options{SandboxResetStepFunc: step, SandboxWait: 300 * time.Millisecond})
		test = env.As(env.NewShop(payd.RegionRU, ""), false)
		test.Post("/v1/test/reset", key(), nil).Expect(t, 200)
		waited.ExpectError(t, 503, payd.CodeProviderUnavailable, "")
		if ra := waited.Header.Get("Retry-After"); ra == "" {
			t.Error("503 after the wait for a reset: no Retry-After")
		}
		if took < 300*time.Millisecond || took > 30*time.Second {
			t.Errorf("answered after %v; the wait's bound is 300ms (the default, a minute, was not to be used)", took)
		}
		if items := test.Get("/v1/payments").Expect(t, 200).JSON(t)["items"].([]any); len(items) != 0 {
			t.Fatalf("%d payments after a change that timed out and a reset, want none", len(items))
		}
		test.Post("/v1/payments", "waits-for-reset", qrPayment("20.00")).Expect(t, 201)
	})
}

// TestSandboxResetTwiceAtOnce: of two resets of one shop at once, the
// later one deletes and the earlier one, stopped at its next batch,
// answers only once the later one is done: neither answers while test
// data is still being deleted, the deletions add up to the shop's data
// once, and the shop takes changes again once both have answered (no
// mark is left behind).
func TestSandboxResetTwiceAtOnce(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		// The first reset stops before its payments, the second too;
		// each goes on when the test says.
		var calls sync.Mutex
		atPayments := []chan struct{}{make(chan struct{}), make(chan struct{})}
		goOn := []chan struct{}{make(chan struct{}), make(chan struct{})}
		n := 0
		step := func(kind payd.SandboxKind) {
			if kind != payd.SandboxPayments {
				return
			}
			calls.Lock()
			i := n
			n++
			calls.Unlock()
			if i < len(atPayments) {
				close(atPayments[i])
				<-goOn[i]
			}
		}
		env := paydtest.Start(t, b, &paydtest.Options{SandboxResetStepFunc: step})
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		const payments = 4
		for i := range payments {
			c.Post("/v1/payments", fmt.Sprintf("before-%d", i), qrPayment("10.00")).Expect(t, 201)
		}
		type answer struct {
			res *paydtest.Response
			at  time.Time
		}
		reset := func() chan answer {
			out := make(chan answer, 1)
			go func() {
				r := c.Post("/v1/test/reset", key(), nil)
				out <- answer{r, time.Now()}
			}()
			return out
		}
		first := reset()
		<-atPayments[0]
		second := reset()
		<-atPayments[1]
		// The first goes on, finds the second's mark and waits for it.
		close(goOn[0])
		select {
		case a := <-first:
			t.Errorf("the first reset answered %d while the second was still deleting", a.res.Status)
			first <- a
		case <-time.After(500 * time.Millisecond):
		}
		secondAt := time.Now()
		close(goOn[1])
		deleted := int64(0)
		for name, ch := range map[string]chan answer{"first": first, "second": second} {
			a := <-ch
			var res struct{ Deleted map[string]int64 }
			a.res.Expect(t, 200).Decode(t, &res)
			if a.at.Before(secondAt) {
				t.Errorf("the %s reset answered before the second one went on", name)
			}
			deleted += res.Deleted["payments"]
		}
		if deleted != payments {
			t.Errorf("the two resets deleted %d payments between them, want %d: each once", deleted, payments)
		}
		if items := c.Get("/v1/payments").Expect(t, 200).JSON(t)["items"].([]any); len(items) != 0 {
			t.Errorf("%d payments after both resets answered, want none", len(items))
		}
		c.Post("/v1/payments", "after-both", qrPayment("10.00")).Expect(t, 201)
		checkLedger(t, env)
	})
}
