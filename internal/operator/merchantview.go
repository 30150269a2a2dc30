package operator

import (
	"time"

	"github.com/paydhq/payd"
)

// merchantJSON is a merchant as the operator API shows it.
type merchantJSON struct {
	ID                  string         `json:"id"`
	Name                string         `json:"name"`
	LegalName           string         `json:"legal_name,omitempty"`
	TaxID               string         `json:"tax_id,omitempty"`
	CreatedAt           time.Time      `json:"created_at"`
	SettlementDelayDays int            `json:"settlement_delay_days"`
	AutoSettle          bool           `json:"auto_settle"`
	Chargeback          chargebackJSON `json:"chargeback"`
	RequireSecondFactor bool           `json:"require_second_factor"`
}

// chargebackJSON is the merchant's chargeback-ratio freeze rule as it was
// set: zero fields (the defaults) are left out.
type chargebackJSON struct {
	RatioBps   int `json:"ratio_bps,omitempty"`
	WindowDays int `json:"window_days,omitempty"`
	MinCount   int `json:"min_count,omitempty"`
}

func merchantView(m *payd.Merchant) merchantJSON {
	return merchantJSON{ID: m.ID, Name: m.Name, LegalName: m.LegalName, TaxID: m.TaxID, CreatedAt: m.CreatedAt,
		SettlementDelayDays: m.SettlementDelayDays, AutoSettle: m.AutoSettle,
		Chargeback:          chargebackJSON{RatioBps: m.Chargeback.RatioBps, WindowDays: m.Chargeback.WindowDays, MinCount: m.Chargeback.MinCount},
		RequireSecondFactor: m.RequireSecondFactor}
}
