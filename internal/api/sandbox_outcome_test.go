package api_test

// The sandbox outcome chosen at creation — by the amount's last two digits
// or the metadata overrides (Sandbox) — against every trigger that applies
// it: the SBP app's Pay, the kz QR app's Pay, the card page's Pay with
// 3-D Secure, the 3-D Secure page on its own, and simulate `succeed`. The
// chosen outcome wins whatever the trigger (docs/sandbox.md, "Outcomes by
// trigger").

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// outcomeTrigger is one way the payer's confirmation reaches the sandbox
// bank.
type outcomeTrigger struct {
	name   string
	region payd.Region
	// method is the payment method the payment ends with.
	method string
	// start creates a payment whose amount ends in digits and returns its
	// id and the bank page the trigger works on.
	start func(s *sandbox, digits string, extra map[string]any) (id, page string)
	// fire confirms the payment; the bank must take the confirmation.
	fire func(s *sandbox, id, page string)
	// refused checks that the trigger cannot undo a decline the bank
	// gave in its answer to the attempt.
	refused func(s *sandbox, id, page string)
}

// qrValue creates a QR payment of value in currency; its confirmation_data
// must be the QR app page under app.
func (s *sandbox) qrValue(value, currency, app string, extra map[string]any) (id, page string) {
	s.t.Helper()
	body := newPayment(value, extra)
	body["amount"] = map[string]any{"value": value, "currency": currency}
	body["confirmation"] = map[string]any{"type": "qr"}
	created := s.c.Post("/v1/payments", key(), body).Expect(s.t, 201).JSON(s.t)
	conf, _ := created["confirmation"].(map[string]any)
	data, _ := conf["confirmation_data"].(string)
	if conf["type"] != "qr" || !strings.HasPrefix(data, s.env.API.URL+app+payd.PrefixSandboxAttempt) {
		s.t.Fatalf("QR confirmation = %v, want confirmation_data at %s%s", conf, s.env.API.URL, app)
	}
	return created["id"].(string), data
}

// appPay presses Pay in a QR app page.
func appPay(s *sandbox, _, page string) { s.press(page, "pay") }

// alreadyDecided checks a bank page says the bank has decided, and offers
// no form to decide again.
func alreadyDecided(s *sandbox, page string) {
	s.t.Helper()
	pg := s.payer.Get(page)
	if !alreadyProcessed(pg.Body) || pg.CSRF() != "" {
		s.t.Fatalf("page %s after the bank declined: %d\n%s", page, pg.Status, pg.Body)
	}
}

var outcomeTriggers = []outcomeTrigger{
	{
		name: "SBP app Pay", region: payd.RegionRU, method: payd.MethodSBP,
		start: func(s *sandbox, digits string, extra map[string]any) (string, string) {
			return s.qrValue("100."+digits, "RUB", "/sandbox/sbp/", extra)
		},
		fire:    appPay,
		refused: func(s *sandbox, _, page string) { alreadyDecided(s, page) },
	},
	{
		name: "kz QR app Pay", region: payd.RegionKZ, method: payd.MethodKZQR,
		start: func(s *sandbox, digits string, extra map[string]any) (string, string) {
			return s.qrValue("1000."+digits, "KZT", "/sandbox/kz-qr/", extra)
		},
		fire:    appPay,
		refused: func(s *sandbox, _, page string) { alreadyDecided(s, page) },
	},
	{
		name: "card page Pay and 3-D Secure", region: payd.RegionRU, method: payd.MethodBankCard,
		start: func(s *sandbox, digits string, extra map[string]any) (string, string) {
			return s.checkout("100."+digits, extra)
		},
		fire:    func(s *sandbox, _, bank string) { s.pay(bank, "123456") },
		refused: func(s *sandbox, _, bank string) { alreadyDecided(s, bank) },
	},
	{
		name: "3-D Secure page", region: payd.RegionRU, method: payd.MethodBankCard,
		start: func(s *sandbox, digits string, extra map[string]any) (string, string) {
			return s.checkout("100."+digits, extra)
		},
		fire: func(s *sandbox, _, bank string) {
			s.t.Helper()
			pg := s.payer.Get(bank + "/3ds")
			res := s.payer.Post(bank+"/3ds", "csrf", pg.CSRF(), "code", "123456")
			if res.Status != 303 {
				s.t.Fatalf("3-D Secure: %d\n%s", res.Status, res.Body)
			}
		},
		refused: func(s *sandbox, _, bank string) { alreadyDecided(s, bank+"/3ds") },
	},
	{
		name: "simulate succeed", region: payd.RegionRU, method: payd.MethodSBP,
		start: func(s *sandbox, digits string, extra map[string]any) (string, string) {
			return s.qrValue("100."+digits, "RUB", "/sandbox/sbp/", extra)
		},
		fire: func(s *sandbox, id, _ string) { s.simulated(id, "succeed") },
		refused: func(s *sandbox, id, _ string) {
			s.simulate(id, map[string]any{"outcome": "succeed"}).ExpectError(s.t, 422, payd.CodeInvalidState, "")
		},
	},
}

// Outcomes a row expects, whatever the trigger.
const (
	endSucceeded  = "succeeded"
	endAuthorized = "authorization only"
	endDeclined   = "bank decline"
	endThreeDS    = "failed 3-D Secure"
	endBackup     = "timeout, then the backup bank"
	endLate       = "late notification"
	endTwice      = "notification twice"
	endExpired    = "no answer, expiry"
)

// TestSandboxOutcomeByTrigger checks every row of the contract's amount
// and metadata tables against every trigger.
func TestSandboxOutcomeByTrigger(t *testing.T) {
	t.Parallel()
	meta := sandboxMetadata
	rows := []struct {
		name   string
		digits string
		extra  map[string]any
		end    string
		// reason is the cancellation reason of a decline; delay the
		// lateness of a late notification.
		reason string
		delay  time.Duration
	}{
		{"amount 00", "00", nil, endSucceeded, "", 0},
		{"amount 01", "01", nil, endDeclined, "general_decline", 0},
		{"amount 02", "02", nil, endAuthorized, "", 0},
		{"amount 03", "03", nil, endThreeDS, "", 0},
		{"amount 04", "04", nil, endBackup, "", 0},
		{"amount 05", "05", nil, endLate, "", 60 * time.Second},
		{"amount 06", "06", nil, endTwice, "", 0},
		{"amount 07", "07", nil, endExpired, "", 0},
		{"sandbox_outcome succeed over 03", "03", meta("sandbox_outcome", "succeed"), endSucceeded, "", 0},
		{"sandbox_outcome decline", "00", meta("sandbox_outcome", "decline"), endDeclined, "general_decline", 0},
		{"sandbox_outcome authorize", "00", meta("sandbox_outcome", "authorize"), endAuthorized, "", 0},
		{"sandbox_outcome three_ds_fail", "00", meta("sandbox_outcome", "three_ds_fail"), endThreeDS, "", 0},
		{"sandbox_outcome provider_timeout", "00", meta("sandbox_outcome", "provider_timeout"), endBackup, "", 0},
		{"sandbox_outcome late_webhook", "00", meta("sandbox_outcome", "late_webhook"), endLate, "", 60 * time.Second},
		{"sandbox_outcome duplicate_webhook", "00", meta("sandbox_outcome", "duplicate_webhook"), endTwice, "", 0},
		{"sandbox_outcome expire", "00", meta("sandbox_outcome", "expire"), endExpired, "", 0},
		{"sandbox_decline_code alone", "00", meta("sandbox_decline_code", "card_expired"), endDeclined, "card_expired", 0},
		{"sandbox_delay_seconds", "05", meta("sandbox_delay_seconds", "200"), endLate, "", 200 * time.Second},
		{"misspelled key leaves 03", "03", meta("sandbox_outcom", "succeed"), endThreeDS, "", 0},
	}
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		for _, row := range rows {
			for _, tr := range outcomeTriggers {
				t.Run(fmt.Sprintf("%s by %s", row.name, tr.name), func(t *testing.T) {
					t.Parallel()
					s := newSandboxIn(t, b, tr.region)
					id, page := tr.start(s, row.digits, row.extra)
					if row.end == endDeclined {
						// The decline is in the bank's answer to the
						// attempt; no trigger can take it back.
						s.canceled(id, "payment_network", row.reason)
						tr.refused(s, id, page)
						s.wantEvents(id, "payment.canceled")
						return
					}
					if row.end == endBackup {
						if p := s.operator(id)["provider"]; p != "sandbox_backup" {
							t.Fatalf("provider %v, want sandbox_backup after the first bank timed out", p)
						}
					}
					tr.fire(s, id, page)
					switch row.end {
					case endSucceeded, endBackup:
						paidBy(s, id, tr.method)
						s.wantEvents(id, "payment.succeeded")
					case endAuthorized:
						pay := s.wait(id, "waiting_for_capture")
						if pay["paid"] != false || pay["payment_method"].(map[string]any)["type"] != tr.method {
							t.Fatalf("authorized = %v", pay)
						}
						s.wantEvents(id, "payment.waiting_for_capture")
					case endThreeDS:
						s.canceled(id, "payment_network", "three_d_secure_failed")
						s.wantEvents(id, "payment.canceled")
					case endLate:
						// The bank's one notification waits for its time
						// on the service clock; the payment waits with it.
						s.notifications(id, "scheduled")
						s.advance(row.delay - 20*time.Second)
						s.notifications(id, "scheduled")
						if st := s.get(id)["status"]; st != "pending" {
							t.Fatalf("before the late notification: %v", st)
						}
						s.advance(25 * time.Second)
						paidBy(s, id, tr.method)
						s.wantEvents(id, "payment.succeeded")
					case endTwice:
						paidBy(s, id, tr.method)
						ppid := s.operator(id)["provider_payment_id"].(string)
						s.waitJobs("notifications (the second one a repeat)", "provider_notification", 2, aboutAttempt(ppid))
						s.wantEvents(id, "payment.succeeded")
						if d := s.discrepancies(id); len(d) != 0 {
							t.Fatalf("a repeated notification was processed again: %v", d)
						}
					case endExpired:
						// The bank keeps silent; the payment waits for its
						// expiry.
						s.notifications(id)
						if st := s.get(id)["status"]; st != "pending" {
							t.Fatalf("after the confirmation: %v", st)
						}
						s.wantEvents(id)
						exp, err := time.Parse(time.RFC3339, s.get(id)["expires_at"].(string))
						if err != nil {
							t.Fatal(err)
						}
						s.advance(exp.Sub(s.env.Clock.Now()) + time.Minute)
						s.canceled(id, "", "expired_on_confirmation")
						s.wantEvents(id, "payment.canceled")
					default:
						t.Fatalf("unknown outcome %q", row.end)
					}
				})
			}
		}
	})
}

// paidBy waits for the payment to succeed and checks it was paid by method.
func paidBy(s *sandbox, id, method string) {
	s.t.Helper()
	pay := s.wait(id, "succeeded")
	if pay["paid"] != true || pay["payment_method"].(map[string]any)["type"] != method {
		s.t.Fatalf("succeeded = %v, want paid by %s", pay, method)
	}
}

// notifications checks the states of the bank's notifications about the
// payment's attempt in the job queue: one per state given, none when none
// is given.
func (s *sandbox) notifications(id string, states ...string) {
	s.t.Helper()
	ppid := s.operator(id)["provider_payment_id"].(string)
	var got []string
	for _, j := range s.jobs("provider_notification", aboutAttempt(ppid)) {
		got = append(got, j.state)
	}
	if !slices.Equal(got, states) {
		s.t.Fatalf("notifications about %s: %v, want %v", ppid, got, states)
	}
}
