package office

import (
	"net/http"
	"net/url"

	"github.com/paydhq/payd"
)

// The staff pages: who works in the back office, their roles, and setup
// links for new members or lost phones. Only a member whose role manages
// staff sees them; the API refuses everyone else.

type staffView struct {
	Items []map[string]any
	Roles []payd.StaffRole
	// Link is a setup address just issued, shown this once.
	Link, LinkEmail string
}

func (h *Handler) staffList(q *req) {
	h.renderStaff(q, http.StatusOK, "", "")
}

func (h *Handler) renderStaff(q *req, status int, link, email string) {
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if !q.get("/admin/v1/staff", &list) {
		return
	}
	q.render(status, "staff", "staff", q.l.T("Staff"), staffView{Items: list.Items, Roles: payd.StaffRoleAll(), Link: link, LinkEmail: email})
}

// createStaff adds a member and shows its setup link once.
func (h *Handler) createStaff(q *req) {
	body := map[string]string{"email": q.r.PostForm.Get("email"), "role": q.r.PostForm.Get("role")}
	h.withSetupLink(q, "/admin/v1/staff", body)
}

// staffSetupLink issues a new setup link (a forgotten password or a lost
// phone: the second factor is enrolled again).
func (h *Handler) staffSetupLink(q *req) {
	h.withSetupLink(q, "/admin/v1/staff/"+url.PathEscape(q.r.PathValue("id"))+"/setup_link", nil)
}

func (h *Handler) withSetupLink(q *req, path string, body any) {
	a := q.call(http.MethodPost, path, body)
	if !a.ok() {
		q.refused(a)
		return
	}
	var st struct {
		Email      string `json:"email"`
		SetupToken string `json:"setup_token"`
	}
	if err := a.decode(&st); err != nil {
		q.problem(http.StatusBadGateway, q.l.T("Something went wrong; try again."))
		return
	}
	h.renderStaff(q, http.StatusOK, q.origin()+SetupPath+st.SetupToken, st.Email)
}

// updateStaff changes a member's role, or disables it.
func (h *Handler) updateStaff(q *req) {
	body := map[string]any{}
	if role := q.r.PostForm.Get("role"); role != "" {
		body["role"] = role
	}
	if q.r.PostForm.Get("disable") == "1" {
		body["disabled"] = true
	}
	q.change(http.MethodPatch, "/admin/v1/staff/"+url.PathEscape(q.r.PathValue("id")), body, Prefix+"staff")
}
