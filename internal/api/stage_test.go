package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// TestStageServesItsDocument checks the switch: the served OpenAPI document
// holds the M2 sandbox operations only when the service runs at M2 or
// later, and the declared dispute and payment link operations at every
// stage.
func TestStageServesItsDocument(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		stage       payd.Stage
		wantSandbox bool
	}{{payd.StageM1, false}, {payd.StageM2, true}, {payd.StageM5, true}} {
		t.Run(tt.stage.String(), func(t *testing.T) {
			t.Parallel()
			env := paydtest.Start(t, paydtest.Backend{Name: "sqlite"}, &paydtest.Options{Stage: tt.stage})
			var doc struct {
				Paths map[string]any `json:"paths"`
			}
			r := env.Do("GET", env.API.URL, "/v1/openapi.json", nil, nil).Expect(t, 200)
			if err := json.Unmarshal(r.Body, &doc); err != nil {
				t.Fatal(err)
			}
			if _, ok := doc.Paths["/test/payments/{payment_id}/disputes"]; ok != tt.wantSandbox {
				t.Errorf("sandbox dispute path served %v, want %v", ok, tt.wantSandbox)
			}
			for _, p := range []string{"/disputes", "/payouts", "/payouts/{payout_id}", "/payment-links", "/payment-links/{link_id}/deactivate"} {
				if _, ok := doc.Paths[p]; !ok {
					t.Errorf("the declared %s operation is missing", p)
				}
			}
		})
	}
}

// TestPayoutsFollowTheStage checks the M5 switch for payouts: below M5 the
// three operations answer 501 naming M5 (M2 included), at M5 they answer,
// and Shop.capabilities.payouts says which.
func TestPayoutsFollowTheStage(t *testing.T) {
	t.Parallel()
	const id = "po_00000000000000000000000000"
	for _, tt := range []struct {
		stage payd.Stage
		on    bool
	}{{payd.StageM1, false}, {payd.StageM2, false}, {payd.StageM5, true}} {
		t.Run(tt.stage.String(), func(t *testing.T) {
			t.Parallel()
			env := paydtest.Start(t, paydtest.Backend{Name: "sqlite"}, &paydtest.Options{Stage: tt.stage})
			c := env.As(env.NewShop(payd.RegionRU, ""), false)
			caps := c.Get("/v1/shop").Expect(t, 200).JSON(t)["capabilities"].(map[string]any)
			if caps["payouts"] != tt.on {
				t.Errorf("capabilities.payouts = %v, want %v", caps["payouts"], tt.on)
			}
			calls := []*paydtest.Response{
				c.Post("/v1/payouts", "stage-payout-1", map[string]any{}),
				c.Get("/v1/payouts"),
				c.Get("/v1/payouts/" + id),
			}
			if !tt.on {
				for _, r := range calls {
					r.ExpectError(t, 501, payd.CodeNotImplemented, "")
					if d := r.JSON(t)["description"].(string); !strings.Contains(d, "payouts arrive in stage M5") ||
						!strings.Contains(d, "--stage M5") {
						t.Errorf("%s: description %q does not name stage M5 and its switch", r.Request.URL.Path, d)
					}
				}
				return
			}
			calls[0].ExpectError(t, 400, payd.CodeInvalidRequest, "amount")
			calls[1].Expect(t, 200)
			calls[2].ExpectError(t, 404, payd.CodeNotFound, "")
			// Payment links, the other part of M5, answer beside them.
			c.Get("/v1/payment-links").Expect(t, 200)
		})
	}
}
