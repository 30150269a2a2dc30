package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// A developer whose old key leaked expires it from the keys page after a
// rotation, through the confirmation; the API then answers the old key
// with a 401 that says a rotation ended it, and the new key works.
func TestDashboardKeyExpireNow(t *testing.T) {
	for _, b := range paydtest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			d := openDesk(t, b, payd.RoleDeveloper)
			d.signIn(t, d.email, d.match)
			d.tab.do("issue a new key",
				chromedp.Navigate(d.base+"/dashboard/test/developers/keys"),
				chromedp.WaitVisible(chromedp.ID("rotate-form")),
				chromedp.Submit(chromedp.ID("rotate-form")),
				chromedp.WaitVisible(chromedp.ID("new-secret")))
			secret := get(d.tab, "read the secret", chromedp.Value(chromedp.ID("new-secret")))
			d.api.Get("/v1/shop").Expect(t, 200) // the old key, in its overlap
			d.tab.do("ask to expire the old key",
				chromedp.Navigate(d.base+"/dashboard/test/developers/keys"),
				chromedp.WaitVisible(chromedp.CSS(`button[id^="expire-key_"]`)),
				chromedp.Click(chromedp.CSS(`button[id^="expire-key_"]`)),
				chromedp.WaitVisible(chromedp.ID("expire-confirm")))
			d.tab.checkAccessible(t, "expire key")
			d.api.Get("/v1/shop").Expect(t, 200) // asking changed nothing
			d.tab.do("confirm",
				chromedp.Click(chromedp.ID("expire-yes")),
				chromedp.WaitVisible(chromedp.CSS(`p.notice`)))
			if got := get(d.tab, "the notice", chromedp.Text(chromedp.CSS(`p.notice`))); !strings.Contains(got, "expired") {
				t.Fatalf("notice %q", got)
			}
			r := d.api.Get("/v1/shop")
			r.ExpectError(t, 401, payd.CodeInvalidCredentials, "")
			if desc, _ := r.JSON(t)["description"].(string); desc != payd.ErrKeyRotatedOut.Message {
				t.Fatalf("the old key's 401 says %q", desc)
			}
			d.api.WithKey(secret).Get("/v1/shop").Expect(t, 200)
		})
	}
}
