package operator_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/operator"
	"github.com/paydhq/payd/internal/paydtest"
)

const (
	noMerchant = "mer_00000000000000000000000000"
	noShop     = "sh_00000000000000000000000000"
	noPayment  = "pay_00000000000000000000000000"
	noDispute  = "dsp_00000000000000000000000000"
)

// shopSettings sets every shop setting, so that each is swept.
const shopSettings = `{"requests_per_minute":600,"payments_per_minute":120,"ip_allowlist":["10.0.0.0/8"],` +
	`"display_name":"Books","statement_name":"BOOKS","payment_lifetime_seconds":3600,"methods_disabled":["sbp"],` +
	`"authorize_request_webhook":false,"authorize_request_default_allow":false,` +
	`"tariffs":[{"method":"bank_card","currency":"RUB","percent_bps":280,"fixed":0,"min":0,"hold_days":1,"no_fee_return":false}],` +
	`"limits":{"daily_turnover":{"RUB":100000000},"monthly_turnover":{"RUB":1000000000},"payments_per_minute":100,"average_ticket":{"RUB":500000}},` +
	`"hold_days":{"bank_card":7},"ranges":{"bank_card":{"RUB":{"min":100,"max":30000000}}},` +
	`"reserve":[{"currency":"RUB","percent_bps":500,"days":30}],"refund_beyond_available":false,` +
	`"dispute_fees":[{"currency":"RUB","bank_fine":50000,"service_fee":10000}]}`

// operatorBodies are the JSON bodies of the operator API by the pattern of
// their route. Bodies whose Top is optional go to resources that do not
// exist, so that their examples change nothing; shop is the one shop whose
// settings patch is swept.
func operatorBodies(shop string) map[string]paydtest.Body {
	const amount = `{"value":"10.00","currency":"RUB"}`
	return map[string]paydtest.Body{
		"POST /admin/v1/merchants": {
			Path: "/admin/v1/merchants",
			Base: `{"name":"Books","legal_name":"Books LLC","tax_id":"7700000000","settlement_delay_days":1}`,
			Top:  "name", Str: "legal_name",
		},
		"PATCH /admin/v1/merchants/{id}": {
			Path: "/admin/v1/merchants/" + noMerchant,
			Base: `{"settlement_delay_days":1,"auto_settle":true,"chargeback":{"ratio_bps":100,"window_days":30,"min_count":3},"require_second_factor":true}`,
			Top:  "settlement_delay_days", Deep: "chargeback.window_days",
		},
		"POST /admin/v1/shops": {
			Path: "/admin/v1/shops",
			Base: `{"merchant_id":"` + noMerchant + `","region":"ru","name":"Books","default_currency":"RUB","settings":` + shopSettings + `}`,
			Top:  "region", Deep: "settings.limits.daily_turnover.RUB", Str: "name",
		},
		"PATCH /admin/v1/shops/{id}": {
			Path: "/admin/v1/shops/" + shop, Base: shopSettings,
			Top: "display_name", Deep: "tariffs.0.method", Str: "statement_name",
		},
		"POST /admin/v1/shops/{id}/keys": {
			Path: "/admin/v1/shops/" + noShop + "/keys", Base: `{"mode":"test"}`,
			Top: "mode", Str: "mode",
		},
		"POST /admin/v1/merchants/{id}/users": {
			Path: "/admin/v1/merchants/" + noMerchant + "/users",
			Base: `{"email":"staff@example.test","role":"viewer"}`,
			Top:  "email", Str: "role",
		},
		"PUT /admin/v1/provider-routes": {
			Path: "/admin/v1/provider-routes",
			Base: `{"region":"ru","method":"bank_card","currency":"RUB","providers":["acme_bank"]}`,
			Top:  "region", Str: "method",
		},
		"POST /admin/v1/merchants/{id}/settlements": {
			Path: "/admin/v1/merchants/" + noMerchant + "/settlements",
			Base: `{"test":true,"currency":"RUB","date":"2026-01-31"}`,
			Top:  "currency", Str: "date",
		},
		"POST /admin/v1/merchants/{id}/deposit/{action}": {
			Path: "/admin/v1/merchants/" + noMerchant + "/deposit/hold",
			Base: `{"test":true,"amount":` + amount + `}`,
			Top:  "amount", Deep: "amount.value", Str: "amount.currency",
		},
		"POST /admin/v1/merchants/{id}/freeze": {
			Path: "/admin/v1/merchants/" + noMerchant + "/freeze",
			Base: `{"test":true,"reason":"manual_review"}`,
			Top:  "reason", Str: "reason",
		},
		"POST /admin/v1/merchants/{id}/unfreeze": {
			Path: "/admin/v1/merchants/" + noMerchant + "/unfreeze",
			Base: `{"test":true,"reason":"manual_review"}`,
			Top:  "reason", Str: "reason",
		},
		"POST /admin/v1/payments/{id}/disputes": {
			Path: "/admin/v1/payments/" + noPayment + "/disputes",
			Base: `{"kind":"chargeback","amount":` + amount + `,"reason_code":"4837","evidence_deadline_at":"2030-01-31T12:00:00Z",` +
				`"bank_fine_amount":` + amount + `,"service_fee_amount":` + amount + `,"provider_dispute_id":"bank-1"}`,
			Top: "amount", Deep: "bank_fine_amount.currency", Str: "reason_code",
		},
		"POST /admin/v1/disputes/{id}/{action}": {
			Path: "/admin/v1/disputes/" + noDispute + "/win", Base: `{"resolution":"the bank agreed"}`,
			Top: "resolution", Str: "resolution",
		},
		"POST /admin/v1/staff": {
			Path: "/admin/v1/staff", Base: `{"email":"new@operator.test","role":"finance"}`,
			Top: "email", Str: "role",
		},
		"PATCH /admin/v1/staff/{id}": {
			Path: "/admin/v1/staff/" + noStaff, Base: `{"role":"risk","disabled":false}`,
			Top: "role", Str: "role",
		},
		"POST /admin/v1/staff/{id}/tokens": {
			Path: "/admin/v1/staff/" + noStaff + "/tokens", Base: `{"name":"laptop"}`,
			Top: "name", Str: "name",
		},
		"POST /admin/v1/clock/advance": {
			Path: "/admin/v1/clock/advance", Base: `{"seconds":3600}`,
			Top: "seconds",
		},
	}
}

// bodilessRoutes change state without reading a body: the path says it
// all. A route that starts reading one must move to operatorBodies; the
// test sends each a body only a reader would refuse to prove it does not.
var bodilessRoutes = map[string]string{
	"POST /admin/v1/shops/{id}/{action}":                            "/admin/v1/shops/" + noShop + "/block",
	"POST /admin/v1/keys/{id}/revoke":                               "/admin/v1/keys/key_00000000000000000000000000/revoke",
	"POST /admin/v1/events/{id}/resend":                             "/admin/v1/events/evt_00000000000000000000000000/resend",
	"PUT /admin/v1/calendar/{region}/holidays/{day}":                "/admin/v1/calendar/ru/holidays/2030-01-01",
	"DELETE /admin/v1/calendar/{region}/holidays/{day}":             "/admin/v1/calendar/ru/holidays/2030-01-01",
	"DELETE /admin/v1/provider-routes/{region}/{method}/{currency}": "/admin/v1/provider-routes/ru/bank_card/RUB",
	"POST /admin/v1/settlements/{id}/{action}":                      "/admin/v1/settlements/set_00000000000000000000000000/approve",
	"POST /admin/v1/merchants/{id}/users/{user_id}/setup_link":      "/admin/v1/merchants/" + noMerchant + "/users/usr_00000000000000000000000000/setup_link",
	"POST /admin/v1/staff/{id}/setup_link":                          "/admin/v1/staff/" + noStaff + "/setup_link",
	"POST /admin/v1/staff-tokens/{id}/revoke":                       "/admin/v1/staff-tokens/stt_00000000000000000000000000/revoke",
	"POST /admin/v1/proposals/{id}/confirm":                         "/admin/v1/proposals/prp_00000000000000000000000000/confirm",
	"POST /admin/v1/proposals/{id}/reject":                          "/admin/v1/proposals/prp_00000000000000000000000000/reject",
}

// noStaff is a staff id no member has.
const noStaff = "stf_00000000000000000000000000"

// TestOperatorBodiesHaveOneReading sweeps every JSON body of the operator
// API, on both databases, as the merchant API's are swept
// (paydtest.CheckOneReading). The routes come from the operator's own
// table, so a new route with a body cannot be left out: every route that
// may carry one is either swept or shown not to read it.
func TestOperatorBodiesHaveOneReading(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		// Stage M2 serves the dispute routes; the test clock the clock's.
		env := paydtest.Start(t, b, &paydtest.Options{Stage: payd.StageM2})
		shop := env.NewShop(payd.RegionRU, "")
		bodies := operatorBodies(shop.ID)

		patterns := operator.Patterns(operator.Config{Service: env.Service, TestClock: env.Clock})
		for _, p := range patterns {
			method, _, ok := strings.Cut(p, " ")
			if !ok || !slices.Contains([]string{"POST", "PUT", "PATCH", "DELETE"}, method) {
				continue
			}
			_, swept := bodies[p]
			_, bodiless := bodilessRoutes[p]
			if !swept && !bodiless {
				t.Errorf("route %s may carry a body but is neither swept nor listed as bodiless", p)
			}
		}
		for p := range bodies {
			if !slices.Contains(patterns, p) {
				t.Errorf("swept route %s is not registered", p)
			}
		}
		for p := range bodilessRoutes {
			if !slices.Contains(patterns, p) {
				t.Errorf("bodiless route %s is not registered", p)
			}
		}

		type snapshot struct{ Merchants, Shops, Settings any }
		snap := func() snapshot {
			return snapshot{
				Merchants: env.AdminDo("GET", "/admin/v1/merchants", nil).Expect(t, 200).JSON(t)["items"],
				Shops:     len(env.AdminDo("GET", "/admin/v1/shops", nil).Expect(t, 200).JSON(t)["items"].([]any)),
				Settings:  env.AdminDo("GET", "/admin/v1/shops/"+shop.ID, nil).Expect(t, 200).JSON(t)["settings"],
			}
		}
		before := snap()
		clock, wall := env.Clock.Now(), time.Now()

		for p, body := range bodies {
			body.Name, body.Method = p, p[:strings.Index(p, " ")]
			t.Run(body.Name, func(t *testing.T) {
				paydtest.CheckOneReading(t, body, func(raw string) *paydtest.Response {
					return env.AdminDo(body.Method, body.Path, raw)
				})
			})
		}
		for p, path := range bodilessRoutes {
			r := env.AdminDo(p[:strings.Index(p, " ")], path, `{"x":1,"x":2}`)
			if r.Status == 400 && r.ErrorCode() == string(payd.CodeInvalidRequest) && strings.Contains(string(r.Body), `"parameter":"x"`) {
				t.Errorf("%s reads its body: sweep it in operatorBodies\n%s", p, r.Body)
			}
		}

		// Nothing refused changed anything: no merchant or shop was
		// created, the swept shop keeps its settings, the clock stood.
		if d := cmp.Diff(before, snap()); d != "" {
			t.Errorf("refused requests changed the service (-before +after):\n%s", d)
		}
		if moved := env.Clock.Now().Sub(clock) - time.Since(wall); moved > time.Minute {
			t.Errorf("refused clock advances moved the clock by %s", moved)
		}
	})
}
