package payd

import (
	"strconv"
	"time"

	"github.com/paydhq/payd/money"
)

// ChargebackRule is a merchant's chargeback-ratio freeze: when, over the
// last WindowDays, at least MinCount chargebacks were opened and they are
// more than RatioBps of the payments that succeeded in the window, payouts
// freeze with reason chargeback_ratio. Zero fields take the defaults of
// DefaultChargebackRule.
type ChargebackRule struct {
	RatioBps   int `json:"ratio_bps,omitempty"`
	WindowDays int `json:"window_days,omitempty"`
	MinCount   int `json:"min_count,omitempty"`
}

// DefaultChargebackRule returns the rule of a merchant without its own: more
// than 1% chargebacks over 30 days, once there are at least 3 of them (so
// that a first chargeback on a young merchant does not freeze its payouts
// on its own). Card schemes start monitoring near 0.9%–1.5%.
func DefaultChargebackRule() ChargebackRule {
	return ChargebackRule{RatioBps: 100, WindowDays: 30, MinCount: 3}
}

// Effective returns the rule with the defaults filled in.
func (r ChargebackRule) Effective() ChargebackRule {
	d := DefaultChargebackRule()
	if r.RatioBps > 0 {
		d.RatioBps = r.RatioBps
	}
	if r.WindowDays > 0 {
		d.WindowDays = r.WindowDays
	}
	if r.MinCount > 0 {
		d.MinCount = r.MinCount
	}
	return d
}

// Window is the rule's window as a duration.
func (r ChargebackRule) Window() time.Duration {
	return time.Duration(r.Effective().WindowDays) * 24 * time.Hour
}

// Exceeded reports whether chargebacks out of payments break the rule.
func (r ChargebackRule) Exceeded(chargebacks, payments int) bool {
	e := r.Effective()
	if chargebacks < e.MinCount {
		return false
	}
	return int64(chargebacks)*10000 > int64(e.RatioBps)*int64(payments)
}

// Validate checks an operator's rule.
func (r ChargebackRule) Validate() error {
	switch {
	case r.RatioBps < 0 || r.RatioBps > 10000:
		return Invalid("chargeback.ratio_bps", "must be 0 (default) .. 10000 (100%%)")
	case r.WindowDays < 0 || r.WindowDays > 365:
		return Invalid("chargeback.window_days", "must be 0 (default) .. 365")
	case r.MinCount < 0 || r.MinCount > 1_000_000:
		return Invalid("chargeback.min_count", "must be 0 (default) .. 1000000")
	}
	return nil
}

// DisputeFee is what a lost dispute costs a shop in one currency, beyond
// the disputed sum: the bank's fine, re-billed, and the service's fee for
// handling it (minor units).
type DisputeFee struct {
	Currency   money.Currency `json:"currency"`
	BankFine   int64          `json:"bank_fine"`
	ServiceFee int64          `json:"service_fee"`
}

// DisputeFeeFor returns the shop's dispute fee of currency c (zero when
// none is set).
func (st ShopSettings) DisputeFeeFor(c money.Currency) DisputeFee {
	for _, f := range st.DisputeFees {
		if f.Currency == c {
			return f
		}
	}
	return DisputeFee{Currency: c}
}

func (st ShopSettings) validateDisputeFees() error {
	seen := map[money.Currency]bool{}
	for i, f := range st.DisputeFees {
		p := "dispute_fees." + strconv.Itoa(i)
		switch {
		case !f.Currency.Valid() || seen[f.Currency]:
			return Invalid(p+".currency", "a known currency, once")
		case f.BankFine < 0 || f.ServiceFee < 0 || f.BankFine > money.MaxMinor || f.ServiceFee > money.MaxMinor:
			return Invalid(p, "bank_fine and service_fee are non-negative minor units")
		}
		seen[f.Currency] = true
	}
	return nil
}
