package payd

import "testing"

// A payout request's reference is the same for every try of it (same shop,
// contour, key and body) and differs as soon as any of them does: the
// provider recognizes a retry whose earlier try rolled back after it took
// the payout, and never mistakes another request for it.
func TestPayoutReference(t *testing.T) {
	idem := Idempotency{Key: "payout-0001", Hash: []byte{1, 2, 3}}
	ref := PayoutReference("sh_A", true, idem)
	if again := PayoutReference("sh_A", true, Idempotency{Key: "payout-0001", Hash: []byte{1, 2, 3}}); again != ref {
		t.Fatalf("the same request has two references: %s, %s", ref, again)
	}
	for name, other := range map[string]string{
		"another shop":     PayoutReference("sh_B", true, idem),
		"the live contour": PayoutReference("sh_A", false, idem),
		"another key":      PayoutReference("sh_A", true, Idempotency{Key: "payout-0002", Hash: idem.Hash}),
		"another body":     PayoutReference("sh_A", true, Idempotency{Key: idem.Key, Hash: []byte{1, 2, 4}}),
	} {
		if other == ref {
			t.Errorf("%s has the same reference %s", name, ref)
		}
	}
}
