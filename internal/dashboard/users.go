package dashboard

import (
	"errors"
	"net/http"

	"github.com/paydhq/payd"
)

type usersView struct {
	Users    []*payd.User
	Roles    []payd.Role
	Require  bool
	Err      formError
	Email    string
	Role     string
	SetupURL string // shown once, after an invitation or a new link
	For      string
}

var roles = []payd.Role{payd.RoleAdmin, payd.RoleSupport, payd.RoleDeveloper, payd.RoleViewer}

// users lists the merchant's users, with the forms an admin changes them
// with.
func (h *Handler) users(q *req) { h.showUsers(q, http.StatusOK, usersView{}) }

func (h *Handler) showUsers(q *req, status int, v usersView) {
	list, err := h.svc.ListUsers(q.ctx, q.user.MerchantID)
	if err != nil {
		q.fail(err)
		return
	}
	m, err := h.svc.GetMerchant(q.ctx, q.user.MerchantID)
	if err != nil {
		q.fail(err)
		return
	}
	v.Users, v.Roles, v.Require = list, roles, m.RequireSecondFactor
	q.render(status, "users", "users", q.l.T("Users"), v)
}

// invite creates a user and shows its one-time setup link once: the user
// sets a password there.
func (h *Handler) invite(q *req) {
	email, roleName := q.r.PostForm.Get("email"), q.r.PostForm.Get("role")
	role, err := payd.ParseRole(roleName)
	if err == nil {
		var u *payd.User
		var token string
		u, token, err = h.svc.CreateUser(q.ctx, q.actor(), q.user.MerchantID, email, role)
		if err == nil {
			h.showUsers(q, http.StatusOK, usersView{SetupURL: h.svc.SetupURL(token), For: u.Email})
			return
		}
	}
	h.usersRefused(q, "invite", err, usersView{Email: email, Role: roleName})
}

func (h *Handler) usersRefused(q *req, form string, err error, v usersView) {
	var pe *payd.Error
	if errors.As(err, &pe) && pe.Code != payd.CodeInternal {
		v.Err = formError{Form: form, Field: pe.Param, Message: pe.Message}
		h.showUsers(q, httpStatusOf(pe), v)
		return
	}
	q.fail(err)
}

func (h *Handler) changeRole(q *req) {
	role, err := payd.ParseRole(q.r.PostForm.Get("role"))
	if err == nil {
		_, err = h.svc.ChangeUserRole(q.ctx, q.actor(), q.user.MerchantID, q.r.PathValue("id"), role)
	}
	if err != nil {
		h.usersRefused(q, "role-"+q.r.PathValue("id"), err, usersView{})
		return
	}
	http.Redirect(q.w, q.r, Prefix+"users?done=role", http.StatusSeeOther)
}

func (h *Handler) disableUser(q *req) {
	if _, err := h.svc.DisableUser(q.ctx, q.actor(), q.user.MerchantID, q.r.PathValue("id")); err != nil {
		h.usersRefused(q, "role-"+q.r.PathValue("id"), err, usersView{})
		return
	}
	http.Redirect(q.w, q.r, Prefix+"users?done=disabled", http.StatusSeeOther)
}

// setupLink issues a fresh setup link (the old one stops working) and shows
// it once.
func (h *Handler) setupLink(q *req) {
	id := q.r.PathValue("id")
	token, err := h.svc.NewSetupToken(q.ctx, q.actor(), q.user.MerchantID, id)
	if err != nil {
		h.usersRefused(q, "role-"+id, err, usersView{})
		return
	}
	u, err := h.svc.GetUser(q.ctx, q.user.MerchantID, id)
	if err != nil {
		q.fail(err)
		return
	}
	h.showUsers(q, http.StatusOK, usersView{SetupURL: h.svc.SetupURL(token), For: u.Email})
}

func (h *Handler) policy(q *req) {
	require := q.r.PostForm.Get("require") == "1"
	if _, err := h.svc.SetSecondFactorPolicy(q.ctx, q.actor(), q.user.MerchantID, require); err != nil {
		h.usersRefused(q, "policy", err, usersView{})
		return
	}
	http.Redirect(q.w, q.r, Prefix+"users?done=policy", http.StatusSeeOther)
}
