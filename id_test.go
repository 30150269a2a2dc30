package payd_test

import (
	"sort"
	"testing"
	"time"

	"github.com/paydhq/payd"
)

// An object's identifier carries its merchant's key, stays an identifier
// of the contract (prefix + 26 of [0-9A-Z]) and still sorts as it was made.
func TestIdentifiersCarryTheirMerchantsKey(t *testing.T) {
	ids := payd.NewIDGen()
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	merchants := map[string]bool{}
	var made []string
	for i := 0; i < 200; i++ {
		m := ids.New(payd.PrefixMerchant, at)
		merchants[m] = true
		if payd.KeyCarried(m) {
			t.Fatalf("a merchant's own id %s is marked as carrying a key", m)
		}
		// Several objects per millisecond: the monotonic part must keep
		// them apart and in order whatever key they carry.
		for j := 0; j < 3; j++ {
			id := ids.NewFor(payd.PrefixPayment, at.Add(time.Duration(i)*time.Millisecond), m)
			if !payd.ValidID(payd.PrefixPayment, id) {
				t.Fatalf("%s is not an identifier of the contract", id)
			}
			if got, want := payd.KeyOf(id), payd.KeyOf(m); got != want {
				t.Fatalf("%s carries key %d, its merchant %s has %d", id, got, m, want)
			}
			if !payd.KeyCarried(id) {
				t.Fatalf("%s is not marked as carrying a key", id)
			}
			made = append(made, id)
		}
	}
	if !sort.StringsAreSorted(made) {
		t.Fatal("identifiers made one after another do not sort as they were made")
	}
	keys := map[payd.MerchantKey]bool{}
	for m := range merchants {
		k := payd.KeyOf(m)
		if k < 0 || k >= 1<<20 {
			t.Fatalf("key %d of %s is outside 20 bits", k, m)
		}
		keys[k] = true
	}
	// 200 random 20-bit keys collide rarely: a constant key would give 1.
	if len(keys) < 190 {
		t.Fatalf("200 merchants have only %d distinct keys", len(keys))
	}
	if payd.KeyOf("sh_1") != 0 || payd.KeyCarried("x") {
		t.Fatal("a string shorter than an identifier must read as no key")
	}
}
