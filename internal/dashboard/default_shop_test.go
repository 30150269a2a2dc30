package dashboard_test

import (
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// A merchant of several shops sees the one it made first until it picks
// another, which is then remembered.
func TestDefaultShopIsTheFirstMade(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		first := env.NewShop(payd.RegionRU, "")
		second := env.NewShop(payd.RegionKZ, first.MerchantID)
		inFirst := paidPayment(t, env.As(first, false), "10.00", "order-first", false)
		v := newVisitor(t, env)
		v.signIn(newUser(t, env, first.MerchantID, payd.RoleViewer))
		shows := func(path, want, not string) {
			t.Helper()
			p := v.get(path)
			if p.status != 200 || !strings.Contains(p.body, want) || strings.Contains(p.body, not) {
				t.Fatalf("GET %s = %d, shows %s: %v, shows %s: %v", path, p.status, want, strings.Contains(p.body, want),
					not, strings.Contains(p.body, not))
			}
		}
		const none = `id="no-payments"`
		shows("/dashboard/test/payments", inFirst, none)
		shows("/dashboard/test/payments?shop="+second.ID, none, inFirst)
		shows("/dashboard/test/payments", none, inFirst)
	})
}
