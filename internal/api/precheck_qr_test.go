package api_test

// The `payment.authorize_request` pre-check on every path to a provider
// attempt (Events: Pre-check event): a QR payment asks at creation, the
// cascade and every retry go by the payment's one recorded decision, and
// nobody waits for the shop's answer inside a transaction.

import (
	"crypto/x509"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/webhook"
)

// shopDesk is the shop's endpoint that answers pre-checks: it answers
// every question with answer after delay, records the event ids it was
// asked about and checks each question's signature.
type shopDesk struct {
	t      *testing.T
	rc     *receiver
	answer string
	delay  time.Duration
	// arrived gets the event id of every question as it comes in.
	arrived chan string

	mu     sync.Mutex
	secret string
	asked  []string
	sigErr error
}

func (d *shopDesk) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	d.mu.Lock()
	d.asked = append(d.asked, r.Header.Get("X-Service-Event-Id"))
	if err := webhook.Verify(r.Header.Get("X-Service-Signature"), body, []string{d.secret}, time.Now()); err != nil {
		d.sigErr = err
	}
	d.mu.Unlock()
	select {
	case d.arrived <- r.Header.Get("X-Service-Event-Id"):
	default:
	}
	if d.delay > 0 {
		select {
		case <-time.After(d.delay):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, d.answer)
}

// questions returns the event ids the shop was asked about, failing the
// test on a question that was not signed like any other event.
func (d *shopDesk) questions() []string {
	d.t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.sigErr != nil {
		d.t.Fatalf("a pre-check was not signed like other events: %v", d.sigErr)
	}
	return append([]string(nil), d.asked...)
}

// precheckCase is a service whose shop has the pre-check on.
type precheckCase struct {
	*sandbox
	desk *shopDesk
}

// desk kinds: what the shop's pre-check endpoint does.
const (
	deskAllow  = `{"decision":"allow"}`
	deskDeny   = `{"decision":"deny","reason":"blocked customer"}`
	deskSlow   = "slow"   // answers allow after 1.5 seconds
	deskSilent = "silent" // answers allow after 6 seconds: too late
	deskNone   = "none"   // no endpoint subscribed
)

// newPrecheckCase starts a service with a shop whose pre-check is on (the
// default decision deny) and, unless kind is deskNone, an endpoint of the
// shop subscribed to `payment.authorize_request` that behaves as kind.
// With lb the service has lb's live providers, the shop is activated and
// the endpoint is its live one.
func newPrecheckCase(t *testing.T, b paydtest.Backend, kind string, lb *liveBundle) *precheckCase {
	t.Helper()
	return newPrecheckCaseIn(t, b, payd.RegionRU, kind, lb)
}

// newPrecheckCaseIn is newPrecheckCase with a shop of region.
func newPrecheckCaseIn(t *testing.T, b paydtest.Backend, region payd.Region, kind string, lb *liveBundle) *precheckCase {
	t.Helper()
	rc := newReceiver(t)
	desk := &shopDesk{t: t, rc: rc, answer: kind, arrived: make(chan string, 16)}
	switch kind {
	case deskSlow:
		desk.answer, desk.delay = deskAllow, 1500*time.Millisecond
	case deskSilent:
		desk.answer, desk.delay = deskAllow, 6*time.Second
	}
	rc.srv.Config.Handler = desk
	pool := x509.NewCertPool()
	pool.AddCert(rc.srv.Certificate())
	opts := &paydtest.Options{WebhookAllowHosts: []string{"127.0.0.1"}, WebhookRootCAs: pool}
	if lb != nil {
		opts.LiveProviders = []payd.Provider{lb.first, lb.second}
	}
	env := paydtest.Start(t, b, opts)
	shop := env.NewShop(region, "")
	env.AdminDo("PATCH", "/admin/v1/shops/"+shop.ID, map[string]any{"authorize_request_webhook": true}).Expect(t, 200)
	pc := &precheckCase{sandbox: &sandbox{t: t, env: env, shop: shop, c: env.As(shop, false), payer: env.Payer()}, desk: desk}
	owner := pc.c
	if lb != nil {
		lb.env, lb.shop = env, shop
		env.AdminDo("POST", "/admin/v1/shops/"+shop.ID+"/activate", nil).Expect(t, 200)
		lb.live = env.As(shop, true)
		owner = lb.live
	}
	if kind != deskNone {
		ep := owner.Post("/v1/webhook-endpoints", key(), map[string]any{
			"url": rc.srv.URL + "/precheck", "events": []string{"payment.authorize_request"}}).Expect(t, 201).JSON(t)
		desk.mu.Lock()
		desk.secret = ep["secret"].(string)
		desk.mu.Unlock()
	}
	return pc
}

// createQR creates a QR payment and checks the answer: pending, and no QR
// data yet, since the shop has not been asked.
func (pc *precheckCase) createQR(c *paydtest.Client, idem, value string) map[string]any {
	pc.t.Helper()
	created := c.Post("/v1/payments", idem, qrPayment(value)).Expect(pc.t, 201).JSON(pc.t)
	conf, _ := created["confirmation"].(map[string]any)
	if created["status"] != "pending" || conf["type"] != "qr" || conf["confirmation_data"] != nil || conf["expires_at"] == nil {
		pc.t.Fatalf("created = %v, want pending with a qr confirmation and no QR data before the shop allowed it", created)
	}
	return created
}

// qrReady waits until the payment carries its QR data, the SBP page.
func (pc *precheckCase) qrReady(id string) string {
	pc.t.Helper()
	var data string
	paydtest.Eventually(pc.t, "the QR data of "+id, func() bool {
		conf, _ := pc.get(id)["confirmation"].(map[string]any)
		data, _ = conf["confirmation_data"].(string)
		return data != ""
	})
	if !strings.HasPrefix(data, pc.env.API.URL+"/sandbox/sbp/sbx_") {
		pc.t.Fatalf("confirmation_data = %s, want the SBP page", data)
	}
	return data
}

// precheckOf returns the payment's recorded pre-check, as operators see it.
func (pc *precheckCase) precheckOf(id string) (*payd.Precheck, []payd.Attempt) {
	pc.t.Helper()
	var p payd.Payment
	pc.env.AdminDo("GET", "/admin/v1/payments/"+id, nil).Expect(pc.t, 200).Decode(pc.t, &p)
	return p.Precheck, p.Attempts
}

// authorizeRequestDelivery returns the delivery summary status of the
// payment's pre-check event.
func (pc *precheckCase) authorizeRequestDelivery(id string) payd.EventDeliveryStatus {
	pc.t.Helper()
	var list struct {
		Items []struct {
			Type     string
			Delivery struct{ Status payd.EventDeliveryStatus }
		}
	}
	pc.c.Get("/v1/events?limit=100&object_id="+id).Expect(pc.t, 200).Decode(pc.t, &list)
	for _, e := range list.Items {
		if e.Type == "payment.authorize_request" {
			return e.Delivery.Status
		}
	}
	return ""
}

// unpayable checks a QR payment the shop denied can be paid by no means:
// it has no QR data and no provider attempt, and simulate refuses it as
// any canceled payment.
func (pc *precheckCase) unpayable(id string) {
	pc.t.Helper()
	pay := pc.get(id)
	if conf, _ := pay["confirmation"].(map[string]any); conf["confirmation_data"] != nil {
		pc.t.Fatalf("a denied payment carries QR data: %v", conf)
	}
	if _, attempts := pc.precheckOf(id); len(attempts) != 0 {
		pc.t.Fatalf("a denied payment has provider attempts: %v", attempts)
	}
	for _, outcome := range []string{"succeed", "authorize"} {
		pc.simulate(id, map[string]any{"outcome": outcome}).ExpectError(pc.t, 422, payd.CodeInvalidState, "")
	}
}

// TestPrecheckQR: a QR payment of a shop with the pre-check on asks the
// shop before its provider attempt, for each way the shop may answer.
func TestPrecheckQR(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		t.Run("Allow", func(t *testing.T) {
			t.Parallel()
			pc := newPrecheckCase(t, b, deskAllow, nil)
			id := pc.createQR(pc.c, key(), "100.00")["id"].(string)
			page := pc.qrReady(id)
			pc.press(page, "pay")
			pay := pc.wait(id, "succeeded")
			if pay["paid"] != true {
				t.Fatalf("paid payment = %v", pay)
			}
			pc.wantEvents(id, "payment.authorize_request", "payment.succeeded")
			if got := pc.authorizeRequestDelivery(id); got != payd.DeliverySucceeded {
				t.Errorf("pre-check delivery %q, want succeeded", got)
			}
			decision, attempts := pc.precheckOf(id)
			if decision == nil || decision.Decision != payd.PrecheckAllow || decision.By != payd.PrecheckByAnswer || len(attempts) != 1 {
				t.Fatalf("precheck %+v, attempts %v: want one allow by the answer and one attempt", decision, attempts)
			}
			if q := pc.desk.questions(); len(q) != 1 || q[0] != decision.EventID {
				t.Fatalf("questions %v, want the one event %s", q, decision.EventID)
			}
		})

		t.Run("Deny", func(t *testing.T) {
			t.Parallel()
			pc := newPrecheckCase(t, b, deskDeny, nil)
			id := pc.createQR(pc.c, key(), "100.00")["id"].(string)
			pay := pc.canceled(id, payd.PartyMerchant, payd.ReasonAuthorizeRequestDenied)
			if cd := pay["cancellation_details"].(map[string]any); cd["provider_code"] != "blocked customer" {
				t.Errorf("cancellation_details = %v, want the shop's reason as provider_code", cd)
			}
			pc.unpayable(id)
			pc.wantEvents(id, "payment.authorize_request", "payment.canceled")
			if q := pc.desk.questions(); len(q) != 1 {
				t.Fatalf("%d questions, want 1", len(q))
			}
		})

		t.Run("Silent", func(t *testing.T) {
			t.Parallel()
			pc := newPrecheckCase(t, b, deskSilent, nil)
			other := pc.env.NewShop(payd.RegionRU, "")
			oc := pc.env.As(other, false)
			start := time.Now()
			id := pc.createQR(pc.c, key(), "100.00")["id"].(string)
			select {
			case <-pc.desk.arrived:
			case <-time.After(15 * time.Second):
				t.Fatal("the shop was never asked")
			}
			// While the shop keeps the question, nothing else waits for
			// it: payments of this shop and of others are created and
			// read at once, and the asked payment reads pending.
			for i := 0; i < 5; i++ {
				t0 := time.Now()
				pc.c.Post("/v1/payments", key(), newPayment("100.00", nil)).Expect(t, 201)
				oc.Post("/v1/payments", key(), qrPayment("100.00")).Expect(t, 201)
				if pc.get(id)["status"] != "pending" {
					t.Fatalf("the payment left pending while the shop was being asked")
				}
				if d := time.Since(t0); d > 2*time.Second {
					t.Fatalf("creations took %v while a shop was being asked: something waits for its answer", d)
				}
			}
			pc.canceled(id, payd.PartyMerchant, payd.ReasonAuthorizeRequestDenied)
			if d := time.Since(start); d < payd.PrecheckTimeout {
				t.Fatalf("canceled after %v, before the shop's 5 seconds ran out", d)
			}
			pc.unpayable(id)
			pc.wantEvents(id, "payment.authorize_request", "payment.canceled")
			if got := pc.authorizeRequestDelivery(id); got != payd.DeliveryFailed {
				t.Errorf("pre-check delivery %q, want failed", got)
			}
			if decision, _ := pc.precheckOf(id); decision == nil || decision.By != payd.PrecheckByDefault {
				t.Fatalf("precheck %+v, want the default's deny", decision)
			}
		})

		t.Run("NoEndpoint", func(t *testing.T) {
			t.Parallel()
			pc := newPrecheckCase(t, b, deskNone, nil)
			id := pc.createQR(pc.c, key(), "100.00")["id"].(string)
			pc.canceled(id, payd.PartyMerchant, payd.ReasonAuthorizeRequestDenied)
			pc.unpayable(id)
			pc.wantEvents(id, "payment.authorize_request", "payment.canceled")
			if got := pc.authorizeRequestDelivery(id); got != payd.DeliveryNone {
				t.Errorf("pre-check delivery %q, want no_endpoints", got)
			}
			// The redirect payment of the same shop is denied the same way
			// when the payer chooses a method.
			created := pc.redirect("100.00", nil)
			url := created["confirmation"].(map[string]any)["confirmation_url"].(string)
			if res := pc.payer.Post(url, "csrf", pc.payer.Get(url).CSRF(), "method", "bank_card"); res.Status == 303 {
				t.Fatalf("the payer was sent to the bank: %s", res.Location)
			}
			pc.canceled(created["id"].(string), payd.PartyMerchant, payd.ReasonAuthorizeRequestDenied)
		})

		t.Run("DefaultAllow", func(t *testing.T) {
			t.Parallel()
			pc := newPrecheckCase(t, b, deskNone, nil)
			pc.env.AdminDo("PATCH", "/admin/v1/shops/"+pc.shop.ID, map[string]any{"authorize_request_default_allow": true}).Expect(t, 200)
			id := pc.createQR(pc.c, key(), "100.00")["id"].(string)
			pc.qrReady(id)
			pc.simulated(id, "succeed")
			pc.wait(id, "succeeded")
			pc.wantEvents(id, "payment.authorize_request", "payment.succeeded")
		})

		// A shop without the pre-check gets its QR in the create answer,
		// as before, and is never asked.
		t.Run("Off", func(t *testing.T) {
			t.Parallel()
			pc := newPrecheckCase(t, b, deskAllow, nil)
			pc.env.AdminDo("PATCH", "/admin/v1/shops/"+pc.shop.ID, map[string]any{"authorize_request_webhook": false}).Expect(t, 200)
			id := pc.qr("100.00", nil)
			pc.simulated(id, "succeed")
			pc.wait(id, "succeeded")
			pc.wantEvents(id, "payment.succeeded")
			if q := pc.desk.questions(); len(q) != 0 {
				t.Fatalf("a shop without the pre-check was asked %d times", len(q))
			}
		})
	})
}

// TestPrecheckOneDecision: a payment is asked about once, whatever runs
// again: a replayed creation, a retried job, the cascade's next candidate,
// a payer's second try after the bank was unavailable.
func TestPrecheckOneDecision(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		t.Run("ReplayGivesTheFirstAnswer", func(t *testing.T) {
			t.Parallel()
			pc := newPrecheckCase(t, b, deskAllow, nil)
			idem, body := key(), qrPayment("100.00")
			first := pc.c.Post("/v1/payments", idem, body).Expect(t, 201)
			id := first.JSON(t)["id"].(string)
			pc.qrReady(id)
			again := pc.c.Post("/v1/payments", idem, body).Expect(t, 200)
			if string(again.Body) != string(first.Body) {
				t.Fatalf("replay differs from the first answer:\n%s\n%s", first.Body, again.Body)
			}
			if q := pc.desk.questions(); len(q) != 1 {
				t.Fatalf("%d questions, want 1", len(q))
			}
		})

		t.Run("RetriedJob", func(t *testing.T) {
			t.Parallel()
			pc := newPrecheckCase(t, b, deskSlow, nil)
			id := pc.createQR(pc.c, key(), "100.00")["id"].(string)
			<-pc.desk.arrived
			// A second run while the first waits for the answer neither
			// asks nor attempts: it is told to come back.
			if err := pc.env.Service.StartQRAttempt(t.Context(), id); payd.ErrorCodeOf(err) != payd.CodeInvalidState {
				t.Fatalf("a run beside the asking one: %v, want invalid_state", err)
			}
			pc.qrReady(id)
			for i := 0; i < 2; i++ {
				if err := pc.env.Service.StartQRAttempt(t.Context(), id); err != nil {
					t.Fatalf("a run after the attempt: %v", err)
				}
			}
			decision, attempts := pc.precheckOf(id)
			if len(pc.desk.questions()) != 1 || len(attempts) != 1 || !decisionIs(decision, payd.PrecheckAllow) {
				t.Fatalf("questions %v, attempts %v, precheck %+v: want one of each", pc.desk.questions(), attempts, decision)
			}
			pc.waitJobs("QR attempts", "qr_attempt", 1, func(args []byte) bool { return strings.Contains(string(args), id) })
		})

		t.Run("CascadeNextCandidate", func(t *testing.T) {
			t.Parallel()
			pc := newPrecheckCase(t, b, deskAllow, nil)
			// Amount digits 04: the first bank times out and the cascade
			// goes on to the backup under the same decision.
			id := pc.createQR(pc.c, key(), "100.04")["id"].(string)
			pc.qrReady(id)
			_, attempts := pc.precheckOf(id)
			if len(attempts) != 2 || attempts[0].Result != "timeout" || attempts[1].Result != "created" {
				t.Fatalf("attempts = %+v, want a timeout then a created one", attempts)
			}
			if q := pc.desk.questions(); len(q) != 1 {
				t.Fatalf("%d questions for one payment, want 1", len(q))
			}
		})

		t.Run("CheckoutRetry", func(t *testing.T) {
			t.Parallel()
			pc, lb := newLivePrecheckCase(t, b)
			lb.route(t, payd.RegionRU, payd.MethodBankCard, "RUB", "live_first")
			lb.first.SetTimeout(true)
			created := lb.live.Post("/v1/payments", key(), newPayment("100.00", map[string]any{
				"payment_method": map[string]any{"type": "bank_card"}})).Expect(t, 201).JSON(t)
			url := created["confirmation"].(map[string]any)["confirmation_url"].(string)
			res := pc.payer.Post(url, "csrf", pc.payer.Get(url).CSRF(), "method", "bank_card")
			if res.Status != 503 {
				t.Fatalf("choice with the bank away: %d, want 503", res.Status)
			}
			lb.first.SetTimeout(false)
			res = pc.payer.Post(url, "csrf", pc.payer.Get(url).CSRF(), "method", "bank_card")
			if res.Status != 303 {
				t.Fatalf("second choice: %d %s", res.Status, res.Body)
			}
			if q := pc.desk.questions(); len(q) != 1 {
				t.Fatalf("%d questions, want 1", len(q))
			}
			if n := len(lb.first.Attempts()); n != 2 {
				t.Fatalf("%d attempts at the bank, want the timed-out one and the second", n)
			}
		})

		t.Run("JobRetry", func(t *testing.T) {
			t.Parallel()
			pc, lb := newLivePrecheckCase(t, b)
			lb.route(t, payd.RegionRU, payd.MethodSBP, "RUB", "live_first")
			lb.first.SetTimeout(true)
			id := pc.createQR(lb.live, key(), "100.00")["id"].(string)
			paydtest.Eventually(t, "the first attempt", func() bool { return len(lb.first.Attempts()) >= 1 })
			lb.first.SetTimeout(false)
			// The job failed with provider_unavailable; its retry makes
			// the attempt without asking again.
			var data string
			paydtest.Eventually(t, "the retried attempt", func() bool {
				pc.env.Clock.Advance(2 * time.Second)
				conf, _ := lb.live.Get("/v1/payments/"+id).Expect(t, 200).JSON(t)["confirmation"].(map[string]any)
				data, _ = conf["confirmation_data"].(string)
				return data != ""
			})
			if !strings.HasPrefix(data, "https://qr.sbp.example/") {
				t.Fatalf("confirmation_data = %s", data)
			}
			wantStrings(t, "live_first attempts", []string{id, id}, lb.first.Attempts())
			if q := pc.desk.questions(); len(q) != 1 {
				t.Fatalf("%d questions, want 1", len(q))
			}
		})

		// An asker that stopped during its wait (a restart) leaves a
		// question without a decision. While it may still come back, the
		// payer is told to try again; later the question counts as
		// unanswered and the shop's default decides. The shop is never
		// asked a second time.
		t.Run("LostQuestion", func(t *testing.T) {
			t.Parallel()
			pc := newPrecheckCase(t, b, deskAllow, nil)
			created := pc.redirect("100.00", nil)
			id := created["id"].(string)
			url := created["confirmation"].(map[string]any)["confirmation_url"].(string)
			pc.setPrecheck(id, &payd.Precheck{EventID: "evt_lost", AskedAt: pc.env.Clock.Now()})
			if res := pc.payer.Post(url, "csrf", pc.payer.Get(url).CSRF(), "method", "bank_card"); res.Status != 409 {
				t.Fatalf("choice while the shop is being asked: %d, want 409", res.Status)
			}
			pc.setPrecheck(id, &payd.Precheck{EventID: "evt_lost", AskedAt: pc.env.Clock.Now().Add(-payd.PrecheckLost)})
			if res := pc.payer.Post(url, "csrf", pc.payer.Get(url).CSRF(), "method", "bank_card"); res.Status == 303 {
				t.Fatalf("a lost question under a deny default let the payer through")
			}
			pc.canceled(id, payd.PartyMerchant, payd.ReasonAuthorizeRequestDenied)
			if q := pc.desk.questions(); len(q) != 0 {
				t.Fatalf("the shop was asked again: %v", q)
			}
		})
	})
}

func decisionIs(p *payd.Precheck, decision string) bool { return p != nil && p.Decision == decision }

// setPrecheck writes a payment's pre-check record directly, to play a
// question whose asker stopped.
func (pc *precheckCase) setPrecheck(id string, p *payd.Precheck) {
	pc.t.Helper()
	err := pc.env.Service.Store().Tx(pc.t.Context(), func(tx payd.Tx) error {
		pay, err := tx.PaymentGetForUpdate(pc.t.Context(), id)
		if err != nil {
			return err
		}
		pay.Precheck = p
		return tx.PaymentUpdate(pc.t.Context(), pay)
	})
	if err != nil {
		pc.t.Fatal(err)
	}
}

// newLivePrecheckCase is a precheckCase whose shop is live, with the live
// providers of setupLive, and answers allow.
func newLivePrecheckCase(t *testing.T, b paydtest.Backend) (*precheckCase, *liveBundle) {
	t.Helper()
	lb := &liveBundle{first: paydtest.NewLiveProvider("live_first"), second: paydtest.NewLiveProvider("live_second")}
	return newPrecheckCase(t, b, deskAllow, lb), lb
}

// TestPrecheckKZQR: the kz QR method asks the shop before its attempt as
// SBP does: allowed, its app page takes the payment; with no endpoint the
// deny default cancels it, and nothing can pay it.
func TestPrecheckKZQR(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		for _, kind := range []string{deskAllow, deskNone} {
			t.Run(map[string]string{deskAllow: "Allow", deskNone: "NoEndpoint"}[kind], func(t *testing.T) {
				t.Parallel()
				pc := newPrecheckCaseIn(t, b, payd.RegionKZ, kind, nil)
				body := newPayment("", map[string]any{"amount": map[string]any{"value": "5000.00", "currency": "KZT"},
					"confirmation": map[string]any{"type": "qr"}})
				created := pc.c.Post("/v1/payments", key(), body).Expect(t, 201).JSON(t)
				id := created["id"].(string)
				if conf, _ := created["confirmation"].(map[string]any); created["status"] != "pending" || conf["confirmation_data"] != nil {
					t.Fatalf("created = %v, want pending without QR data before the shop answered", created)
				}
				if kind == deskNone {
					pay := pc.canceled(id, "merchant", "authorize_request_denied")
					if pay["paid"] != false {
						t.Fatalf("denied payment = %v", pay)
					}
					pc.unpayable(id)
					pc.wantEvents(id, "payment.authorize_request", "payment.canceled")
					return
				}
				var data string
				paydtest.Eventually(t, "the kz QR data", func() bool {
					conf, _ := pc.get(id)["confirmation"].(map[string]any)
					data, _ = conf["confirmation_data"].(string)
					return data != ""
				})
				if !strings.HasPrefix(data, pc.env.API.URL+"/sandbox/kz-qr/") {
					t.Fatalf("confirmation_data = %s, want the kz QR app page", data)
				}
				pc.press(data, "pay")
				pc.wait(id, "succeeded")
				pc.wantEvents(id, "payment.authorize_request", "payment.succeeded")
			})
		}
	})
}
