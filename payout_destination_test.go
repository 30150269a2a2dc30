package payd

import "testing"

func TestPayoutDestinationCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		region     Region
		dest       PayoutDestination
		wantKind   DestinationType
		wantMasked string
		wantParam  string
	}{
		{"Card", RegionRU, PayoutDestination{Type: "card", CardToken: "tok_sandbox_4242", Given: []string{"card_token"}}, "card", "card ****4242", ""},
		{"CardTokenAlias", RegionKZ, PayoutDestination{Type: "card_token", CardToken: "tok_sandbox_4242", Given: []string{"card_token"}}, "card", "card ****4242", ""},
		{"CardTokenWithoutDigits", RegionRU, PayoutDestination{Type: "card", CardToken: "bank-token-abcd", Given: []string{"card_token"}}, "card", "card ****", ""},
		{"SBP", RegionRU, PayoutDestination{Type: "sbp", Phone: "+79001234567", BankID: "100000000111", Given: []string{"phone", "bank_id"}}, "sbp", "+7 *** ***-**-67", ""},
		{"AccountRU", RegionRU, PayoutDestination{Type: "bank_account", AccountNumber: "40702810938000000001", BIC: "044525225"}, "bank_account", "account ****0001", ""},
		{"IBANKZ", RegionKZ, PayoutDestination{Type: "bank_account", AccountNumber: "KZ86125KZT5004100100", BIC: "HSBKKZKX"}, "bank_account", "account ****0100", ""},
		{"ErrSBPKZ", RegionKZ, PayoutDestination{Type: "sbp", Phone: "+77011234567", BankID: "100000000111"}, "", "", "destination.type"},
		{"ErrForeignField", RegionRU, PayoutDestination{Type: "sbp", Phone: "+79001234567", BankID: "100000000111", Given: []string{"phone", "bic"}}, "", "", "destination.bic"},
		{"ErrControlDigit", RegionRU, PayoutDestination{Type: "bank_account", AccountNumber: "40702810838000000001", BIC: "044525225"}, "", "", "destination.account_number"},
		// The same account at another bank fails the key: it belongs to
		// the BIC's last three digits.
		{"ErrAccountOtherBank", RegionRU, PayoutDestination{Type: "bank_account", AccountNumber: "40702810938000000001", BIC: "044525974"}, "", "", "destination.account_number"},
		{"ErrIBANCheck", RegionKZ, PayoutDestination{Type: "bank_account", AccountNumber: "KZ86125KZT5004100101", BIC: "HSBKKZKX"}, "", "", "destination.account_number"},
		{"ErrRUAccountInKZ", RegionKZ, PayoutDestination{Type: "bank_account", AccountNumber: "40702810938000000001", BIC: "HSBKKZKX"}, "", "", "destination.account_number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, masked, err := tt.dest.Check(tt.region)
			if tt.wantParam != "" {
				var pe *Error
				if e, ok := err.(*Error); ok {
					pe = e
				}
				if pe == nil || pe.Code != CodeInvalidRequest || pe.Param != tt.wantParam {
					t.Fatalf("error %v, want invalid_request on %s", err, tt.wantParam)
				}
				return
			}
			if err != nil || kind != tt.wantKind || masked != tt.wantMasked {
				t.Fatalf("Check = %q, %q, %v; want %q, %q", kind, masked, err, tt.wantKind, tt.wantMasked)
			}
		})
	}
}

func TestPayoutFeeOf(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		fee    PayoutFee
		amount int64
		want   int64
	}{
		{PayoutFee{PercentBps: DefaultPayoutFeeBps}, 100_00, 50},
		{PayoutFee{PercentBps: DefaultPayoutFeeBps}, 50_01, 25}, // 25.005 kopeks round half up to 25
		{PayoutFee{PercentBps: DefaultPayoutFeeBps}, 1_01, 1},   // 0.505 rounds up
		{PayoutFee{PercentBps: 100, Fixed: 500, Max: 2000}, 1500_00, 2000},
		{PayoutFee{PercentBps: 0, Min: 300}, 10_00, 300},
	} {
		if got := tt.fee.Of(tt.amount); got != tt.want {
			t.Errorf("%+v.Of(%d) = %d, want %d", tt.fee, tt.amount, got, tt.want)
		}
	}
}
