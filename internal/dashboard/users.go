package dashboard

import (
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

// users lists the merchant's users, with the forms an admin changes them
// with.
func (h *Handler) users(q *req) { h.showUsers(q, http.StatusOK, usersView{}) }

func (h *Handler) showUsers(q *req, status int, v usersView) {
	list, err := h.acc.ListUsers(q.ctx, q.user.MerchantID)
	if err != nil {
		q.fail(err)
		return
	}
	m, err := h.svc.GetMerchant(q.ctx, q.user.MerchantID)
	if err != nil {
		q.fail(err)
		return
	}
	v.Users, v.Roles, v.Require = list, payd.RoleAll(), m.RequireSecondFactor
	q.render(status, "users", "users", q.l.T("Users"), v)
}

// invite creates a user and shows its one-time setup link once: the user
// sets a password there.
func (h *Handler) invite(q *req) {
	email, roleName := q.r.PostForm.Get("email"), q.r.PostForm.Get("role")
	type invited struct {
		user  *payd.User
		token string
	}
	act(q, func() (invited, error) {
		role, err := payd.ParseRole(roleName)
		if err != nil {
			return invited{}, err
		}
		u, token, err := h.acc.CreateUser(q.ctx, q.actor(), q.user.MerchantID, email, role)
		return invited{u, token}, err
	}, func(in invited) {
		h.showUsers(q, http.StatusOK, usersView{SetupURL: h.acc.SetupURL(in.token), For: in.user.Email})
	}, h.usersRefused(q, "invite", usersView{Email: email, Role: roleName}))
}

// usersRefused shows the users page again with a refusal next to its form
// and what v keeps of what was typed.
func (h *Handler) usersRefused(q *req, form string, v usersView) func(*payd.Error) {
	return func(pe *payd.Error) {
		v.Err = refusedIn(q.l, form, pe)
		h.showUsers(q, httpStatusOf(pe), v)
	}
}

func (h *Handler) changeRole(q *req) {
	act(q, func() (*payd.User, error) {
		role, err := payd.ParseRole(q.r.PostForm.Get("role"))
		if err != nil {
			return nil, err
		}
		return h.acc.ChangeUserRole(q.ctx, q.actor(), q.user.MerchantID, q.r.PathValue("id"), role)
	}, func(*payd.User) { http.Redirect(q.w, q.r, Prefix+"users?done=role", http.StatusSeeOther) },
		h.usersRefused(q, "role-"+q.r.PathValue("id"), usersView{}))
}

func (h *Handler) disableUser(q *req) {
	act(q, func() (*payd.User, error) {
		return h.acc.DisableUser(q.ctx, q.actor(), q.user.MerchantID, q.r.PathValue("id"))
	}, func(*payd.User) {
		http.Redirect(q.w, q.r, Prefix+"users?done=disabled", http.StatusSeeOther)
	}, h.usersRefused(q, "role-"+q.r.PathValue("id"), usersView{}))
}

// setupLink issues a fresh setup link (the old one stops working) and shows
// it once.
func (h *Handler) setupLink(q *req) {
	id := q.r.PathValue("id")
	act(q, func() (string, error) { return h.acc.NewSetupToken(q.ctx, q.actor(), q.user.MerchantID, id) },
		func(token string) {
			u, err := h.acc.GetUser(q.ctx, q.user.MerchantID, id)
			if err != nil {
				q.fail(err)
				return
			}
			h.showUsers(q, http.StatusOK, usersView{SetupURL: h.acc.SetupURL(token), For: u.Email})
		}, h.usersRefused(q, "role-"+id, usersView{}))
}

func (h *Handler) policy(q *req) {
	require := q.r.PostForm.Get("require") == "1"
	act(q, func() (*payd.Merchant, error) {
		return h.acc.SetSecondFactorPolicy(q.ctx, q.actor(), q.user.MerchantID, require)
	}, func(*payd.Merchant) {
		http.Redirect(q.w, q.r, Prefix+"users?done=policy", http.StatusSeeOther)
	}, h.usersRefused(q, "policy", usersView{}))
}
