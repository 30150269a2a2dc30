package api_test

import (
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// A checkout token names its payment, so that the page's payment is read
// by its id (in its merchant's shard group on a cluster); the name is only
// a hint: the whole token's hash must match, so no part of one token opens
// another payment's page.
func TestCheckoutTokenNamesItsPayment(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		c := env.As(env.NewShop(payd.RegionRU, ""), false)
		page := func() (id, secret, base string) {
			created := c.Post("/v1/payments", key(), newPayment("100.00", nil)).Expect(t, 201).JSON(t)
			url := created["confirmation"].(map[string]any)["confirmation_url"].(string)
			id = created["id"].(string)
			i := strings.LastIndexByte(url, '/')
			token := url[i+1:]
			if payd.CheckoutTokenPayment(token) != id || !strings.HasSuffix(token, "."+id) {
				t.Fatalf("token %q of %s does not name it", token, id)
			}
			return id, strings.TrimSuffix(token, "."+id), url[:i+1]
		}
		idA, secretA, base := page()
		idB, secretB, _ := page()
		payer := env.Payer()
		if pg := payer.Get(base + secretA + "." + idA); pg.Status != 200 {
			t.Fatalf("the page of %s: %d", idA, pg.Status)
		}
		for what, token := range map[string]string{
			"A's secret naming B":       secretA + "." + idB,
			"B's secret naming A":       secretB + "." + idA,
			"A's secret naming none":    secretA,
			"A's token naming it twice": secretA + "." + idA + "." + idA,
		} {
			if pg := payer.Get(base + token); pg.Status != 404 {
				t.Errorf("%s: %d, want 404", what, pg.Status)
			}
		}
	})
}
