package dashboard_test

import (
	"context"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// describe is the description of an API answer.
func describe(t *testing.T, r *paydtest.Response) string {
	t.Helper()
	d, _ := r.JSON(t)["description"].(string)
	return d
}

// After a rotation the old key is expired at once, not in 24 hours: the
// row's button asks first (the key works on), the confirmation expires
// it, the request with it gets a 401 that says a rotation ended it, the
// new key works, the audit log has it; a viewer's post by hand and the
// newest key's expiry are refused and change nothing.
func TestKeyExpireNow(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		ctx := context.Background()
		shop := env.NewShop(payd.RegionRU, "")
		dev := newVisitor(t, env)
		email, password := newUser(t, env, shop.MerchantID, payd.RoleDeveloper)
		dev.signIn(email, password)
		answer := dev.post("/dashboard/test/developers/keys/rotate", formOf(t, dev.get("/dashboard/test/developers/keys").body, "rotate-form"))
		m := shownSecret.FindStringSubmatch(answer.body)
		if m == nil {
			t.Fatalf("rotation answer = %d\n%s", answer.status, answer.body)
		}
		fresh := m[1]
		keys, err := env.Service.ListKeys(ctx, shop.ID)
		if err != nil {
			t.Fatal(err)
		}
		var newest, old string
		for _, k := range keys {
			if k.Mode == payd.ModeTest && newest == "" {
				newest = k.ID
			} else if k.Mode == payd.ModeTest && old == "" {
				old = k.ID
			}
		}
		c := env.As(shop, false)
		page := dev.get("/dashboard/test/developers/keys")
		if !strings.Contains(page.body, `id="expire-`+old+`"`) || strings.Contains(page.body, `id="expire-`+newest+`"`) {
			t.Fatalf("the keys page should offer to expire %s only:\n%s", old, page.body)
		}
		csrf := formOf(t, page.body, "rotate-form").Get("csrf")

		// A viewer's post by hand is refused; the key works on.
		viewer := newVisitor(t, env)
		vEmail, vPassword := newUser(t, env, shop.MerchantID, payd.RoleViewer)
		viewer.signIn(vEmail, vPassword)
		vPage := viewer.get("/dashboard/test/developers/keys")
		if strings.Contains(vPage.body, `id="expire-`+old+`"`) {
			t.Fatal("a viewer is offered to expire a key")
		}
		vCSRF := formOf(t, viewer.get("/dashboard/test/").body, "signout-form").Get("csrf")
		if got := viewer.post("/dashboard/test/developers/keys/"+old+"/expire", url.Values{"csrf": {vCSRF}, "confirm": {"yes"}}); got.status != http.StatusForbidden {
			t.Fatalf("a viewer's expiry = %d", got.status)
		}
		c.Get("/v1/payments").Expect(t, 200)

		// The first post asks, and changes nothing.
		ask := dev.post("/dashboard/test/developers/keys/"+old+"/expire", url.Values{"csrf": {csrf}})
		if ask.status != 200 || !strings.Contains(ask.body, `id="expire-confirm"`) || !strings.Contains(ask.body, old) {
			t.Fatalf("the first post = %d\n%s", ask.status, ask.body)
		}
		c.Get("/v1/payments").Expect(t, 200)

		// The newest key cannot be expired.
		if got := dev.post("/dashboard/test/developers/keys/"+newest+"/expire", url.Values{"csrf": {csrf}, "confirm": {"yes"}}); got.status != http.StatusUnprocessableEntity {
			t.Fatalf("expiring the newest key = %d\n%s", got.status, got.body)
		}
		c.WithKey(fresh).Get("/v1/payments").Expect(t, 200)

		done := dev.post("/dashboard/test/developers/keys/"+old+"/expire", formOf(t, ask.body, "expire-confirm-form"))
		if done.status != http.StatusSeeOther || !strings.Contains(done.location, "done=key_expired") {
			t.Fatalf("the confirmed expiry = %d to %q\n%s", done.status, done.location, done.body)
		}
		refused := c.Get("/v1/payments")
		refused.ExpectError(t, 401, payd.CodeInvalidCredentials, "")
		if d := describe(t, refused); d != payd.ErrKeyRotatedOut.Message {
			t.Fatalf("the expired key's 401 says %q", d)
		}
		c.WithKey(fresh).Get("/v1/payments").Expect(t, 200)
		// Once more: the key stopped already.
		if got := dev.post("/dashboard/test/developers/keys/"+old+"/expire", url.Values{"csrf": {csrf}, "confirm": {"yes"}}); got.status != http.StatusUnprocessableEntity {
			t.Fatalf("expiring an expired key = %d", got.status)
		}

		audit, err := env.Service.ListAudit(ctx, shop.MerchantID, payd.AuditListParams{ListParams: payd.ListParams{Limit: 100}})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range audit.Items {
			if e.Action == payd.AuditExpireKey {
				n++
				if e.UserEmail != email || e.ObjectID != old || e.Mode != payd.ModeTest {
					t.Errorf("audit entry = %+v", e)
				}
			}
		}
		if n != 1 {
			t.Fatalf("%d expiries in the audit log, want 1", n)
		}
	})
}

// The 401 that names a rotation goes only to the exact secret of a key a
// rotation ended: a wrong secret of the shop, another shop's id, a
// revoked key and no key at all get the plain refusal, whose words say
// nothing of keys that exist.
func TestRotatedOutKeyRefusal(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	ctx := context.Background()
	shop := env.NewShop(payd.RegionRU, "")
	other := env.NewShop(payd.RegionRU, "")
	local := netip.MustParseAddr("127.0.0.1")
	p, err := env.Service.Authenticate(ctx, shop.ID, shop.TestKey, local)
	if err != nil {
		t.Fatal(err)
	}
	_, fresh, err := env.Service.RotateKey(ctx, p, p.KeyID)
	if err != nil {
		t.Fatal(err)
	}
	po, err := env.Service.Authenticate(ctx, other.ID, other.TestKey, local)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Service.RevokeKey(ctx, po.KeyID); err != nil {
		t.Fatal(err)
	}
	c := env.As(shop, false)
	env.Clock.Advance(payd.KeyOverlap)
	plain := ""
	for _, tc := range []struct {
		name    string
		c       *paydtest.Client
		rotated bool
	}{
		{"the rotated-out key", c, true},
		{"a wrong secret of the shop", c.WithKey(payd.NewSecret(payd.ModeTest, payd.RegionRU)), false},
		{"the old key with another shop's id", env.As(other, false).WithKey(shop.TestKey), false},
		{"a revoked key", env.As(other, false), false},
	} {
		r := tc.c.Get("/v1/payments")
		r.ExpectError(t, 401, payd.CodeInvalidCredentials, "")
		d := describe(t, r)
		if rotated := d == payd.ErrKeyRotatedOut.Message; rotated != tc.rotated {
			t.Errorf("%s: the 401 says %q", tc.name, d)
		}
		if !tc.rotated {
			if plain == "" {
				plain = d
			}
			if d != plain || strings.Contains(d, "rotat") || strings.Contains(d, "expire") {
				t.Errorf("%s: the plain refusal says %q", tc.name, d)
			}
		}
	}
	c.WithKey(fresh).Get("/v1/payments").Expect(t, 200)
}
