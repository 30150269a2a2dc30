package operator

import (
	"net/http"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/httpapi"
)

// userRoutes are a merchant's dashboard users and its audit log.
func (s *server) userRoutes(h func(string, func(*http.Request) (int, any, error))) {
	h("POST /admin/v1/merchants/{id}/users", s.createUser)
	h("GET /admin/v1/merchants/{id}/users", s.listUsers)
	h("POST /admin/v1/merchants/{id}/users/{user_id}/setup_link", s.userSetupLink)
	h("GET /admin/v1/merchants/{id}/audit", s.listAudit)
}

// createUser adds a dashboard user: {email, role} → 201 the user and its
// setup_url.
func (s *server) createUser(r *http.Request) (int, any, error) {
	var in struct {
		Email string    `json:"email"`
		Role  payd.Role `json:"role"`
	}
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	u, token, err := s.acc.CreateUser(r.Context(), nil, r.PathValue("id"), in.Email, in.Role)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, userWithLink{userJSON: userView(u), SetupURL: s.acc.SetupURL(token)}, nil
}

func (s *server) listUsers(r *http.Request) (int, any, error) {
	users, err := s.acc.ListUsers(r.Context(), r.PathValue("id"))
	return http.StatusOK, items[userJSON]{views(users, userView)}, err
}

// userSetupLink issues a fresh setup link; the previous one stops
// working.
func (s *server) userSetupLink(r *http.Request) (int, any, error) {
	merchantID, userID := r.PathValue("id"), r.PathValue("user_id")
	token, err := s.acc.NewSetupToken(r.Context(), nil, merchantID, userID)
	if err != nil {
		return 0, nil, err
	}
	u, err := s.acc.GetUser(r.Context(), merchantID, userID)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, userWithLink{userJSON: userView(u), SetupURL: s.acc.SetupURL(token)}, nil
}

// listAudit pages a merchant's audit log, newest first.
func (s *server) listAudit(r *http.Request) (int, any, error) {
	lp, print, err := httpapi.ParseList(r.URL.Query())
	if err != nil {
		return 0, nil, err
	}
	p, err := s.svc.ListAudit(r.Context(), r.PathValue("id"), payd.AuditListParams{ListParams: lp})
	return http.StatusOK, pageOf(p, print, auditView), err
}
