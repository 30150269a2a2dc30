package api_test

// Sandbox behaviour of the contract (Sandbox: amount digits, metadata
// overrides, simulate, bank pages) and payment expiry on the service clock
// (States and transitions: Payment).
//
// Every case runs on a service of its own: cases move the service clock,
// and one case's clock jump must not settle another case's payment.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// sandbox is one case's own service with a shop, its test-key client and a
// payer's browser.
type sandbox struct {
	t     *testing.T
	env   *paydtest.Env
	shop  *paydtest.Shop
	c     *paydtest.Client
	payer *paydtest.Payer
}

func newSandbox(t *testing.T, b paydtest.Backend) *sandbox {
	t.Helper()
	return newSandboxIn(t, b, payd.RegionRU)
}

// newSandboxIn is newSandbox with a shop of region.
func newSandboxIn(t *testing.T, b paydtest.Backend, region payd.Region) *sandbox {
	t.Helper()
	env := paydtest.Start(t, b, nil)
	shop := env.NewShop(region, "")
	return &sandbox{t: t, env: env, shop: shop, c: env.As(shop, false), payer: env.Payer()}
}

// sandboxMetadata makes the `metadata` field of a create request.
func sandboxMetadata(kv ...string) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return map[string]any{"metadata": m}
}

// twoStageCapture asks for a two-stage payment.
var twoStageCapture = map[string]any{"capture": false}

// redirect creates a redirect payment and returns it as created.
func (s *sandbox) redirect(value string, extra map[string]any) map[string]any {
	s.t.Helper()
	created := s.c.Post("/v1/payments", key(), newPayment(value, extra)).Expect(s.t, 201).JSON(s.t)
	if created["status"] != "pending" {
		s.t.Fatalf("created = %v", created)
	}
	return created
}

// checkout creates a redirect payment, has the payer choose the card on
// the hosted page, and returns the payment id and the bank page the payer
// is sent to. The provider attempt exists from this moment.
func (s *sandbox) checkout(value string, extra map[string]any) (id, bank string) {
	s.t.Helper()
	created := s.redirect(value, extra)
	url := created["confirmation"].(map[string]any)["confirmation_url"].(string)
	bank = s.payer.Choose(url, "bank_card")
	if !strings.Contains(bank, "/sandbox/bank/sbx_") {
		s.t.Fatalf("payer sent to %s, want a sandbox bank page", bank)
	}
	return created["id"].(string), bank
}

// qr creates a QR payment (RUB): its provider attempt is made with the
// payment, and confirmation_data is the address of the SBP page.
func (s *sandbox) qr(value string, extra map[string]any) string {
	s.t.Helper()
	body := newPayment(value, extra)
	body["confirmation"] = map[string]any{"type": "qr"}
	created := s.c.Post("/v1/payments", key(), body).Expect(s.t, 201).JSON(s.t)
	conf, _ := created["confirmation"].(map[string]any)
	data, _ := conf["confirmation_data"].(string)
	if conf["type"] != "qr" || !strings.HasPrefix(data, s.env.API.URL+"/sandbox/sbp/sbx_") {
		s.t.Fatalf("QR confirmation = %v, want confirmation_data at %s/sandbox/sbp/", conf, s.env.API.URL)
	}
	return created["id"].(string)
}

// pay presses pay on the bank page and enters code on the 3-D Secure page;
// the payer goes back to the shop either way.
func (s *sandbox) pay(bank, code string) {
	s.t.Helper()
	if res := s.payer.PayCard(bank, code); res.Status != 303 || res.Location != "https://shop.example.com/return" {
		s.t.Fatalf("3-D Secure with %s: %d %s\n%s", code, res.Status, res.Location, res.Body)
	}
}

// press presses a button of the bank or SBP page and returns the form
// token, to submit the page again later.
func (s *sandbox) press(page, action string) (csrf string) {
	s.t.Helper()
	pg := s.payer.Get(page)
	if pg.Status != 200 || pg.CSRF() == "" {
		s.t.Fatalf("page %s: %d\n%s", page, pg.Status, pg.Body)
	}
	if res := s.payer.Post(page, "csrf", pg.CSRF(), "action", action); res.Status != 303 {
		s.t.Fatalf("button %s: %d\n%s", action, res.Status, res.Body)
	}
	return pg.CSRF()
}

// alreadyProcessed reports whether body is the 'already processed' page,
// in any language of the pages (its language follows the payer and the
// region).
func alreadyProcessed(body string) bool {
	return slices.ContainsFunc([]string{"Already processed", "Уже обработано", "Бұрын өңделген"},
		func(title string) bool { return strings.Contains(body, title) })
}

// decidedOnce submits the page's form again with each action: a decided
// operation answers 409 with an 'already processed' page (Sandbox: bank
// pages).
func (s *sandbox) decidedOnce(page, csrf string, actions ...string) {
	s.t.Helper()
	for _, action := range actions {
		again := s.payer.Post(page, "csrf", csrf, "action", action)
		if again.Status != 409 || !alreadyProcessed(again.Body) {
			s.t.Fatalf("second submission (%s) of %s: %d\n%s", action, page, again.Status, again.Body)
		}
	}
}

func (s *sandbox) get(id string) map[string]any {
	s.t.Helper()
	return s.c.Get("/v1/payments/"+id).Expect(s.t, 200).JSON(s.t)
}

func (s *sandbox) wait(id, status string) map[string]any {
	s.t.Helper()
	return s.c.WaitStatus(id, status)
}

// canceled waits for the payment to be canceled with reason by party. The
// contract names the party only for declines (payment_network) and the
// merchant's cancel; an empty party is not checked.
func (s *sandbox) canceled(id, party, reason string) map[string]any {
	s.t.Helper()
	pay := s.wait(id, "canceled")
	cd, _ := pay["cancellation_details"].(map[string]any)
	if (party != "" && cd["party"] != party) || cd["reason"] != reason || pay["canceled_at"] == nil || pay["paid"] != false {
		s.t.Fatalf("canceled payment = %v, want party %s, reason %s", pay, party, reason)
	}
	return pay
}

// holds checks the payment keeps status once the service has done all
// that is due (Env.Settle): a job wrongly due by now has run.
func (s *sandbox) holds(id, status string) {
	s.t.Helper()
	s.env.Settle(s.t)
	if got := s.get(id)["status"]; got != status {
		s.t.Fatalf("payment became %v, want it to stay %s", got, status)
	}
}

func (s *sandbox) advance(d time.Duration) { s.env.Clock.Advance(d) }

func (s *sandbox) simulate(id string, body map[string]any) *paydtest.Response {
	s.t.Helper()
	return s.c.Post("/v1/test/payments/"+id+"/simulate", key(), body)
}

// simulated asks for outcome and expects it accepted: 202 with no body.
func (s *sandbox) simulated(id, outcome string) {
	s.t.Helper()
	s.accepted(s.simulate(id, map[string]any{"outcome": outcome}))
}

func (s *sandbox) accepted(r *paydtest.Response) {
	s.t.Helper()
	r.Expect(s.t, 202)
	if len(r.Body) != 0 {
		s.t.Fatalf("simulate answered 202 with a body: %s", r.Body)
	}
}

// events returns the types of the payment's events, sorted.
func (s *sandbox) events(id string) []string {
	s.t.Helper()
	var list struct {
		Items []struct {
			Type string
			Data struct {
				Object struct{ ID string }
			}
		}
	}
	s.c.Get("/v1/events?limit=100&object_id="+id).Expect(s.t, 200).Decode(s.t, &list)
	var out []string
	for _, e := range list.Items {
		if e.Data.Object.ID != id {
			s.t.Fatalf("event %s of another object %s", e.Type, e.Data.Object.ID)
		}
		out = append(out, e.Type)
	}
	slices.Sort(out)
	return out
}

// wantEvents checks the payment has exactly the events of the given types.
func (s *sandbox) wantEvents(id string, types ...string) {
	s.t.Helper()
	slices.Sort(types)
	if got := s.events(id); !slices.Equal(got, types) {
		s.t.Fatalf("events of %s = %v, want %v", id, got, types)
	}
}

// operator returns the payment as the operator API shows it: with the
// provider and the cascade's attempts the merchant does not see.
func (s *sandbox) operator(id string) map[string]any {
	s.t.Helper()
	return s.env.AdminDo("GET", "/admin/v1/payments/"+id, nil).Expect(s.t, 200).JSON(s.t)
}

// discrepancies returns the discrepancies recorded for the payment, as the
// operator lists them.
func (s *sandbox) discrepancies(id string) []map[string]any {
	s.t.Helper()
	var list struct{ Items []map[string]any }
	s.env.AdminDo("GET", "/admin/v1/discrepancies?limit=100", nil).Expect(s.t, 200).Decode(s.t, &list)
	var out []map[string]any
	for _, d := range list.Items {
		if d["payment_id"] == id {
			out = append(out, d)
		}
	}
	return out
}

// queuedJob is a row of the job queue's own table.
type queuedJob struct {
	state, errors string
	args          []byte
}

// jobs returns the queued, running and finished jobs of kind whose
// arguments satisfy match. The merchant API cannot show that a provider
// notification arrived and was acknowledged without effect (a duplicate)
// or that a status query ran, so these checks read the queue's table.
func (s *sandbox) jobs(kind string, match func(args []byte) bool) []queuedJob {
	s.t.Helper()
	rows, err := s.env.InspectDB().Query(
		"SELECT state, args, COALESCE(CAST(errors AS TEXT), '') FROM river_job WHERE kind = '" + kind + "'")
	if err != nil {
		s.t.Fatalf("read the job queue: %v", err)
	}
	defer rows.Close()
	var out []queuedJob
	for rows.Next() {
		var j queuedJob
		if err := rows.Scan(&j.state, &j.args, &j.errors); err != nil {
			s.t.Fatalf("read the job queue: %v", err)
		}
		if match(j.args) {
			out = append(out, j)
		}
	}
	if err := rows.Err(); err != nil {
		s.t.Fatalf("read the job queue: %v", err)
	}
	return out
}

// waitJobs waits until at least n jobs of kind matching match have
// completed; when they do not, it fails with each job's state and errors.
func (s *sandbox) waitJobs(what, kind string, n int, match func(args []byte) bool) {
	s.t.Helper()
	var last []queuedJob
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		last = s.jobs(kind, match)
		done := 0
		for _, j := range last {
			if j.state == "completed" {
				done++
			}
		}
		if done >= n {
			return
		}
	}
	var b strings.Builder
	for _, j := range last {
		fmt.Fprintf(&b, "\n  %s %s", j.state, j.errors)
	}
	s.t.Fatalf("want %d %s processed, the queue has %d:%s", n, what, len(last), b.String())
}

// aboutAttempt matches provider notifications about a provider attempt.
func aboutAttempt(providerPaymentID string) func([]byte) bool {
	return func(raw []byte) bool {
		n, err := notificationOf(raw)
		return err == nil && n.ProviderPaymentID == providerPaymentID
	}
}

// notificationOf is the notification a provider_notification job carries.
func notificationOf(raw []byte) (payd.Notification, error) {
	var args payd.ProviderNotificationArgs
	var env struct {
		Event payd.Notification `json:"event"`
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return env.Event, fmt.Errorf("notification job %s: %w", raw, err)
	}
	if err := json.Unmarshal(args.Payload, &env); err != nil {
		return env.Event, fmt.Errorf("notification %s: %w", args.Payload, err)
	}
	return env.Event, nil
}

// statusQueryOf matches provider status queries of a payment's attempt.
func statusQueryOf(id string) func([]byte) bool {
	return func(raw []byte) bool {
		var args payd.ProviderStatusArgs
		return json.Unmarshal(raw, &args) == nil && args.PaymentID == id && args.ProviderPaymentID != ""
	}
}

// TestSandboxAmountDigits checks the outcomes chosen by the last two digits
// of the amount on the redirect and card flow, and the bank page's own
// buttons on a plain amount.
func TestSandboxAmountDigits(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		value string
		// then drives the bank page the payer was sent to and checks the
		// outcome.
		then func(s *sandbox, id, bank string)
	}{
		{"01 bank decline", "100.01", func(s *sandbox, id, bank string) {
			// The decline is in the bank's answer to the attempt: no
			// button is needed, and the bank page has nothing left to do.
			s.canceled(id, "payment_network", "general_decline")
			if pg := s.payer.Get(bank); !alreadyProcessed(pg.Body) {
				s.t.Errorf("bank page after the decline: %d\n%s", pg.Status, pg.Body)
			}
			s.wantEvents(id, "payment.canceled")
		}},
		{"02 authorization only", "100.02", func(s *sandbox, id, bank string) {
			if s.get(id)["capture"] != true {
				s.t.Fatal("capture does not default to true")
			}
			s.pay(bank, "123456")
			pay := s.wait(id, "waiting_for_capture")
			if pay["paid"] != false || pay["authorized_at"] == nil || pay["captured_amount"].(map[string]any)["value"] != "0.00" {
				s.t.Fatalf("authorized = %v", pay)
			}
			s.wantEvents(id, "payment.waiting_for_capture")
		}},
		{"03 failed 3-D Secure despite the right code", "100.03", func(s *sandbox, id, bank string) {
			s.pay(bank, "123456")
			s.canceled(id, "payment_network", "three_d_secure_failed")
			s.wantEvents(id, "payment.canceled")
		}},
		{"04 provider timeout goes to the backup", "100.04", func(s *sandbox, id, bank string) {
			op := s.operator(id)
			attempts, _ := op["attempts"].([]any)
			timedOut := false
			for _, a := range attempts {
				a := a.(map[string]any)
				timedOut = timedOut || (a["provider"] == "sandbox" && a["result"] == "timeout")
			}
			if op["provider"] != "sandbox_backup" || !timedOut {
				s.t.Fatalf("operator view: provider %v, attempts %v; want sandbox_backup after a timeout of sandbox", op["provider"], attempts)
			}
			s.pay(bank, "123456")
			s.wait(id, "succeeded")
			s.wantEvents(id, "payment.succeeded")
		}},
		{"05 notification delayed by 60 s", "100.05", func(s *sandbox, id, bank string) {
			s.pay(bank, "123456")
			s.advance(40 * time.Second)
			s.holds(id, "pending")
			s.advance(25 * time.Second)
			s.wait(id, "succeeded")
			s.wantEvents(id, "payment.succeeded")
		}},
		{"06 notification delivered twice", "100.06", func(s *sandbox, id, bank string) {
			s.pay(bank, "123456")
			s.wait(id, "succeeded")
			ppid := s.operator(id)["provider_payment_id"].(string)
			s.waitJobs("notifications (the second one a repeat)", "provider_notification", 2, aboutAttempt(ppid))
			s.wantEvents(id, "payment.succeeded")
			// A repeat is acknowledged and dropped, not a discrepancy.
			if d := s.discrepancies(id); len(d) != 0 {
				s.t.Fatalf("a repeated notification was processed again: %v", d)
			}
		}},
		{"07 expires by confirmation timeout", "100.07", func(s *sandbox, id, bank string) {
			s.pay(bank, "123456")
			s.holds(id, "pending")
			s.wantEvents(id)
			exp, err := time.Parse(time.RFC3339, s.get(id)["expires_at"].(string))
			if err != nil {
				s.t.Fatal(err)
			}
			s.advance(exp.Sub(s.env.Clock.Now()) + time.Minute)
			s.canceled(id, "", "expired_on_confirmation")
			s.wantEvents(id, "payment.canceled")
		}},
		{"00 wrong 3-D Secure code", "100.00", func(s *sandbox, id, bank string) {
			s.pay(bank, "654321")
			s.canceled(id, "payment_network", "three_d_secure_failed")
		}},
		{"00 button insufficient funds", "100.00", func(s *sandbox, id, bank string) {
			csrf := s.press(bank, "insufficient_funds")
			s.canceled(id, "payment_network", "insufficient_funds")
			s.decidedOnce(bank, csrf, "pay", "insufficient_funds")
		}},
		{"00 button card expired", "100.00", func(s *sandbox, id, bank string) {
			csrf := s.press(bank, "card_expired")
			s.canceled(id, "payment_network", "card_expired")
			s.decidedOnce(bank, csrf, "pay", "card_expired")
		}},
		{"00 button issuer declined", "100.00", func(s *sandbox, id, bank string) {
			csrf := s.press(bank, "issuer_declined")
			s.canceled(id, "payment_network", "issuer_declined")
			s.decidedOnce(bank, csrf, "pay", "issuer_declined")
			s.wantEvents(id, "payment.canceled")
		}},
	}
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				s := newSandbox(t, b)
				id, bank := s.checkout(tc.value, nil)
				tc.then(s, id, bank)
			})
		}
	})
}

// TestSandboxMetadataOverrides checks the metadata keys that override the
// amount digits, and that a misspelled key is ignored.
func TestSandboxMetadataOverrides(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		value string
		extra map[string]any
		then  func(s *sandbox, id, bank string)
	}{
		{"sandbox_outcome beats the digits", "100.01", sandboxMetadata("sandbox_outcome", "succeed"), func(s *sandbox, id, bank string) {
			s.pay(bank, "123456")
			s.wait(id, "succeeded")
		}},
		{"sandbox_outcome authorize on a plain amount", "100.00", sandboxMetadata("sandbox_outcome", "authorize"), func(s *sandbox, id, bank string) {
			s.pay(bank, "123456")
			s.wait(id, "waiting_for_capture")
		}},
		{"sandbox_decline_code names the reason", "100.01", sandboxMetadata("sandbox_decline_code", "card_expired"), func(s *sandbox, id, bank string) {
			s.canceled(id, "payment_network", "card_expired")
		}},
		{"sandbox_decline_code with sandbox_outcome decline", "100.00",
			sandboxMetadata("sandbox_outcome", "decline", "sandbox_decline_code", "card_expired"), func(s *sandbox, id, bank string) {
				s.canceled(id, "payment_network", "card_expired")
			}},
		{"unknown decline code is a general decline", "100.01", sandboxMetadata("sandbox_decline_code", "no_such_code"), func(s *sandbox, id, bank string) {
			s.canceled(id, "payment_network", "general_decline")
		}},
		{"misspelled key is ignored", "100.01", sandboxMetadata("sandbox_outcom", "succeed"), func(s *sandbox, id, bank string) {
			s.canceled(id, "payment_network", "general_decline")
		}},
		{"sandbox_delay_seconds lengthens the late delay", "100.05", sandboxMetadata("sandbox_delay_seconds", "200"), func(s *sandbox, id, bank string) {
			s.pay(bank, "123456")
			// Past the default 60 s, short of the 200 s asked for.
			s.advance(70 * time.Second)
			s.holds(id, "pending")
			s.advance(140 * time.Second)
			s.wait(id, "succeeded")
		}},
		{"sandbox_delay_seconds shortens the late delay", "100.05", sandboxMetadata("sandbox_delay_seconds", "5"), func(s *sandbox, id, bank string) {
			s.pay(bank, "123456")
			// Well short of the default 60 s even with the wait below.
			s.advance(6 * time.Second)
			s.wait(id, "succeeded")
		}},
	}
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				s := newSandbox(t, b)
				id, bank := s.checkout(tc.value, tc.extra)
				tc.then(s, id, bank)
			})
		}
	})
}

// Starting states of a QR payment for the simulate table.
const (
	fromPending         = "pending"
	fromPendingTwoStage = "pending two-stage"
	fromWaiting         = "waiting_for_capture"
	fromSucceeded       = "succeeded"
	fromExpired         = "expired pending"
	fromExpiredOnHold   = "expired hold"
	fromDeclined        = "declined"
	fromMerchantCancel  = "canceled by the merchant"
)

// qrIn creates a QR payment and brings it to the starting state from.
func (s *sandbox) qrIn(from string) string {
	s.t.Helper()
	switch from {
	case fromPending:
		return s.qr("100.00", nil)
	case fromPendingTwoStage:
		return s.qr("100.00", twoStageCapture)
	case fromWaiting:
		id := s.qr("100.00", twoStageCapture)
		s.simulated(id, "authorize")
		s.wait(id, "waiting_for_capture")
		return id
	case fromSucceeded:
		id := s.qr("100.00", nil)
		s.simulated(id, "succeed")
		s.wait(id, "succeeded")
		return id
	case fromExpired:
		id := s.qr("100.00", nil)
		s.simulated(id, "expire")
		s.canceled(id, "", "expired_on_confirmation")
		return id
	case fromExpiredOnHold:
		id := s.qrIn(fromWaiting)
		s.simulated(id, "expire")
		s.canceled(id, "", "expired_on_capture")
		return id
	case fromDeclined:
		id := s.qr("100.00", nil)
		s.simulated(id, "decline")
		s.wait(id, "canceled")
		return id
	case fromMerchantCancel:
		id := s.qr("100.00", nil)
		s.c.Post("/v1/payments/"+id+"/cancel", key(), nil).Expect(s.t, 200)
		return id
	}
	s.t.Fatalf("unknown starting state %q", from)
	return ""
}

// TestSandboxSimulate checks `POST /test/payments/{id}/simulate`: each
// outcome takes effect from the states the Sandbox table allows and is
// refused with 422 invalid_state from the others; then the request rules.
func TestSandboxSimulate(t *testing.T) {
	t.Parallel()
	outcomes := []struct {
		outcome, from string
		// then checks the effect; nil means the outcome is refused.
		then func(s *sandbox, id string)
	}{
		{"succeed", fromPending, func(s *sandbox, id string) {
			pay := s.wait(id, "succeeded")
			if pay["paid"] != true || pay["payment_method"].(map[string]any)["type"] != "sbp" ||
				pay["captured_amount"].(map[string]any)["value"] != "100.00" {
				s.t.Fatalf("succeeded = %v", pay)
			}
			s.wantEvents(id, "payment.succeeded")
		}},
		{"succeed", fromWaiting, func(s *sandbox, id string) {
			s.wait(id, "succeeded")
			s.wantEvents(id, "payment.waiting_for_capture", "payment.succeeded")
		}},
		{"authorize", fromPendingTwoStage, func(s *sandbox, id string) {
			pay := s.wait(id, "waiting_for_capture")
			if pay["paid"] != false || pay["authorized_at"] == nil {
				s.t.Fatalf("authorized = %v", pay)
			}
			s.wantEvents(id, "payment.waiting_for_capture")
		}},
		{"decline", fromPending, func(s *sandbox, id string) {
			s.canceled(id, "payment_network", "issuer_declined")
			s.wantEvents(id, "payment.canceled")
		}},
		{"expire", fromPending, func(s *sandbox, id string) {
			s.canceled(id, "", "expired_on_confirmation")
			s.wantEvents(id, "payment.canceled")
		}},
		{"expire", fromWaiting, func(s *sandbox, id string) {
			s.canceled(id, "", "expired_on_capture")
			s.wantEvents(id, "payment.waiting_for_capture", "payment.canceled")
		}},
		{"three_ds_fail", fromPending, func(s *sandbox, id string) {
			s.canceled(id, "payment_network", "three_d_secure_failed")
			s.wantEvents(id, "payment.canceled")
		}},
		{"provider_timeout", fromPending, func(s *sandbox, id string) {
			// The status is asked again; the bank has no answer yet, so
			// the payment stays pending and can still be paid.
			s.waitJobs("status query", "provider_status", 1, statusQueryOf(id))
			if st := s.get(id)["status"]; st != "pending" {
				s.t.Fatalf("after provider_timeout: %v", st)
			}
			s.wantEvents(id)
			s.simulated(id, "succeed")
			s.wait(id, "succeeded")
		}},
		{"late_webhook", fromExpired, func(s *sandbox, id string) {
			lateWebhook(s, id, "expired_on_confirmation", "payment.canceled")
		}},
		{"late_webhook", fromExpiredOnHold, func(s *sandbox, id string) {
			lateWebhook(s, id, "expired_on_capture", "payment.waiting_for_capture", "payment.canceled")
		}},
		{"duplicate_webhook", fromSucceeded, func(s *sandbox, id string) {
			ppid := s.operator(id)["provider_payment_id"].(string)
			s.waitJobs("notifications (the second one a repeat)", "provider_notification", 2, aboutAttempt(ppid))
			if st := s.get(id)["status"]; st != "succeeded" {
				s.t.Fatalf("after duplicate_webhook: %v", st)
			}
			s.wantEvents(id, "payment.succeeded")
			if d := s.discrepancies(id); len(d) != 0 {
				s.t.Fatalf("a repeated notification was processed again: %v", d)
			}
		}},

		{"succeed", fromSucceeded, nil},
		{"succeed", fromMerchantCancel, nil},
		{"succeed", fromExpired, nil},
		{"authorize", fromWaiting, nil},
		{"authorize", fromSucceeded, nil},
		{"decline", fromWaiting, nil},
		{"decline", fromSucceeded, nil},
		{"expire", fromSucceeded, nil},
		{"expire", fromMerchantCancel, nil},
		{"three_ds_fail", fromWaiting, nil},
		{"three_ds_fail", fromDeclined, nil},
		{"provider_timeout", fromWaiting, nil},
		{"provider_timeout", fromSucceeded, nil},
		{"late_webhook", fromPending, nil},
		{"late_webhook", fromSucceeded, nil},
		{"late_webhook", fromMerchantCancel, nil},
		{"late_webhook", fromDeclined, nil},
		{"duplicate_webhook", fromPending, nil},
		{"duplicate_webhook", fromExpired, nil},
	}
	requests := []struct {
		name string
		run  func(s *sandbox)
	}{
		{"delay_seconds 120 waits for the clock", func(s *sandbox) {
			id := s.qrIn(fromPending)
			s.accepted(s.simulate(id, map[string]any{"outcome": "succeed", "delay_seconds": 120}))
			s.advance(100 * time.Second)
			s.holds(id, "pending")
			s.advance(25 * time.Second)
			s.wait(id, "succeeded")
		}},
		{"delay_seconds 0 applies at once", func(s *sandbox) {
			id := s.qrIn(fromPending)
			s.accepted(s.simulate(id, map[string]any{"outcome": "decline", "delay_seconds": 0}))
			s.wait(id, "canceled")
		}},
		{"delay_seconds 300 is accepted", func(s *sandbox) {
			id := s.qrIn(fromPending)
			s.accepted(s.simulate(id, map[string]any{"outcome": "succeed", "delay_seconds": 300}))
		}},
		{"delay_seconds out of range", func(s *sandbox) {
			id := s.qrIn(fromPending)
			for _, d := range []int{301, -1} {
				s.simulate(id, map[string]any{"outcome": "succeed", "delay_seconds": d}).
					ExpectError(s.t, 400, payd.CodeInvalidRequest, "delay_seconds")
			}
			s.wantEvents(id)
		}},
		{"unknown or missing outcome", func(s *sandbox) {
			id := s.qrIn(fromPending)
			s.simulate(id, map[string]any{"outcome": "explode"}).ExpectError(s.t, 400, payd.CodeInvalidRequest, "outcome")
			s.simulate(id, map[string]any{"delay_seconds": 1}).ExpectError(s.t, 400, payd.CodeInvalidRequest, "outcome")
		}},
		{"replay answers 200 and applies once", func(s *sandbox) {
			id := s.qrIn(fromPending)
			k, body := key(), map[string]any{"outcome": "succeed"}
			s.accepted(s.c.Post("/v1/test/payments/"+id+"/simulate", k, body))
			s.wait(id, "succeeded")
			again := s.c.Post("/v1/test/payments/"+id+"/simulate", k, body).Expect(s.t, 200)
			if len(again.Body) != 0 {
				s.t.Fatalf("replay answered with a body: %s", again.Body)
			}
			s.wantEvents(id, "payment.succeeded")
		}},
		{"live key is forbidden", func(s *sandbox) {
			id := s.qrIn(fromPending)
			s.env.AdminDo("POST", "/admin/v1/shops/"+s.shop.ID+"/activate", nil).Expect(s.t, 200)
			s.env.As(s.shop, true).Post("/v1/test/payments/"+id+"/simulate", key(), map[string]any{"outcome": "succeed"}).
				ExpectError(s.t, 403, payd.CodeForbidden, "")
			if st := s.get(id)["status"]; st != "pending" {
				s.t.Fatalf("after a refused simulate: %v", st)
			}
		}},
		{"another shop's payment is not found", func(s *sandbox) {
			id := s.qrIn(fromPending)
			other := s.env.As(s.env.NewShop(payd.RegionRU, s.shop.MerchantID), false)
			other.Post("/v1/test/payments/"+id+"/simulate", key(), map[string]any{"outcome": "succeed"}).
				ExpectError(s.t, 404, payd.CodeNotFound, "")
			s.c.Post("/v1/test/payments/pay_00000000000000000000000000/simulate", key(), map[string]any{"outcome": "succeed"}).
				ExpectError(s.t, 404, payd.CodeNotFound, "")
			if st := s.get(id)["status"]; st != "pending" {
				s.t.Fatalf("after a refused simulate: %v", st)
			}
		}},
		{"duplicate_webhook after a refund repeats the payment's notification", func(s *sandbox) {
			id := s.qrIn(fromSucceeded)
			refund := s.c.Post("/v1/refunds", key(), map[string]any{"payment_id": id, "amount": rub("10.00")}).Expect(s.t, 201).JSON(s.t)
			paydtest.Eventually(s.t, "the refund to succeed", func() bool {
				return s.c.Get("/v1/refunds/"+refund["id"].(string)).Expect(s.t, 200).JSON(s.t)["status"] == "succeeded"
			})
			s.simulated(id, "duplicate_webhook")
			ppid := s.operator(id)["provider_payment_id"].(string)
			s.waitJobs("notifications (the payment's, the refund's, a repeat)", "provider_notification", 3, aboutAttempt(ppid))
			var kinds []payd.NotificationKind
			for _, j := range s.jobs("provider_notification", aboutAttempt(ppid)) {
				n, err := notificationOf(j.args)
				if err != nil {
					s.t.Fatal(err)
				}
				kinds = append(kinds, n.Kind)
			}
			slices.Sort(kinds)
			if want := []payd.NotificationKind{payd.NotifyRefundSucceeded, payd.NotifySucceeded, payd.NotifySucceeded}; !slices.Equal(kinds, want) {
				s.t.Fatalf("notifications about the attempt = %v, want %v", kinds, want)
			}
			if d := s.discrepancies(id); len(d) != 0 {
				s.t.Fatalf("the repeat was processed again: %v", d)
			}
			s.wantEvents(id, "payment.succeeded")
		}},
		{"redirect payment before a method is chosen", func(s *sandbox) {
			id := s.redirect("100.00", nil)["id"].(string)
			s.simulate(id, map[string]any{"outcome": "succeed"}).ExpectError(s.t, 422, payd.CodeInvalidState, "")
		}},
	}
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		for _, tc := range outcomes {
			verdict := "applies"
			if tc.then == nil {
				verdict = "refused"
			}
			t.Run(fmt.Sprintf("%s from %s %s", tc.outcome, tc.from, verdict), func(t *testing.T) {
				t.Parallel()
				s := newSandbox(t, b)
				id := s.qrIn(tc.from)
				if tc.then == nil {
					before := s.get(id)
					s.simulate(id, map[string]any{"outcome": tc.outcome}).ExpectError(t, 422, payd.CodeInvalidState, "")
					after := s.get(id)
					if after["status"] != before["status"] {
						t.Fatalf("refused %s moved the payment from %v to %v", tc.outcome, before["status"], after["status"])
					}
					return
				}
				s.simulated(id, tc.outcome)
				tc.then(s, id)
			})
		}
		for _, tc := range requests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				tc.run(newSandbox(t, b))
			})
		}
	})
}

// lateWebhook checks the effect of a late notification on an expired
// payment: it stays canceled for reason with only the events it had, and
// the operator sees a discrepancy naming it.
func lateWebhook(s *sandbox, id, reason string, events ...string) {
	s.t.Helper()
	var found []map[string]any
	paydtest.Eventually(s.t, "a discrepancy for "+id, func() bool {
		found = s.discrepancies(id)
		return len(found) > 0
	})
	if len(found) != 1 || found[0]["payment_status"] != "canceled" || found[0]["kind"] != "succeeded" {
		s.t.Errorf("discrepancies = %v, want the one late success", found)
	}
	pay := s.get(id)
	if pay["status"] != "canceled" || pay["paid"] != false ||
		pay["cancellation_details"].(map[string]any)["reason"] != reason {
		s.t.Fatalf("a late notification revived the payment: %v", pay)
	}
	s.wantEvents(id, events...)
}

// TestPaymentExpiry checks that payments expire on the service clock: a
// pending payment at expires_at (given or the shop's default lifetime),
// an authorization at the end of its hold.
func TestPaymentExpiry(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		run  func(s *sandbox)
	}{
		{"pending at expires_at", func(s *sandbox) {
			at := s.env.Clock.Now().Add(10 * time.Minute).UTC().Truncate(time.Second)
			created := s.redirect("100.00", map[string]any{"expires_at": at.Format(time.RFC3339)})
			id := created["id"].(string)
			if got, _ := time.Parse(time.RFC3339, created["expires_at"].(string)); !got.Equal(at) {
				s.t.Fatalf("expires_at = %v, want %v", created["expires_at"], at)
			}
			s.advance(9 * time.Minute)
			s.holds(id, "pending")
			s.advance(2 * time.Minute)
			s.canceled(id, "", "expired_on_confirmation")
			s.wantEvents(id, "payment.canceled")
			// The hosted page of an expired payment is closed.
			url := created["confirmation"].(map[string]any)["confirmation_url"].(string)
			if pg := s.payer.Get(url); pg.Status != 404 {
				s.t.Fatalf("checkout of an expired payment: %d", pg.Status)
			}
		}},
		{"waiting_for_capture at the end of the 7-day hold", func(s *sandbox) {
			id, bank := s.checkout("100.00", twoStageCapture)
			s.pay(bank, "123456")
			pay := s.wait(id, "waiting_for_capture")
			authorized, _ := time.Parse(time.RFC3339, pay["authorized_at"].(string))
			hold, _ := time.Parse(time.RFC3339, pay["expires_at"].(string))
			if d := hold.Sub(authorized); d < 7*24*time.Hour-time.Second || d > 7*24*time.Hour+time.Second {
				s.t.Fatalf("hold ends %v after authorization, want 7 days", d)
			}
			s.advance(6 * 24 * time.Hour)
			s.holds(id, "waiting_for_capture")
			s.advance(24*time.Hour + time.Minute)
			s.canceled(id, "", "expired_on_capture")
			s.wantEvents(id, "payment.waiting_for_capture", "payment.canceled")
			s.c.Post("/v1/payments/"+id+"/capture", key(), nil).ExpectError(s.t, 422, payd.CodeInvalidState, "")
		}},
		{"shop payment_lifetime_seconds is the default", func(s *sandbox) {
			s.env.AdminDo("PATCH", "/admin/v1/shops/"+s.shop.ID, map[string]any{"payment_lifetime_seconds": 900}).Expect(s.t, 200)
			now := s.env.Clock.Now()
			created := s.redirect("100.00", nil)
			id := created["id"].(string)
			exp, _ := time.Parse(time.RFC3339, created["expires_at"].(string))
			if d := exp.Sub(now); d < 15*time.Minute-5*time.Second || d > 15*time.Minute+5*time.Second {
				s.t.Fatalf("default lifetime %v, want the shop's 15 minutes", d)
			}
			s.advance(14 * time.Minute)
			s.holds(id, "pending")
			s.advance(2 * time.Minute)
			s.canceled(id, "", "expired_on_confirmation")
		}},
	}
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				tc.run(newSandbox(t, b))
			})
		}
	})
}

// TestSandboxQRApps checks the banking-app pages of both regions' QR
// methods, the target of a QR payment's confirmation_data: SBP in ru,
// kz_qr in kz. They differ only by the app's name and address; their
// buttons decide once.
func TestSandboxQRApps(t *testing.T) {
	t.Parallel()
	apps := []struct {
		region                              payd.Region
		method, path, name, value, currency string
		shown                               string // the amount as the region's language writes it
	}{
		{payd.RegionRU, payd.MethodSBP, "/sandbox/sbp/", "СБП", "100.00", "RUB", "100,00\u00a0₽"},
		{payd.RegionKZ, payd.MethodKZQR, "/sandbox/kz-qr/", "KZ QR", "1000.00", "KZT", "1\u00a0000,00\u00a0₸"},
	}
	cases := []struct {
		name, action string
		then         func(s *sandbox, id, method string)
	}{
		{"pay", "pay", func(s *sandbox, id, method string) {
			paidBy(s, id, method)
			s.wantEvents(id, "payment.succeeded")
		}},
		{"decline", "issuer_declined", func(s *sandbox, id, _ string) {
			s.canceled(id, "payment_network", "issuer_declined")
		}},
	}
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		for _, app := range apps {
			for _, tc := range cases {
				t.Run(app.method+" "+tc.name, func(t *testing.T) {
					t.Parallel()
					s := newSandboxIn(t, b, app.region)
					id, page := s.qrValue(app.value, app.currency, app.path, nil)
					pg := s.payer.Get(page)
					if pg.Status != 200 || !strings.Contains(pg.Body, app.shown) ||
						!strings.Contains(pg.Body, "<h1>"+app.name+" · ") ||
						!strings.Contains(pg.Body, `action="`+strings.TrimPrefix(page, s.env.API.URL)+`"`) {
						t.Fatalf("%s page: %d\n%s", app.name, pg.Status, pg.Body)
					}
					csrf := s.press(page, tc.action)
					tc.then(s, id, app.method)
					s.decidedOnce(page, csrf, "pay", "issuer_declined")
				})
			}
		}
		// A form decides only through its own page: Pay sent to an app's
		// address for a card attempt would skip 3-D Secure, and one app
		// cannot answer for another's payment.
		t.Run("another method's address", func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, b)
			id, bank := s.checkout("100.00", nil)
			qrID, sbp := s.qrValue("100.00", "RUB", "/sandbox/sbp/", nil)
			for _, wrong := range []struct{ page, to string }{
				{bank, strings.Replace(bank, "/sandbox/bank/", "/sandbox/sbp/", 1)},
				{bank, strings.Replace(bank, "/sandbox/bank/", "/sandbox/kz-qr/", 1)},
				{sbp, strings.Replace(sbp, "/sandbox/sbp/", "/sandbox/kz-qr/", 1)},
				{sbp, strings.Replace(sbp, "/sandbox/sbp/", "/sandbox/bank/", 1) + "/3ds"},
			} {
				csrf := s.payer.Get(wrong.page).CSRF()
				if res := s.payer.Post(wrong.to, "csrf", csrf, "action", "pay", "code", "123456"); res.Status != 404 {
					t.Errorf("POST %s with the form of %s: %d, want 404\n%s", wrong.to, wrong.page, res.Status, res.Body)
				}
			}
			for _, id := range []string{id, qrID} {
				s.notifications(id)
			}
			// Both payments can still be paid on their own pages.
			s.pay(bank, "123456")
			s.press(sbp, "pay")
			s.wait(id, "succeeded")
			s.wait(qrID, "succeeded")
		})
	})
}
