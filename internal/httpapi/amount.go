package httpapi

import (
	"github.com/paydhq/payd"
	"github.com/paydhq/payd/money"
)

// AmountIn is an amount as a request carries it, read field by field so
// that errors name amount.value or amount.currency (money.Amount's own
// reader names only the object).
type AmountIn struct {
	Value    *string `json:"value"`
	Currency *string `json:"currency"`
}

// Parse returns the amount a request gave under param, or invalid_request
// naming param (a is nil: the amount is required), param.value or
// param.currency.
func (a *AmountIn) Parse(param string) (money.Amount, error) {
	if a == nil {
		return money.Amount{}, payd.Invalid(param, "%s is required", param)
	}
	if a.Value == nil {
		return money.Amount{}, payd.Invalid(param+".value", "%s.value is required", param)
	}
	v, err := money.ParseValue(*a.Value)
	if err != nil {
		return money.Amount{}, payd.Invalid(param+".value", "%s.value %v", param, err)
	}
	if a.Currency == nil || !money.Currency(*a.Currency).Valid() {
		return money.Amount{}, payd.Invalid(param+".currency", "%s.currency must be one of RUB, KZT, USD, EUR", param)
	}
	return money.New(v, money.Currency(*a.Currency)), nil
}
