package payd

import (
	"testing"
	"time"
)

func TestCheckoutTokenPayment(t *testing.T) {
	now := time.Now()
	id := NewIDGen().NewFor(PrefixPayment, now, NewIDGen().New(PrefixMerchant, now))
	for _, c := range []struct {
		token, want string
	}{
		{"q3Fz0aK2-_xYb8LmN1oPqRsTuVwXyZ01." + id, id},
		{EmbedTokenPrefix + "q3Fz0aK2-_xYb8LmN1oPqRsTuVwXyZ01." + id, id},
		{"q3Fz0aK2-_xYb8LmN1oPqRsTuVwXyZ01", ""},            // made before tokens named their payment
		{"q3Fz0aK2-_xYb8LmN1oPqRsTuVwXyZ01.", ""},           // names nothing
		{"q3Fz0aK2-_xYb8LmN1oPqRsTuVwXyZ01." + id[:20], ""}, // not an identifier
		{"q3Fz0aK2.rf_" + id[len(PrefixPayment):], ""},      // another kind of object
		{"a.b." + id, id},
		{id, ""},
	} {
		if got := CheckoutTokenPayment(c.token); got != c.want {
			t.Errorf("CheckoutTokenPayment(%q) = %q, want %q", c.token, got, c.want)
		}
	}
}
