package money

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
)

func TestParseValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0.00", 0, true},
		{"1.00", 100, true},
		{"100.50", 10050, true},
		{"9999999999999.99", MaxMinor, true},
		{"0000000000001.01", 101, true},
		{"1", 0, false},
		{"1.0", 0, false},
		{"1.000", 0, false},
		{".50", 0, false},
		{"-1.00", 0, false},
		{"+1.00", 0, false},
		{"1e2.00", 0, false},
		{" 1.00", 0, false},
		{"1.00 ", 0, false},
		{"10000000000000.00", 0, false},
		{"1,00", 0, false},
		{"１.00", 0, false},
		{"", 0, false},
		{"1..00", 0, false},
		{"1.0a", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseValue(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("ParseValue(%q) = %d, %v; want %d ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestParseSigned(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"-1.50": -150, "2.00": 200, "-0.01": -1} {
		got, err := ParseSigned(in)
		if err != nil || got != want {
			t.Errorf("ParseSigned(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"--1.00", "-", "-1", "+1.00"} {
		if _, err := ParseSigned(in); err == nil {
			t.Errorf("ParseSigned(%q) accepted", in)
		}
	}
}

func TestFormatValue(t *testing.T) {
	t.Parallel()
	for minor, want := range map[int64]string{0: "0.00", 1: "0.01", 100: "1.00", 123456: "1234.56", -5: "-0.05", -12345: "-123.45", MaxMinor: "9999999999999.99",
		math.MinInt64: "-92233720368547758.08", math.MaxInt64: "92233720368547758.07", 7: "0.07", -100: "-1.00"} {
		if got := FormatValue(minor); got != want {
			t.Errorf("FormatValue(%d) = %q; want %q", minor, got, want)
		}
	}
}

func TestAmountJSON(t *testing.T) {
	t.Parallel()
	// The hand-written encoding is the encoder's, also for a currency that
	// needs escaping (never a valid one).
	for _, a := range []Amount{New(0, USD), New(-7, EUR), {Minor: 5, Currency: `R"B`}, {Minor: 5, Currency: "<é>"}, {Minor: 5}} {
		got, err := json.Marshal(a)
		want, _ := json.Marshal(wire{Value: FormatValue(a.Minor), Currency: a.Currency})
		if err != nil || string(got) != string(want) {
			t.Errorf("%#v: %s, %v; want %s", a, got, err, want)
		}
	}
	b, err := json.Marshal(New(150000, RUB))
	if err != nil || string(b) != `{"value":"1500.00","currency":"RUB"}` {
		t.Fatalf("marshal = %s, %v", b, err)
	}
	var a Amount
	if err := json.Unmarshal([]byte(`{"value":"10.05","currency":"KZT"}`), &a); err != nil || a != New(1005, KZT) {
		t.Fatalf("unmarshal = %+v, %v", a, err)
	}
	if err := json.Unmarshal([]byte(`{"value":10.05,"currency":"KZT"}`), &a); err == nil {
		t.Fatal("a JSON number was accepted as an amount value")
	}
	b, _ = json.Marshal(Signed{Minor: -250, Currency: EUR})
	if string(b) != `{"value":"-2.50","currency":"EUR"}` {
		t.Fatalf("signed marshal = %s", b)
	}
}

func TestAdd(t *testing.T) {
	t.Parallel()
	if s, err := Add(MaxMinor-1, 1); err != nil || s != MaxMinor {
		t.Fatalf("Add at the edge = %d, %v", s, err)
	}
	if _, err := Add(MaxMinor, 1); err == nil {
		t.Fatal("Add past MaxMinor succeeded")
	}
}

// TestCurrenciesCopy: a caller that changes the list it got changes no
// other caller's.
func TestCurrenciesCopy(t *testing.T) {
	t.Parallel()
	want := []Currency{RUB, KZT, USD, EUR}
	got := Currencies()
	if !slices.Equal(got, want) {
		t.Fatalf("Currencies() = %v, want %v", got, want)
	}
	got[0] = "XXX"
	if again := Currencies(); !slices.Equal(again, want) {
		t.Fatalf("Currencies() after a caller changed its copy = %v, want %v", again, want)
	}
}

func TestCurrencyValid(t *testing.T) {
	t.Parallel()
	for _, c := range Currencies() {
		if !c.Valid() {
			t.Errorf("%s not valid", c)
		}
	}
	for _, c := range []Currency{"rub", "GBP", ""} {
		if c.Valid() {
			t.Errorf("%q valid", c)
		}
	}
}

// FuzzParseValue checks that every accepted string round-trips exactly and
// that nothing panics.
func FuzzParseValue(f *testing.F) {
	for _, s := range []string{"0.00", "1.00", "9999999999999.99", "-1.00", "1e5", "１.00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseValue(s)
		if err != nil {
			return
		}
		if v < 0 || v > MaxMinor {
			t.Fatalf("ParseValue(%q) = %d out of range", s, v)
		}
		// Leading zeros are accepted, so compare through a second parse.
		if back, err := ParseValue(FormatValue(v)); err != nil || back != v {
			t.Fatalf("round trip of %q: %d, %v", s, back, err)
		}
	})
}

// MulDivHalfUp rounds half up and does not overflow where the int64
// product would.
func TestMulDivHalfUp(t *testing.T) {
	for _, tt := range []struct{ a, b, d, want int64 }{
		{100000, 280, 10000, 2800},
		{12345, 155, 10000, 191}, // 191.3475
		{50, 1, 100, 1},          // 0.5 rounds up
		{49, 1, 100, 0},
		{999_999_999_999_999, 10000, 10000, 999_999_999_999_999},
		{999_999_999_999_999, 9999, 10000, 999_899_999_999_999},                            // 999899999999999.0001
		{28_000_000_000_000, 999_999_999_999_999, 999_999_999_999_999, 28_000_000_000_000}, // fee × amount / captured
		{0, 5, 7, 0},
	} {
		if got := MulDivHalfUp(tt.a, tt.b, tt.d); got != tt.want {
			t.Errorf("MulDivHalfUp(%d, %d, %d) = %d, want %d", tt.a, tt.b, tt.d, got, tt.want)
		}
	}
}
