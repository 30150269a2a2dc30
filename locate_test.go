package payd

import (
	"context"
	"errors"
	"testing"
)

// An object of the merchant is located in its shop and mode; none, or
// another merchant's, is not_found alike; a failure of the store stays
// what it is.
func TestWhereabouts(t *testing.T) {
	t.Parallel()
	id := PrefixRefund + "01M8AV34KEEJQJH3JGNQXS5SYY"
	down := errors.New("database unreachable")
	cases := []struct {
		name    string
		got     *Refund
		err     error
		want    Whereabouts
		wantErr error
	}{
		{"test data", &Refund{MerchantID: "mer_1", ShopID: "sh_2", Test: true}, nil, Whereabouts{ShopID: "sh_2", Mode: ModeTest}, nil},
		{"live data", &Refund{MerchantID: "mer_1", ShopID: "sh_3"}, nil, Whereabouts{ShopID: "sh_3", Mode: ModeLive}, nil},
		{"another merchant's", &Refund{MerchantID: "mer_2", ShopID: "sh_9", Test: true}, nil, Whereabouts{}, nil},
		{"none", nil, ErrNoRows, Whereabouts{}, nil},
		{"store down", nil, down, Whereabouts{}, down},
	}
	for _, c := range cases {
		got, err := whereabouts(t.Context(), "mer_1", id, func(context.Context, string) (*Refund, error) { return c.got, c.err })
		switch {
		case c.wantErr != nil:
			if !errors.Is(err, c.wantErr) {
				t.Errorf("%s: error %v, want %v", c.name, err, c.wantErr)
			}
		case c.want == Whereabouts{}:
			if ErrorCodeOf(err) != CodeNotFound || err.Error() != NotFound("object").Error() {
				t.Errorf("%s: %v, %v; want object not found", c.name, got, err)
			}
		default:
			if err != nil || got != c.want {
				t.Errorf("%s: %v, %v; want %v", c.name, got, err, c.want)
			}
		}
	}
}
