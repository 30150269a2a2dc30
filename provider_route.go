package payd

import (
	"time"

	"github.com/paydhq/payd/money"
)

// ProviderRoute is an operator's routing row for live payments: the
// providers that take payments of a region, method and currency, in cascade
// order. Test payments never read it: they always go to the sandbox banks.
type ProviderRoute struct {
	Region    Region         `json:"region"`
	Method    string         `json:"method"`
	Currency  money.Currency `json:"currency"`
	Providers []string       `json:"providers"`
	UpdatedAt time.Time      `json:"updated_at"`
}
