package api_test

import (
	"encoding/json"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/paydtest"
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
			for _, p := range []string{"/disputes", "/payment-links", "/payment-links/{link_id}/deactivate"} {
				if _, ok := doc.Paths[p]; !ok {
					t.Errorf("the declared %s operation is missing", p)
				}
			}
		})
	}
}
