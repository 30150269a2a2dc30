package payd

import "context"

// MerchantUpdate is the operator's change of a merchant's settlement
// settings.
type MerchantUpdate struct {
	SettlementDelayDays *int  `json:"settlement_delay_days"`
	AutoSettle          *bool `json:"auto_settle"`
	// Chargeback replaces the chargeback-ratio rule (zero fields: the
	// defaults).
	Chargeback *ChargebackRule `json:"chargeback"`
	// RequireSecondFactor sets the merchant's second-factor policy
	// (SetSecondFactorPolicy).
	RequireSecondFactor *bool `json:"require_second_factor"`
}

// UpdateMerchant changes a merchant's settlement delay and automatic path.
func (s *Service) UpdateMerchant(ctx context.Context, id string, in MerchantUpdate) (m *Merchant, err error) {
	if in.SettlementDelayDays != nil && (*in.SettlementDelayDays < 0 || *in.SettlementDelayDays > 30) {
		return nil, Invalid("settlement_delay_days", "must be 0..30")
	}
	if in.Chargeback != nil {
		if err := in.Chargeback.Validate(); err != nil {
			return nil, err
		}
	}
	err = s.store.Tx(ctx, func(tx Tx) error {
		if m, err = tx.MerchantGetForUpdate(ctx, id); err != nil {
			return notFoundAs(err, "merchant")
		}
		before := *m
		defer func() { NoteOperatorChange(ctx, merchantTerms(&before), merchantTerms(m)) }()
		if in.SettlementDelayDays != nil {
			m.SettlementDelayDays = *in.SettlementDelayDays
		}
		if in.AutoSettle != nil {
			m.AutoSettle = *in.AutoSettle
		}
		if in.Chargeback != nil {
			m.Chargeback = *in.Chargeback
		}
		if in.RequireSecondFactor != nil {
			m.RequireSecondFactor = *in.RequireSecondFactor
		}
		return tx.MerchantUpdate(ctx, m)
	})
	return m, err
}

// merchantTerms are the settings of a merchant an operator changes, as
// the operator audit log records them before and after.
func merchantTerms(m *Merchant) MerchantUpdate {
	return MerchantUpdate{SettlementDelayDays: &m.SettlementDelayDays, AutoSettle: &m.AutoSettle, Chargeback: &m.Chargeback,
		RequireSecondFactor: &m.RequireSecondFactor}
}
