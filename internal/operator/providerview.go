package operator

import (
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// providerJSON names a registered provider and whether live payments (or
// live payouts, for a payout provider) may be routed to it.
type providerJSON struct {
	Name    string `json:"name"`
	Live    bool   `json:"live"`
	Payouts bool   `json:"payouts,omitempty"`
}

func providerView(p payd.ProviderInfo) providerJSON {
	return providerJSON{Name: p.Name, Live: p.Live, Payouts: p.Payouts}
}

// routeJSON is a row of the live routing table.
type routeJSON struct {
	Region    payd.Region    `json:"region"`
	Method    string         `json:"method"`
	Currency  money.Currency `json:"currency"`
	Providers []string       `json:"providers"`
	UpdatedAt time.Time      `json:"updated_at"`
}

func routeView(r *payd.ProviderRoute) routeJSON {
	return routeJSON{Region: r.Region, Method: r.Method, Currency: r.Currency, Providers: r.Providers, UpdatedAt: r.UpdatedAt}
}

// discrepancyJSON is a provider report that could not be applied.
// payment_status is the status of the object the report was about when
// it arrived (payd.Discrepancy.ObjectStatus): the payment's, the refund's
// for a refund's report, the dispute's for a report on a known dispute.
// The name is older than refunds and disputes, and operators' tools read
// it.
type discrepancyJSON struct {
	ID                string    `json:"id"`
	PaymentID         string    `json:"payment_id"`
	Provider          string    `json:"provider"`
	NotificationID    string    `json:"notification_id"`
	Kind              string    `json:"kind"`
	PaymentStatus     string    `json:"payment_status"`
	Detail            string    `json:"detail"`
	CreatedAt         time.Time `json:"created_at"`
	ProviderPaymentID string    `json:"provider_payment_id"`
}

func discrepancyView(d *payd.Discrepancy) discrepancyJSON {
	return discrepancyJSON{ID: d.ID, PaymentID: d.PaymentID, Provider: d.Provider, NotificationID: d.NotificationID,
		Kind: string(d.Kind), PaymentStatus: d.ObjectStatus, Detail: d.Detail, CreatedAt: d.CreatedAt,
		ProviderPaymentID: d.ProviderPaymentID}
}
