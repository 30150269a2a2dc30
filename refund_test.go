package payd

import (
	"testing"

	"github.com/paydhq/payd/money"
)

// A refund is checked against the payment as it stands, in the
// contract's order: status, currency, above zero, within the refundable
// amount (which leaves pending refunds out).
func TestCheckRefund(t *testing.T) {
	t.Parallel()
	pay := &Payment{Status: PaymentSucceeded, Amount: money.New(100000, money.RUB), CapturedAmount: 100000, PendingRefundsAmount: 30000}
	cases := []struct {
		name string
		pay  *Payment
		a    money.Amount
		want ErrorCode
	}{
		{"the whole refundable", pay, money.New(70000, money.RUB), ""},
		{"ErrAboveRefundable", pay, money.New(70001, money.RUB), CodeRefundExceedsCaptured},
		{"ErrZero", pay, money.New(0, money.RUB), CodeInvalidRequest},
		{"ErrOtherCurrency", pay, money.New(100, money.KZT), CodeInvalidRequest},
		{"ErrNotSucceeded", &Payment{Status: PaymentPending, Amount: pay.Amount}, money.New(100, money.RUB), CodeInvalidState},
	}
	for _, c := range cases {
		err := c.pay.CheckRefund(c.a)
		if (c.want == "") != (err == nil) || (err != nil && ErrorCodeOf(err) != c.want) {
			t.Errorf("%s: %v, want code %q", c.name, err, c.want)
		}
	}
}
