package api

import (
	"net/http"

	"github.com/paydhq/payd"
)

// laterStages declares the operations of later stages: each exists, checks
// credentials, and answers 501 naming its stage (Stage availability of this
// build). When the service runs at a stage (`payd serve --stage`), the
// routes whose handlers routes registered for it give way to them; a route
// of a reached stage without a handler still answers 501, never a silent
// 404.
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
			"POST /v1/test/payments/{payment_id}/disputes",
			"POST /v1/test/disputes/{dispute_id}/simulate",
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
		for _, route := range st.routes {
			if s.built[route] {
				continue
			}
			s.mux.Handle(route, s.auth(func(w http.ResponseWriter, r *http.Request, p *payd.Principal) error {
				return payd.LaterStage(s.svc.Stage(), st.stage, st.name)
			}))
		}
	}
}

// handleStage registers the handlers of a reached stage's operations and
// marks them built, so that laterStages leaves them alone.
func (s *Server) handleStage(routes map[string]handler) {
	for pattern, h := range routes {
		s.mux.Handle(pattern, s.auth(h))
		s.built[pattern] = true
	}
}
