// Package money holds the service's money types: amounts in integer minor
// units and the currencies the contract knows. Amounts travel as strings
// ("123.45") and are never floats anywhere in the service.
package money

import (
	"encoding/json"
	"errors"
	"math"
	"math/bits"
	"slices"
	"strconv"
)

// Currency is an ISO 4217 code the contract accepts.
type Currency string

// The currencies of the contract (Conventions: Money).
const (
	RUB Currency = "RUB"
	KZT Currency = "KZT"
	USD Currency = "USD"
	EUR Currency = "EUR"
)

// currencies are the contract's currencies in their stable order.
var currencies = []Currency{RUB, KZT, USD, EUR}

// Currencies returns every currency of the contract in a stable order
// (RUB, KZT, USD, EUR). Each call returns a new slice, which the caller
// may change.
func Currencies() []Currency { return slices.Clone(currencies) }

// Valid reports whether c is one of the contract's currencies.
func (c Currency) Valid() bool {
	switch c {
	case RUB, KZT, USD, EUR:
		return true
	}
	return false
}

// MaxMinor is the largest value the contract's format can carry:
// 13 integer digits and two fraction digits.
const MaxMinor int64 = 999_999_999_999_999

// Errors returned by the parsers; callers map them to `invalid_request`.
var (
	ErrFormat   = errors.New("must be a string of 1 to 13 digits, a dot and exactly two digits, e.g. \"100.00\"")
	ErrOverflow = errors.New("amount overflows")
)

// ParseValue parses the contract's unsigned amount string into minor units.
// It accepts exactly `[0-9]{1,13}\.[0-9]{2}`: no sign, exponent, spaces or
// other digits than ASCII.
func ParseValue(s string) (int64, error) {
	if len(s) < 4 || len(s) > 16 || s[len(s)-3] != '.' {
		return 0, ErrFormat
	}
	var v int64
	for i := 0; i < len(s); i++ {
		if i == len(s)-3 {
			continue
		}
		c := s[i]
		if c < '0' || c > '9' {
			return 0, ErrFormat
		}
		v = v*10 + int64(c-'0')
	}
	return v, nil
}

// ParseSigned parses the SignedAmount form: ParseValue with an optional
// leading minus.
func ParseSigned(s string) (int64, error) {
	if len(s) > 0 && s[0] == '-' {
		v, err := ParseValue(s[1:])
		return -v, err
	}
	return ParseValue(s)
}

// FormatValue prints minor units in the contract's form. Negative values
// get a leading minus (the SignedAmount form).
func FormatValue(minor int64) string {
	return string(appendValue(make([]byte, 0, 24), minor))
}

// appendValue appends FormatValue(minor) to b without fmt, which the
// encoding of every amount would otherwise pay for.
func appendValue(b []byte, minor int64) []byte {
	u := uint64(minor)
	if minor < 0 {
		b = append(b, '-')
		u = uint64(-(minor + 1)) + 1 // safe for math.MinInt64
	}
	b = strconv.AppendUint(b, u/100, 10)
	cents := u % 100
	return append(b, '.', byte('0'+cents/10), byte('0'+cents%10))
}

// Amount is the contract's unsigned `Amount` object in minor units.
type Amount struct {
	Minor    int64
	Currency Currency
}

// New returns an Amount of minor units in c.
func New(minor int64, c Currency) Amount { return Amount{Minor: minor, Currency: c} }

// String prints "123.45 RUB".
func (a Amount) String() string { return FormatValue(a.Minor) + " " + string(a.Currency) }

type wire struct {
	Value    string   `json:"value"`
	Currency Currency `json:"currency"`
}

// MarshalJSON writes {"value":"123.45","currency":"RUB"}.
func (a Amount) MarshalJSON() ([]byte, error) { return appendWire(a.Minor, a.Currency) }

// appendWire writes the wire form by hand: an amount is in every payment,
// refund and balance the service encodes, several times in each, and
// encoding it through a struct costs a reflection walk and a copy each
// time. A currency that is not three capital letters (never a valid one)
// goes through the encoder, which escapes it.
func appendWire(minor int64, c Currency) ([]byte, error) {
	if len(c) != 3 || c[0] < 'A' || c[0] > 'Z' || c[1] < 'A' || c[1] > 'Z' || c[2] < 'A' || c[2] > 'Z' {
		return json.Marshal(wire{Value: FormatValue(minor), Currency: c})
	}
	b := make([]byte, 0, 48)
	b = append(b, `{"value":"`...)
	b = appendValue(b, minor)
	b = append(b, `","currency":"`...)
	b = append(b, c...)
	return append(b, `"}`...), nil
}

// UnmarshalJSON reads the wire form strictly; see ParseValue.
func (a *Amount) UnmarshalJSON(b []byte) error {
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	v, err := ParseValue(w.Value)
	if err != nil {
		return err
	}
	*a = Amount{Minor: v, Currency: w.Currency}
	return nil
}

// Signed is the contract's `SignedAmount`: the same object, a value that may
// be negative. Only Balance.available and Settlement.net_amount use it.
type Signed struct {
	Minor    int64
	Currency Currency
}

// String prints "-1.00 RUB".
func (s Signed) String() string { return FormatValue(s.Minor) + " " + string(s.Currency) }

// MarshalJSON writes {"value":"-1.00","currency":"RUB"}.
func (s Signed) MarshalJSON() ([]byte, error) { return appendWire(s.Minor, s.Currency) }

// UnmarshalJSON reads the signed wire form.
func (s *Signed) UnmarshalJSON(b []byte) error {
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	v, err := ParseSigned(w.Value)
	if err != nil {
		return err
	}
	*s = Signed{Minor: v, Currency: w.Currency}
	return nil
}

// Add returns a+b, refusing to leave the contract's range.
func Add(a, b int64) (int64, error) {
	if (b > 0 && a > math.MaxInt64-b) || (b < 0 && a < math.MinInt64-b) {
		return 0, ErrOverflow
	}
	s := a + b
	if s > MaxMinor || s < -MaxMinor {
		return 0, ErrOverflow
	}
	return s, nil
}

// MulDivHalfUp returns a × b / d rounded half up, for non-negative a and b
// and positive d, computed in 128 bits so that no product of two amounts
// of the contract's range (or an amount and basis points) overflows; a
// quotient beyond int64 is clamped to its largest value.
func MulDivHalfUp(a, b, d int64) int64 {
	if a <= 0 || b <= 0 || d <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	lo, carry := bits.Add64(lo, uint64(d)/2, 0)
	hi += carry
	if hi >= uint64(d) {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(d))
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}
