package payd

import (
	"context"
	"time"

	"github.com/paydhq/payd/money"
)

// SettlementStatus is the contract's object: the merchant's payout state.
type SettlementStatus struct {
	PayoutsFrozen       bool         `json:"payouts_frozen"`
	FrozenReason        FreezeReason `json:"frozen_reason,omitempty"`
	FrozenAt            *time.Time   `json:"frozen_at,omitempty"`
	UnfrozenAt          *time.Time   `json:"unfrozen_at,omitempty"`
	SettlementDelayDays int          `json:"settlement_delay_days"`
}

// ShopView is the contract's `Shop` object as `GET /shop` shows it.
type ShopView struct {
	ID              string         `json:"id"`
	Name            string         `json:"name"`
	Region          Region         `json:"region"`
	Test            bool           `json:"test"`
	DefaultCurrency money.Currency `json:"default_currency"`
	SettlementModel string         `json:"settlement_model"`
	ReceiptMode     string         `json:"receipt_mode"`
	Settlement      struct {
		Reserve []ReserveRule    `json:"reserve"`
		Status  SettlementStatus `json:"status"`
	} `json:"settlement"`
	Capabilities Capabilities `json:"capabilities"`
}

// Capabilities says what the build can do for the shop.
type Capabilities struct {
	TwoStage                bool `json:"two_stage"`
	PartialCapture          bool `json:"partial_capture"`
	PartialRefund           bool `json:"partial_refund"`
	Receipts                bool `json:"receipts"`
	Payouts                 bool `json:"payouts"`
	AuthorizeRequestWebhook bool `json:"authorize_request_webhook"`
}

// ShopForPrincipal returns the principal's shop as the contract shows it.
// `test` follows the key's mode; receipts are never on because fiscalization
// is not enabled in this build, and payouts arrive with stage M5.
func (s *Service) ShopForPrincipal(ctx context.Context, p *Principal) (*ShopView, error) {
	var m *Merchant
	var f *Freeze
	err := s.store.View(ctx, func(tx Tx) (err error) {
		if m, err = tx.MerchantGet(ctx, p.Shop.MerchantID); err != nil {
			return err
		}
		f, err = tx.FreezeGet(ctx, m.ID, p.Test())
		return err
	})
	if err != nil {
		return nil, err
	}
	v := &ShopView{
		ID: p.Shop.ID, Name: p.Shop.Name, Region: p.Shop.Region, Test: p.Test(),
		DefaultCurrency: p.Shop.DefaultCurrency, SettlementModel: "agent", ReceiptMode: "agent",
		Capabilities: Capabilities{
			TwoStage: true, PartialCapture: true, PartialRefund: true,
			Receipts: false, Payouts: s.stage >= StageM5,
			AuthorizeRequestWebhook: p.Shop.Settings.AuthorizeRequestWebhook,
		},
	}
	v.Settlement.Reserve = p.Shop.Settings.Reserve
	if v.Settlement.Reserve == nil {
		v.Settlement.Reserve = []ReserveRule{}
	}
	v.Settlement.Status = f.Status(m)
	return v, nil
}
