package linkpage

import "testing"

func TestParseAmount(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1500", 150000, true},
		{"1500.5", 150050, true},
		{"1500,50", 150050, true},
		{"1 500,50", 150050, true},
		{"1\u00a0500.05", 150005, true},
		{"1\u202f500", 150000, true},
		{"0.01", 1, true},
		{"9999999999999.99", 999999999999999, true},
		{"0", 0, false},
		{"0,00", 0, false},
		{"", 0, false},
		{"abc", 0, false},
		{"-5", 0, false},
		{"1.234", 0, false},
		{"1,500.00", 0, false},
		{"1e3", 0, false},
		{"10000000000000", 0, false},
		{"12.", 0, false},
		{".5", 0, false},
	} {
		got, ok := parseAmount(tt.in)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("parseAmount(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
