package operator

import (
	"time"

	"github.com/paydhq/payd"
)

// userJSON is a dashboard user; its secrets (password hash, second-factor
// secret, setup token) are never shown.
type userJSON struct {
	ID          string     `json:"id"`
	MerchantID  string     `json:"merchant_id"`
	Email       string     `json:"email"`
	Role        payd.Role  `json:"role"`
	HasPassword bool       `json:"has_password"`
	TOTPEnabled bool       `json:"totp_enabled"`
	CreatedAt   time.Time  `json:"created_at"`
	DisabledAt  *time.Time `json:"disabled_at,omitempty"`
}

func userView(u *payd.User) userJSON {
	return userJSON{ID: u.ID, MerchantID: u.MerchantID, Email: u.Email, Role: u.Role, HasPassword: u.HasPassword,
		TOTPEnabled: u.TOTPEnabled, CreatedAt: u.CreatedAt, DisabledAt: u.DisabledAt}
}

// userWithLink is a user with the one-time link that sets its password.
type userWithLink struct {
	userJSON
	SetupURL string `json:"setup_url"`
}

// auditJSON is one entry of a merchant's audit log. The actor's user id
// and email are absent for the operator's own changes.
type auditJSON struct {
	ID         string           `json:"id"`
	MerchantID string           `json:"merchant_id"`
	ShopID     string           `json:"shop_id,omitempty"`
	Mode       payd.Mode        `json:"mode,omitempty"`
	UserID     string           `json:"user_id,omitempty"`
	UserEmail  string           `json:"user_email,omitempty"`
	Action     payd.AuditAction `json:"action"`
	ObjectID   string           `json:"object_id,omitempty"`
	Detail     string           `json:"detail,omitempty"`
	Addr       string           `json:"addr,omitempty"`
	At         time.Time        `json:"at"`
}

func auditView(e *payd.AuditEntry) auditJSON {
	return auditJSON{ID: e.ID, MerchantID: e.MerchantID, ShopID: e.ShopID, Mode: e.Mode, UserID: e.UserID,
		UserEmail: e.UserEmail, Action: e.Action, ObjectID: e.ObjectID, Detail: e.Detail, Addr: e.Addr, At: e.At}
}
