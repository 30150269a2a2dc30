package dashboard_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

var shownSecret = regexp.MustCompile(`id="new-secret"[^>]*value="([^"]+)"`)

// A rotation shows the new secret once, on its answer only; the new key
// works at once and the old one for 24 more hours; the same form sent
// twice issues one key; the rotation is in the audit log with the user
// and the address; a viewer's rotation posted by hand is refused.
func TestKeyRotation(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		ctx := context.Background()
		shop := env.NewShop(payd.RegionRU, "")
		dev := newVisitor(t, env)
		email, password := newUser(t, env, shop.MerchantID, payd.RoleDeveloper)
		dev.signIn(email, password)

		page := dev.get("/dashboard/test/developers/keys")
		if page.status != 200 || !strings.Contains(page.body, payd.SecretHint(shop.TestKey)) {
			t.Fatalf("keys page = %d, without the test key's hint\n%s", page.status, page.body)
		}
		for _, secret := range []string{shop.TestKey, shop.LiveKey, payd.SecretHint(shop.LiveKey)} {
			if strings.Contains(page.body, secret) {
				t.Fatalf("the test keys page shows %q", secret)
			}
		}
		form := formOf(t, page.body, "rotate-form")
		answer := dev.post("/dashboard/test/developers/keys/rotate", form)
		m := shownSecret.FindStringSubmatch(answer.body)
		if answer.status != 200 || m == nil || !strings.HasPrefix(m[1], "test_ru_") {
			t.Fatalf("rotation answer = %d\n%s", answer.status, answer.body)
		}
		secret := m[1]
		if cc := answer.header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("the secret's answer has Cache-Control %q", cc)
		}
		c := env.As(shop, false)
		c.WithKey(secret).Get("/v1/payments").Expect(t, 200)
		c.Get("/v1/payments").Expect(t, 200) // the old key, in its overlap

		// The same form again: nothing issued, the page says why, and the
		// secret is not shown again.
		again := dev.post("/dashboard/test/developers/keys/rotate", form)
		if again.status != http.StatusSeeOther || !strings.Contains(again.location, "done=already_rotated") {
			t.Fatalf("second submit = %d to %q", again.status, again.location)
		}
		after := dev.get(again.location)
		if !strings.Contains(after.body, "A newer key was issued after that form was shown") || strings.Contains(after.body, secret) {
			t.Fatalf("page after the second submit:\n%s", after.body)
		}
		keys, err := env.Service.ListKeys(ctx, shop.ID)
		if err != nil {
			t.Fatal(err)
		}
		var test []*payd.APIKey
		for _, k := range keys {
			if k.Mode == payd.ModeTest {
				test = append(test, k)
			}
		}
		if len(test) != 2 {
			t.Fatalf("%d test keys after a double submit, want 2", len(test))
		}
		old := test[1]
		if old.ExpiresAt == nil || old.ExpiresAt.Sub(test[0].CreatedAt) != payd.KeyOverlap {
			t.Fatalf("the old key expires at %v, want 24 h after %v", old.ExpiresAt, test[0].CreatedAt)
		}
		if !strings.Contains(after.body, "Works until its overlap ends") {
			t.Error("the keys page does not show the old key's overlap")
		}
		env.Clock.Advance(payd.KeyOverlap + time.Minute)
		c.Get("/v1/payments").ExpectError(t, 401, payd.CodeInvalidCredentials, "")
		c.WithKey(secret).Get("/v1/payments").Expect(t, 200)

		audit, err := env.Service.ListAudit(ctx, shop.MerchantID, payd.AuditListParams{ListParams: payd.ListParams{Limit: 100}})
		if err != nil {
			t.Fatal(err)
		}
		rotations := 0
		for _, e := range audit.Items {
			if e.Action == payd.AuditRotateKey {
				rotations++
				if e.UserEmail != email || e.ObjectID != test[0].ID || e.Mode != payd.ModeTest || e.Addr == "" {
					t.Errorf("audit entry = %+v", e)
				}
			}
		}
		if rotations != 1 {
			t.Fatalf("%d rotations in the audit log, want 1", rotations)
		}

		// The same form sent twice at once: one rotation, under the shop's
		// lock. (The clock's day ended the session: sign in again.)
		dev.signIn(email, password)
		form = formOf(t, dev.get("/dashboard/test/developers/keys").body, "rotate-form")
		var wg sync.WaitGroup
		var shown atomic.Int32
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if p := dev.post("/dashboard/test/developers/keys/rotate", form); shownSecret.MatchString(p.body) {
					shown.Add(1)
				}
			}()
		}
		wg.Wait()
		if shown.Load() != 1 {
			t.Fatalf("two rotations at once showed %d secrets, want 1", shown.Load())
		}
		if keys, _ := env.Service.ListKeys(ctx, shop.ID); len(keys) != 4 {
			t.Fatalf("%d keys after two rotations at once, want 4 (two live and test)", len(keys))
		}

		viewer := newVisitor(t, env)
		viewer.signIn(newUser(t, env, shop.MerchantID, payd.RoleViewer))
		vp := viewer.get("/dashboard/test/developers/keys")
		if vp.status != 200 || strings.Contains(vp.body, `id="rotate-form"`) {
			t.Fatalf("viewer's keys page = %d, rotate form shown: %v", vp.status, strings.Contains(vp.body, `id="rotate-form"`))
		}
		byHand := formOf(t, vp.body, "signout-form")
		byHand.Set("newest", test[0].ID)
		if p := viewer.post("/dashboard/test/developers/keys/rotate", byHand); p.status != http.StatusForbidden {
			t.Fatalf("viewer's rotation by hand = %d", p.status)
		}
		if keys, _ := env.Service.ListKeys(ctx, shop.ID); len(keys) != 4 {
			t.Fatalf("%d keys after the viewer's post, want 4", len(keys))
		}
	})
}

// The keys page shows when each key was last used: not yet for a new key,
// the time of its first request after one, and the use is recorded at
// most once a minute, the later use winning.
func TestKeyLastUse(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, b paydtest.Backend) {
		env := paydtest.Start(t, b, nil)
		ctx := context.Background()
		shop := env.NewShop(payd.RegionRU, "")
		dev := newVisitor(t, env)
		dev.signIn(newUser(t, env, shop.MerchantID, payd.RoleDeveloper))
		lastUse := func(mode payd.Mode) *time.Time {
			t.Helper()
			keys, err := env.Service.ListKeys(ctx, shop.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range keys {
				if k.Mode == mode {
					return k.LastUsedAt
				}
			}
			t.Fatalf("no %s key", mode)
			return nil
		}
		if p := dev.get("/dashboard/test/developers/keys"); !strings.Contains(p.body, "not used yet") {
			t.Fatalf("a new key's page does not say it was not used\n%s", p.body)
		}
		c := env.As(shop, false)
		c.Get("/v1/payments").Expect(t, 200)
		first := env.Clock.Now()
		used := lastUse(payd.ModeTest)
		if used == nil || used.After(first) {
			t.Fatalf("last use after a request = %v, want at most %v", used, first)
		}
		if lastUse(payd.ModeLive) != nil {
			t.Fatal("the unused live key has a last use")
		}
		if p := dev.get("/dashboard/test/developers/keys"); strings.Contains(p.body, "not used yet") {
			t.Fatal("the test keys page still says the used key was not used")
		}
		// Within the minute: no write.
		env.Clock.Advance(30 * time.Second)
		c.Get("/v1/payments").Expect(t, 200)
		if again := lastUse(payd.ModeTest); !again.Equal(*used) {
			t.Fatalf("a use within a minute moved the last use from %v to %v", used, again)
		}
		env.Clock.Advance(payd.KeyUseEvery)
		c.Get("/v1/payments").Expect(t, 200)
		if later := lastUse(payd.ModeTest); !later.After(*used) {
			t.Fatalf("a use a minute later left the last use at %v", later)
		}
	})
}
