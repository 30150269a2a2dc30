package operator

import (
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// shopJSON is a shop as the operator API shows it: the stored shop, its
// settings included, unlike the contract's Shop object (payd.ShopView)
// that a merchant's key reads.
type shopJSON struct {
	ID                string         `json:"id"`
	MerchantID        string         `json:"merchant_id"`
	Region            payd.Region    `json:"region"`
	Name              string         `json:"name"`
	DefaultCurrency   money.Currency `json:"default_currency"`
	ActivatedAt       *time.Time     `json:"activated_at,omitempty"`
	Blocked           bool           `json:"blocked"`
	PaymentsSuspended bool           `json:"payments_suspended"`
	Settings          settingsJSON   `json:"settings"`
	CreatedAt         time.Time      `json:"created_at"`
}

func shopView(s *payd.Shop) shopJSON {
	return shopJSON{ID: s.ID, MerchantID: s.MerchantID, Region: s.Region, Name: s.Name, DefaultCurrency: s.DefaultCurrency,
		ActivatedAt: s.ActivatedAt, Blocked: s.Blocked, PaymentsSuspended: s.PaymentsSuspended,
		Settings: settingsView(s.Settings), CreatedAt: s.CreatedAt}
}

// keyJSON is a shop's key without its secret or the secret's hash.
type keyJSON struct {
	ID         string     `json:"id"`
	ShopID     string     `json:"shop_id"`
	Mode       payd.Mode  `json:"mode"`
	Hint       string     `json:"hint"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  *time.Time `json:"expires_at,omitempty"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
}

func keyView(k *payd.APIKey) keyJSON {
	return keyJSON{ID: k.ID, ShopID: k.ShopID, Mode: k.Mode, Hint: k.Hint, CreatedAt: k.CreatedAt,
		ExpiresAt: k.ExpiresAt, RevokedAt: k.RevokedAt, LastUsedAt: k.LastUsedAt}
}

// keyIssued is a key just issued, with its secret: the one answer that
// carries it.
type keyIssued struct {
	keyJSON
	Secret string `json:"secret"`
}
