package operator

import (
	"net/http"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/csvexport"
	"github.com/paydhq/payd/internal/httpapi"
)

// staffRoutes are the operator's staff, their API tokens and the operator
// audit log.
func (s *server) staffRoutes(h func(string, func(*http.Request) (int, any, error))) {
	h("GET /admin/v1/staff", s.listStaff)
	h("POST /admin/v1/staff", s.createStaff)
	h("GET /admin/v1/staff/me", s.me)
	h("GET /admin/v1/staff/{id}", s.getStaff)
	h("PATCH /admin/v1/staff/{id}", s.updateStaff)
	h("POST /admin/v1/staff/{id}/setup_link", s.staffSetupLink)
	h("GET /admin/v1/staff/{id}/tokens", s.listStaffTokens)
	h("POST /admin/v1/staff/{id}/tokens", s.issueStaffToken)
	h("POST /admin/v1/staff-tokens/{id}/revoke", s.revokeStaffToken)
	h("GET /admin/v1/audit", s.listOperatorAudit)
	h("GET /admin/v1/audit.csv", s.exportOperatorAudit)
}

// staffJSON is a staff member as the operator API shows it.
type staffJSON struct {
	Object      string         `json:"object"`
	ID          string         `json:"id"`
	Email       string         `json:"email"`
	Role        payd.StaffRole `json:"role"`
	HasPassword bool           `json:"has_password"`
	TOTPEnabled bool           `json:"totp_enabled"`
	CreatedAt   time.Time      `json:"created_at"`
	DisabledAt  *time.Time     `json:"disabled_at"`
}

func staffView(st *payd.Staff) staffJSON {
	return staffJSON{Object: "staff", ID: st.ID, Email: st.Email, Role: st.Role, HasPassword: st.HasPassword,
		TOTPEnabled: st.TOTPEnabled, CreatedAt: st.CreatedAt, DisabledAt: st.DisabledAt}
}

// staffWithLink is a staff member with a fresh setup token: the back
// office's setup page takes it (setup_url when the back office's address
// is known).
type staffWithLink struct {
	staffJSON
	SetupToken string `json:"setup_token"`
}

func (s *server) listStaff(r *http.Request) (int, any, error) {
	list, err := s.acc.ListStaff(r.Context())
	return http.StatusOK, items[staffJSON]{views(list, staffView)}, err
}

// createStaff adds a staff member: {email, role} → 201 the member and
// its setup token.
func (s *server) createStaff(r *http.Request) (int, any, error) {
	var in struct {
		Email string         `json:"email"`
		Role  payd.StaffRole `json:"role"`
	}
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	st, token, err := s.acc.CreateStaff(r.Context(), actorOf(r), in.Email, in.Role)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, staffWithLink{staffJSON: staffView(st), SetupToken: token}, nil
}

// me is who the request's token is: a staff member and its role and
// permissions, or the break-glass token.
func (s *server) me(r *http.Request) (int, any, error) {
	a := actorOf(r)
	out := map[string]any{"object": "staff_actor", "via": a.Via, "permissions": payd.StaffPermissionAll()}
	if a.Via != payd.StaffViaBreakGlass {
		out["staff_id"], out["email"], out["role"], out["permissions"] = a.StaffID, a.Email, a.Role, a.Role.Permissions()
	}
	if a.TokenID != "" {
		out["token_id"] = a.TokenID
	}
	return http.StatusOK, out, nil
}

func (s *server) getStaff(r *http.Request) (int, any, error) {
	st, err := s.acc.GetStaff(r.Context(), r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, staffView(st), nil
}

// updateStaff changes a member's role or disables it: {"role": "...",
// "disabled": true}.
func (s *server) updateStaff(r *http.Request) (int, any, error) {
	var in struct {
		Role     payd.StaffRole `json:"role"`
		Disabled bool           `json:"disabled"`
	}
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	st, err := s.acc.ChangeStaff(r.Context(), actorOf(r), r.PathValue("id"), in.Role, in.Disabled)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, staffView(st), nil
}

// staffSetupLink issues a fresh setup token; the previous one stops
// working.
func (s *server) staffSetupLink(r *http.Request) (int, any, error) {
	st, token, err := s.acc.NewStaffSetupToken(r.Context(), actorOf(r), r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, staffWithLink{staffJSON: staffView(st), SetupToken: token}, nil
}

// staffTokenJSON is a staff API token; the secret is shown once, when it
// is issued.
type staffTokenJSON struct {
	Object     string     `json:"object"`
	ID         string     `json:"id"`
	StaffID    string     `json:"staff_id"`
	Name       string     `json:"name"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

func staffTokenView(k *payd.StaffToken) staffTokenJSON {
	return staffTokenJSON{Object: "staff_token", ID: k.ID, StaffID: k.StaffID, Name: k.Name, CreatedAt: k.CreatedAt,
		LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt}
}

func (s *server) listStaffTokens(r *http.Request) (int, any, error) {
	list, err := s.acc.ListStaffTokens(r.Context(), actorOf(r), r.PathValue("id"))
	return http.StatusOK, items[staffTokenJSON]{views(list, staffTokenView)}, err
}

// issueStaffToken issues a token to the person of the path: {"name"} →
// 201 the token and its secret, shown this once.
func (s *server) issueStaffToken(r *http.Request) (int, any, error) {
	var in struct {
		Name string `json:"name"`
	}
	if err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	k, secret, err := s.acc.IssueStaffToken(r.Context(), actorOf(r), r.PathValue("id"), in.Name)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, struct {
		staffTokenJSON
		Secret string `json:"secret"`
	}{staffTokenView(k), secret}, nil
}

func (s *server) revokeStaffToken(r *http.Request) (int, any, error) {
	k, err := s.acc.RevokeStaffToken(r.Context(), actorOf(r), r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, staffTokenView(k), nil
}

// operatorAuditParams are the operator audit log's filters, read from
// the query.
func operatorAuditParams(r *http.Request) (payd.OperatorAuditListParams, string, error) {
	q := r.URL.Query()
	lp, print, err := httpapi.ParseList(q, "staff_id", "action", "object_id", "merchant_id", "created_at_gte", "created_at_lt")
	if err != nil {
		return payd.OperatorAuditListParams{}, "", err
	}
	created, err := httpapi.ParseTimeRange(q)
	if err != nil {
		return payd.OperatorAuditListParams{}, "", err
	}
	return payd.OperatorAuditListParams{ListParams: lp, StaffID: q.Get("staff_id"), Action: q.Get("action"),
		ObjectID: q.Get("object_id"), MerchantID: q.Get("merchant_id"), Created: created}, print, nil
}

// listOperatorAudit pages the operator audit log, newest first, by its
// filters.
func (s *server) listOperatorAudit(r *http.Request) (int, any, error) {
	p, print, err := operatorAuditParams(r)
	if err != nil {
		return 0, nil, err
	}
	page, err := s.svc.ListOperatorAudit(r.Context(), p)
	return http.StatusOK, pageOf(page, print, operatorAuditView), err
}

// operatorAuditJSON is an entry of the operator audit log.
type operatorAuditJSON struct {
	Object string `json:"object"`
	*payd.OperatorAuditEntry
}

func operatorAuditView(e *payd.OperatorAuditEntry) operatorAuditJSON {
	return operatorAuditJSON{Object: "operator_audit_entry", OperatorAuditEntry: e}
}

// csvAuditColumns are the export's columns, in order.
var csvAuditColumns = []string{"id", "at", "staff_id", "staff_email", "via", "token_id", "addr", "action", "object_id",
	"merchant_id", "before", "after", "detail", "confirmed_by_id", "confirmed_by_email"}

// exportOperatorAudit writes every entry the filters select as CSV,
// newest first, walking the log page by page.
func (s *server) exportOperatorAudit(r *http.Request) (int, any, error) {
	p, _, err := operatorAuditParams(r)
	if err != nil {
		return 0, nil, err
	}
	p.Limit = payd.MaxPageSize
	var rows [][]string
	for {
		page, err := s.svc.ListOperatorAudit(r.Context(), p)
		if err != nil {
			return 0, nil, err
		}
		for _, e := range page.Items {
			rows = append(rows, []string{e.ID, e.At.UTC().Format(time.RFC3339Nano), e.StaffID, e.StaffEmail, e.Via, e.TokenID,
				e.Addr, e.Action, e.ObjectID, e.MerchantID, e.Before, e.After, e.Detail, e.ConfirmedByID, e.ConfirmedByEmail})
		}
		if page.Next == nil {
			break
		}
		p.After = page.Next
	}
	return http.StatusOK, csvBody{header: csvAuditColumns, rows: rows, name: "operator-audit.csv"}, nil
}

// csvBody is an answer written as a CSV file rather than JSON (authed
// tells it apart).
type csvBody struct {
	header []string
	rows   [][]string
	name   string
}

func (b csvBody) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+b.name+`"`)
	cw := csvexport.NewWriter(w)
	_ = cw.Write(b.header)
	for _, row := range b.rows {
		_ = cw.Write(row)
	}
	cw.Flush()
}
