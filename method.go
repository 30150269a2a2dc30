package payd

import (
	"context"

	"github.com/paydhq/payd/money"
)

// MethodType names a payment method's type (PaymentMethod.type) where a
// list of them is kept: MethodTypeAll, and the words pages show for
// each. The service carries a method as a plain string (routes, tariffs,
// ranges, the store), and the constants below stay untyped for it.
type MethodType string

// Payment method types known to the service.
const (
	MethodBankCard     = "bank_card"
	MethodSBP          = "sbp"
	MethodInstallments = "installments"
	// MethodKZQR is a QR payment in Kazakhstan: the payer scans the code
	// with the app of their own bank, as SBP payers do in Russia.
	MethodKZQR = "kz_qr"
)

// MethodTypeAll returns every method type of every region, offered or
// only declared.
func MethodTypeAll() []MethodType {
	return []MethodType{MethodBankCard, MethodSBP, MethodKZQR, MethodInstallments}
}

// Range is the per-transaction amount range of a method in one currency.
type Range struct {
	Min int64 `json:"min"`
	Max int64 `json:"max"`
}

// defaultRanges are the per-transaction ranges by currency. RUB and KZT are
// the contract's defaults (Limits); USD and EUR are ours (docs/limits.md).
var defaultRanges = map[money.Currency]Range{
	money.RUB: {Min: 1_00, Max: 300_000_00},
	money.KZT: {Min: 100_00, Max: 5_000_000_00},
	money.USD: {Min: 1_00, Max: 5_000_00},
	money.EUR: {Min: 1_00, Max: 5_000_00},
}

// MethodSpec describes a method in a region.
type MethodSpec struct {
	Type          string
	Currencies    []money.Currency
	TwoStage      bool
	PartialRefund bool
	// Offered is false for methods declared but not offered by this build.
	Offered bool
	// QR marks the method that pays a `confirmation.type: qr` payment in
	// the region.
	QR bool
}

// regionMethods lists the methods of each region, in the order the payer
// is offered them. Each region has its QR method: SBP (the Russian Faster
// Payments System) in ru, kz_qr in kz; installments are declared but not
// offered yet.
var regionMethods = map[Region][]MethodSpec{
	RegionRU: {
		{Type: MethodBankCard, Currencies: []money.Currency{money.RUB, money.USD, money.EUR}, TwoStage: true, PartialRefund: true, Offered: true},
		{Type: MethodSBP, Currencies: []money.Currency{money.RUB}, TwoStage: false, PartialRefund: true, Offered: true, QR: true},
		{Type: MethodInstallments, Currencies: []money.Currency{money.RUB}, TwoStage: false, PartialRefund: false},
	},
	RegionKZ: {
		{Type: MethodBankCard, Currencies: []money.Currency{money.KZT, money.USD, money.EUR}, TwoStage: true, PartialRefund: true, Offered: true},
		{Type: MethodKZQR, Currencies: []money.Currency{money.KZT}, TwoStage: false, PartialRefund: true, Offered: true, QR: true},
		{Type: MethodInstallments, Currencies: []money.Currency{money.KZT}, TwoStage: false, PartialRefund: false},
	},
}

// QRMethod returns the method that pays a QR confirmation in region, or ""
// when the region has none.
func QRMethod(region Region) string {
	for _, m := range regionMethods[region] {
		if m.QR && m.Offered {
			return m.Type
		}
	}
	return ""
}

// IsQRMethod reports whether method is paid by scanning a QR code in the
// payer's banking app (the QR method of some region).
func IsQRMethod(method string) bool {
	for _, ms := range regionMethods {
		for _, m := range ms {
			if m.QR && m.Type == method {
				return true
			}
		}
	}
	return false
}

// OfferedMethods returns the methods this build offers in region, in the
// order the payer is offered them.
func OfferedMethods(region Region) []string {
	var out []string
	for _, m := range regionMethods[region] {
		if m.Offered {
			out = append(out, m.Type)
		}
	}
	return out
}

// knownMethod reports whether method is a method of some region, offered
// or declared.
func knownMethod(method string) bool {
	for _, ms := range regionMethods {
		for _, m := range ms {
			if m.Type == method {
				return true
			}
		}
	}
	return false
}

// PaymentMethodInfo is the contract's object of `GET /payment-methods`:
// one per method and currency, so each carries the range of its currency.
type PaymentMethodInfo struct {
	Type          string           `json:"type"`
	Available     bool             `json:"available"`
	Currencies    []money.Currency `json:"currencies"`
	MinAmount     money.Amount     `json:"min_amount"`
	MaxAmount     money.Amount     `json:"max_amount"`
	TwoStage      bool             `json:"two_stage"`
	PartialRefund bool             `json:"partial_refund"`
}

// PaymentMethods lists the methods of the shop's region, one record per
// method and currency (only currency when it is set). A method is available
// only where a payment of it would find a provider: the sandbox banks for a
// test key, the operators' routing table for a live one (routeOf, as
// payment creation and checkout decide).
func (s *Service) PaymentMethods(ctx context.Context, p *Principal, currency money.Currency) ([]PaymentMethodInfo, error) {
	out := []PaymentMethodInfo{}
	err := s.store.View(ctx, func(tx Tx) error {
		for _, m := range regionMethods[p.Shop.Region] {
			for _, c := range m.Currencies {
				if currency != "" && c != currency {
					continue
				}
				r, _ := MethodRange(p.Shop, m.Type, c)
				if !m.Offered {
					r = defaultRanges[c]
				}
				available := m.Offered && p.Shop.Settings.MethodEnabled(m.Type)
				if available {
					route, err := s.routeOf(ctx, tx, p.Test(), p.Shop.Region, m.Type, c)
					if err != nil {
						return err
					}
					available = len(route) > 0
				}
				out = append(out, PaymentMethodInfo{
					Type: m.Type, Available: available,
					Currencies: []money.Currency{c}, MinAmount: money.New(r.Min, c), MaxAmount: money.New(r.Max, c),
					TwoStage: m.TwoStage, PartialRefund: m.PartialRefund,
				})
			}
		}
		return nil
	})
	return out, err
}

// MethodRange returns the range of method in currency for the shop — its
// operator-set range, or the default — and whether the method takes that
// currency in the shop's region at all.
func MethodRange(shop *Shop, method string, c money.Currency) (Range, bool) {
	for _, m := range regionMethods[shop.Region] {
		if m.Type != method || !m.Offered {
			continue
		}
		for _, mc := range m.Currencies {
			if mc == c {
				if r, ok := shop.Settings.Ranges[method][c]; ok {
					return r, true
				}
				return defaultRanges[c], true
			}
		}
	}
	return Range{}, false
}
