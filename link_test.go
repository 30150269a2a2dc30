package payd

import (
	"slices"
	"strings"
	"testing"
)

// The order ids a link's payments try (docs/links.md).
func TestLinkOrderIDs(t *testing.T) {
	t.Parallel()
	const pay = "pay_01JZ0000000000000000000000"
	long := strings.Repeat("o", 127)
	for _, tt := range []struct {
		name     string
		orderID  string
		reusable bool
		n        int
		want     []string
	}{
		{"OneTimeFirst", "inv-1", false, 1, []string{"inv-1", "inv-1-1", pay}},
		{"OneTimeAfterCancel", "inv-1", false, 2, []string{"inv-1-2", pay}},
		{"Reusable", "inv-1", true, 1, []string{"inv-1-1", pay}},
		{"ReusableThird", "inv-1", true, 3, []string{"inv-1-3", pay}},
		{"NoOrderID", "", false, 1, []string{"pl_X-1", pay}},
		{"NoOrderIDReusable", "", true, 12, []string{"pl_X-12", pay}},
		{"TooLongForSuffix", long, true, 1, []string{pay}},
		{"TooLongOneTimeFirst", long, false, 1, []string{long, pay}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := &PaymentLink{ID: "pl_X", OrderID: tt.orderID, Reusable: tt.reusable}
			if got := linkOrderIDs(l, tt.n, pay); !slices.Equal(got, tt.want) {
				t.Fatalf("linkOrderIDs = %v, want %v", got, tt.want)
			}
		})
	}
}
