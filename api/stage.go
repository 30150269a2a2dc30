package api

import (
	"net/http"

	"github.com/paydhq/payd"
)

// laterStages declares the operations of later stages: each exists, checks
// credentials, and answers 501 naming its stage (Stage availability of this
// build). When the build reaches a stage, these routes give way to the real
// handlers.
func (s *Server) laterStages() {
	stages := []struct {
		stage  payd.Stage
		name   string
		routes []string
	}{
		{payd.StageM2, "disputes arrive in stage M2", []string{
			"GET /v1/disputes",
			"GET /v1/disputes/{dispute_id}",
			"POST /v1/disputes/{dispute_id}/evidence/uploads",
			"POST /v1/disputes/{dispute_id}/evidence",
		}},
		{payd.StageM5, "payment links arrive in stage M5", []string{
			"POST /v1/payment-links",
			"GET /v1/payment-links",
			"GET /v1/payment-links/{link_id}",
			"POST /v1/payment-links/{link_id}/deactivate",
		}},
		{payd.StageM5, "payouts arrive in stage M5", []string{
			"POST /v1/payouts",
			"GET /v1/payouts",
			"GET /v1/payouts/{payout_id}",
		}},
	}
	for _, st := range stages {
		if s.svc.Stage() >= st.stage {
			continue
		}
		msg := "not implemented in this build: " + st.name
		for _, route := range st.routes {
			s.mux.Handle(route, s.auth(func(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
				return &payd.Error{Code: payd.CodeNotImplemented, Message: msg}
			}))
		}
	}
}
